//! Property tests: the SSE parser and the recorder give the same result
//! however the byte stream is split into network chunks.

use lab_core::stream::record::{Recorder, StreamEnd};
use lab_core::stream::sse::{SseEvent, SseParser};
use proptest::prelude::*;

fn parse_split(bytes: &[u8], cuts: &[usize]) -> (Vec<SseEvent>, bool) {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    let mut last = 0;
    for &c in cuts {
        p.feed_into(&bytes[last..c], &mut out);
        last = c;
    }
    p.feed_into(&bytes[last..], &mut out);
    let clean = p.finish().is_clean();
    (out, clean)
}

fn sorted_cuts(len: usize, raw: Vec<usize>) -> Vec<usize> {
    let mut cuts: Vec<usize> = raw.into_iter().map(|c| c % (len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

/// Building blocks of realistic and adversarial streams.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"héllo 你好 🙂\"}}]}".to_string()),
        Just("data: [DONE]".to_string()),
        Just(": keep-alive".to_string()),
        Just("event: message".to_string()),
        Just("id: 42".to_string()),
        Just("retry: 100".to_string()),
        Just("data".to_string()),
        Just("".to_string()),
        "[a-z: ]{0,12}".prop_map(|s| format!("data: {s}")),
        "\\PC{0,8}",
    ]
}

fn line_end() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("\n"), Just("\r\n"), Just("\r")]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn same_events_however_split(
        parts in prop::collection::vec((piece(), line_end()), 0..40),
        raw_cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let text: String = parts.iter().map(|(p, e)| format!("{p}{e}")).collect();
        let bytes = text.as_bytes();
        let whole = parse_split(bytes, &[]);
        let split = parse_split(bytes, &sorted_cuts(bytes.len(), raw_cuts));
        prop_assert_eq!(whole, split);
    }

    #[test]
    fn byte_by_byte_equals_whole(parts in prop::collection::vec((piece(), line_end()), 0..20)) {
        let text: String = parts.iter().map(|(p, e)| format!("{p}{e}")).collect();
        let bytes = text.as_bytes();
        let cuts: Vec<usize> = (1..bytes.len()).collect();
        prop_assert_eq!(parse_split(bytes, &[]), parse_split(bytes, &cuts));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512), raw_cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        let a = parse_split(&bytes, &[]);
        let b = parse_split(&bytes, &sorted_cuts(bytes.len(), raw_cuts));
        prop_assert_eq!(a, b);
    }

    #[test]
    fn recorder_text_is_split_independent(
        words in prop::collection::vec("[a-zA-Z é你🙂]{1,6}", 1..30),
        raw_cuts in prop::collection::vec(any::<usize>(), 0..10),
    ) {
        let mut stream = String::from("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n");
        for w in &words {
            stream.push_str(&format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}}}}]}}\n\n", serde_json::to_string(w).unwrap()));
        }
        stream.push_str("data: [DONE]\n\n");
        let bytes = stream.as_bytes();
        let cuts = sorted_cuts(bytes.len(), raw_cuts);
        let mut r = Recorder::new(0.0);
        r.on_headers(1.0, 200);
        let mut last = 0;
        for (i, &c) in cuts.iter().chain(std::iter::once(&bytes.len())).enumerate() {
            r.on_bytes(2.0 + i as f64, &bytes[last..c]);
            last = c;
        }
        let t = r.finish(100.0, StreamEnd::Closed);
        prop_assert!(t.failure.is_none(), "{:?}", t.failure);
        prop_assert_eq!(t.text(), words.concat());
        prop_assert_eq!(t.chunks.len(), words.len());
        prop_assert!(t.chunks.windows(2).all(|w| w[0].arrived_ms <= w[1].arrived_ms));
    }
}
