use super::*;
use crate::trace::{Chunk, RequestTrace, TraceMeta};

/// A trace of `n` requests: TTFT `ttft + spread·k` (k cycling 0..5),
/// `tokens` tokens `gap` ms apart, each painted `paint` ms after it arrived.
fn endpoint(label: &str, n: usize, ttft: f64, gap: f64, paint: f64) -> Trace {
    let requests = (0..n)
        .map(|i| {
            let sent = i as f64 * 5_000.0;
            let first = sent + ttft + 4.0 * (i % 5) as f64;
            let chunks: Vec<Chunk> = (0..20)
                .map(|k| {
                    let at = first + gap * k as f64;
                    Chunk { painted_ms: Some(at + paint), ..Chunk::content(at, "word ", 1) }
                })
                .collect();
            RequestTrace {
                sent_ms: sent,
                headers_ms: Some(sent + 5.0),
                end_ms: chunks.last().map(|c| c.arrived_ms + 1.0),
                chunks,
                ..RequestTrace::default()
            }
        })
        .collect();
    Trace {
        meta: TraceMeta { label: Some(label.into()), ..TraceMeta::default() },
        requests,
        ..Trace::default()
    }
}

#[test]
fn two_endpoints_their_figures_and_differences_in_words() {
    let a = endpoint("fast", 10, 300.0, 20.0, 8.0);
    let b = endpoint("slow", 10, 480.0, 20.0, 8.0);
    let c = Comparison::of(&[a, b]);
    assert_eq!(c.sides.len(), 2);
    assert_eq!((c.sides[0].letter, c.sides[1].letter), ('A', 'B'));
    assert_eq!((c.sides[1].name.as_str(), c.sides[1].requests, c.sides[1].failed), ("slow", 10, 0));
    // TTFT P50: 300 + the median of 0,4,8,12,16 (twice) = 308.
    assert_eq!(c.sides[0].p50[0], Some(308.0));
    let ttft = c.versus[0].figures[0].as_ref().unwrap();
    assert!((ttft.diff - 180.0).abs() < 1e-9, "{ttft:?}");
    let (lo, hi) = ttft.interval.unwrap();
    assert!(lo > 150.0 && hi < 210.0 && lo <= 180.0 && 180.0 <= hi, "{lo} {hi}");
    // First paint moves with TTFT; TPOT does not move at all.
    assert!((c.versus[0].figures[1].as_ref().unwrap().diff - 180.0).abs() < 1e-9);
    assert_eq!(c.versus[0].figures[2].as_ref().unwrap().diff, 0.0);
    let words = c.sentences(&c.versus[0]);
    assert!(
        words[0].starts_with("TTFT (first token): B sends the first token 180 ms later at P50 ("),
        "{words:?}"
    );
    assert!(words[1].starts_with("First paint: B shows text 180 ms later at P50"), "{words:?}");
    assert!(words[2].contains("no difference at P50 that 10 and 10 requests can tell"), "{words:?}");
    // Scenario scores: each preset scored on both sides; chat cares about
    // TTFT, so the slower endpoint scores lower there, with an interval.
    assert_eq!(c.sides[0].scores.len(), c.scenarios.len());
    let chat = c.scenarios.iter().position(|(id, _)| id == "chat").unwrap();
    let d = c.versus[0].scores[chat].as_ref().unwrap();
    assert!(d.diff < 0.0 && d.at.is_none(), "{d:?}");
    assert!(d.interval.is_some_and(|(lo, hi)| lo <= d.diff && d.diff <= hi), "{d:?}");
    let said = words.iter().find(|w| w.starts_with(&format!("{} score:", c.scenarios[chat].1))).unwrap();
    assert!(said.contains(": B scores ") && said.contains(" points lower ("), "{said}");
    // The same requests, the same comparison (seeded bootstrap).
    assert_eq!(
        Comparison::of(&[endpoint("fast", 10, 300.0, 20.0, 8.0), endpoint("slow", 10, 480.0, 20.0, 8.0)]),
        c
    );
}

#[test]
fn failures_are_counted_not_compared_and_a_lone_endpoint_has_no_versus() {
    let mut a = endpoint("a", 6, 300.0, 20.0, 8.0);
    a.requests[0].chunks.clear();
    a.requests[0].failure = Some(crate::trace::Failure {
        kind: crate::trace::FailureKind::Http,
        message: "HTTP 500".into(),
        status: Some(500),
        body: None,
    });
    let c = Comparison::of(&[a.clone(), endpoint("b", 6, 300.0, 20.0, 8.0)]);
    assert_eq!((c.sides[0].requests, c.sides[0].failed), (6, 1));
    // A: TTFTs 304, 308, 312, 316, 300 for requests 1–5 (0 failed): P50
    // 308. B: 300, 304, 308, 312, 316, 300: P50 306, 304 and 308 as near,
    // the earlier played.
    assert_eq!((c.sides[0].typical, c.sides[1].typical), (Some(2), Some(1)));
    assert_eq!(c.versus[0].figures[0].as_ref().unwrap().n, (5, 6));
    let lone = Comparison::of(&[a]);
    assert_eq!((lone.sides.len(), lone.versus.len()), (1, 0));
    assert_eq!(Comparison::of(&[]).sides, Vec::new());
}

#[test]
fn every_figure_is_defined_once_in_the_registry_or_here() {
    for f in FIGURES {
        assert!(f.id == "qoe" || registry::row(f.id).is_some(), "{}", f.id);
        assert!(!f.label().is_empty() && !f.what().is_empty());
    }
    assert_eq!(FIGURES[0].format(180.4), "180 ms");
    assert_eq!(FIGURES[3].format(0.934), "0.93");
    assert_eq!((letter(0), letter(3)), ('A', 'D'));
    assert_eq!(order(2, 3).collect::<Vec<_>>(), [0, 1, 1, 0, 0, 1]);
    assert_eq!(order(3, 2).collect::<Vec<_>>(), [0, 1, 2, 1, 2, 0]);
    assert_eq!(order(4, 0).count(), 0);
}
