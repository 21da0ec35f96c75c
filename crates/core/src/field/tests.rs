//! The readers on spans written as each format writes them.

use super::*;
use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::trace::{ChunkKind, FailureKind};

const T0: u64 = 1_796_508_000_000_000_000;

fn kv(key: &str, value: &str) -> String {
    format!(r#"{{"key":"{key}","value":{value}}}"#)
}
fn s(v: &str) -> String {
    format!(r#"{{"stringValue":"{v}"}}"#)
}
fn i(v: i64) -> String {
    format!(r#"{{"intValue":"{v}"}}"#)
}
fn d(v: f64) -> String {
    format!(r#"{{"doubleValue":{v}}}"#)
}
fn arr(items: &[String]) -> String {
    format!(r#"{{"arrayValue":{{"values":[{}]}}}}"#, items.join(","))
}

/// One OTLP/JSON span: `start_ms`/`end_ms` after T0, its attributes.
fn span(id: &str, start_ms: u64, end_ms: u64, attrs: &[String], status: &str) -> String {
    format!(
        r#"{{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"{id}","name":"chat tiny","kind":3,"startTimeUnixNano":"{}","endTimeUnixNano":"{}","attributes":[{}],"status":{status}}}"#,
        T0 + start_ms * 1_000_000,
        T0 + end_ms * 1_000_000,
        attrs.join(",")
    )
}

fn export(spans: &[String]) -> String {
    format!(
        r#"{{"resourceSpans":[{{"resource":{{"attributes":[{}]}},"scopeSpans":[{{"scope":{{"name":"latency-lab-field"}},"spans":[{}]}}]}}]}}"#,
        kv("service.name", &s("shop-chat")),
        spans.join(",")
    )
}

/// The lab's snippet span: 4 chunks, paints by a smoothing buffer.
fn snippet_span() -> String {
    let ms = |xs: &[f64]| arr(&xs.iter().map(|&x| d(x)).collect::<Vec<_>>());
    let ints = |xs: &[i64]| arr(&xs.iter().map(|&x| i(x)).collect::<Vec<_>>());
    span(
        "a1",
        0,
        900,
        &[
            kv("gen_ai.operation.name", &s("chat")),
            kv("gen_ai.request.model", &s("tiny")),
            kv("gen_ai.usage.input_tokens", &i(12)),
            kv("gen_ai.usage.output_tokens", &i(6)),
            kv("gen_ai.response.time_to_first_chunk", &d(0.2)),
            kv("gen_ai.input.messages", &s("the user's secret question")),
            kv("gen_ai.output.messages", &s("the model's answer")),
            kv("latency_lab.headers_ms", &d(150.0)),
            kv("latency_lab.chunk_ms", &ms(&[200.0, 300.0, 500.0, 800.0])),
            kv("latency_lab.chunk_tokens", &ints(&[1, 2, 1, 2])),
            kv("latency_lab.chunk_chars", &ints(&[5, 10, 5, 20])),
            // The buffer shows half the text at 320, all of it at 880.
            kv("latency_lab.paint_ms", &ms(&[216.0, 320.0, 880.0])),
            kv("latency_lab.paint_chars", &ints(&[3, 20, 40])),
            kv("latency_lab.browser", &s("Firefox")),
            kv("latency_lab.engine", &s("Gecko")),
            kv("latency_lab.browser_version", &s("140.0")),
            kv("latency_lab.display_hz", &d(60.0)),
        ],
        "{}",
    )
}

/// A span as a GenAI instrumentation without the lab writes it.
fn plain_span(id: &str, start_ms: u64) -> String {
    span(
        id,
        start_ms,
        start_ms + 1200,
        &[
            kv("gen_ai.operation.name", &s("chat")),
            kv("gen_ai.request.model", &s("tiny")),
            kv("gen_ai.usage.output_tokens", &i(5)),
            kv("gen_ai.response.time_to_first_chunk", &d(0.4)),
            kv("gen_ai.prompt.0.content", &s("older convention's prompt")),
        ],
        r#"{"code":0}"#,
    )
}

#[test]
fn the_lab_snippet_span_keeps_every_chunk_and_paint_and_no_text() {
    let run = FieldRun::read(&export(&[snippet_span()])).unwrap();
    let r = &run.trace.requests[0];
    assert_eq!(r.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [200.0, 300.0, 500.0, 800.0]);
    assert_eq!(r.chunks.iter().map(|c| c.tokens).sum::<u32>(), 6);
    // Shares done: 5/40, 15/40, 20/40, 40/40; shown: 3/40, 20/40, 40/40.
    let painted: Vec<Option<f64>> = r.chunks.iter().map(|c| c.painted_ms).collect();
    assert_eq!(painted, [Some(320.0), Some(320.0), Some(880.0), Some(880.0)]);
    assert!(r.chunks.iter().all(|c| c.text.is_empty()));
    assert_eq!(r.headers_ms, Some(150.0));
    assert_eq!(r.end_ms, Some(900.0));
    assert_eq!(r.usage.unwrap().prompt_tokens, Some(12));
    assert_eq!(run.trace.meta.client.browser.as_deref(), Some("Firefox"));
    assert_eq!(run.trace.meta.label.as_deref(), Some("field data: shop-chat"));
    assert_eq!(run.trace.meta.clock_epoch_ms, Some(T0 as f64 / 1e6));
    assert!(run.trace.meta.notes.is_empty(), "{:?}", run.trace.meta.notes);
    let json = run.trace.to_json();
    assert!(!json.contains("secret") && !json.contains("answer\""), "no text reaches the trace");
    assert!(run.spans.iter().all(|s| !format!("{s:?}").contains("secret")));
    // Measured as the lab measures: TTFT 200, first paint 320.
    let m = RunMetrics::of(&run.trace, &MetricsConfig::default());
    assert_eq!(m.ttft_ms.unwrap().median, 200.0);
    assert_eq!(m.ttfp_ms.unwrap().median, 320.0);
    // What the collector keeps for summaries is the same measure.
    let row = summary::FieldRow::of(&run.spans[0]);
    assert_eq!((row.figure("ttft"), row.figure("ttfp")), (Some(200.0), Some(320.0)));
    assert_eq!(row.figure("paint_lag"), Some(100.0), "lags 120, 20, 380, 80: median 100");
    assert_eq!(row.figure("paint_gap"), Some(560.0), "paints at 320 and 880");
    assert_eq!(row.stalls, 1, "the 300 ms gap");
    assert_eq!(row.qoe, m.per_request[0].qoe);
    assert!(!row.failed);
}

#[test]
fn a_plain_genai_span_is_spread_from_its_first_chunk_and_said() {
    let run = FieldRun::read(&export(&[snippet_span(), plain_span("b2", 2000)])).unwrap();
    let r = &run.trace.requests[1];
    assert_eq!(r.sent_ms, 2000.0);
    assert_eq!(r.chunks.len(), 5);
    assert_eq!(r.chunks[0].arrived_ms, 2400.0);
    assert_eq!(r.chunks[4].arrived_ms, 3200.0);
    assert!(r.chunks.iter().all(|c| c.painted_ms.is_none()));
    assert_eq!(run.trace.meta.notes.len(), 2, "{:?}", run.trace.meta.notes);
    assert!(run.trace.meta.notes[0].starts_with("1 of 2 requests carry only the time to first chunk"));
    assert!(run.trace.meta.notes[1].starts_with("1 of 2 requests carry no paints"));
    // The notes travel in the trace: the collector's period, read back as
    // a lab trace, tells its run card what the file import tells.
    let back = match crate::import::import(&run.trace.to_json()).unwrap() {
        crate::import::Imported::Trace(t) => t,
        _ => panic!("a lab trace reads as a trace"),
    };
    let opts = crate::measure::analysis::AnalysisOptions::default();
    let digest = crate::import::digest::RunDigest::of_trace(&back, "period", &opts);
    assert_eq!(digest.notes, run.trace.meta.notes);
    assert_eq!(trace_of(&run.spans).meta.notes, run.trace.meta.notes, "the collector's trace says the same");
}

#[test]
fn failures_aborts_and_what_is_left_out() {
    let failed = span(
        "c3",
        100,
        400,
        &[
            kv("gen_ai.operation.name", &s("chat")),
            kv("error.type", &s("429")),
            kv("gen_ai.response.time_to_first_chunk", &d(0.1)),
        ],
        r#"{"code":2,"message":"Too Many Requests"}"#,
    );
    let aborted = span(
        "c4",
        200,
        700,
        &[
            kv("gen_ai.operation.name", &s("chat")),
            kv("latency_lab.chunk_ms", &arr(&[d(150.0), d(250.0)])),
            kv("latency_lab.aborted", r#"{"boolValue":true}"#),
        ],
        "{}",
    );
    let embeddings = span("c5", 0, 10, &[kv("gen_ai.operation.name", &s("embeddings"))], "{}");
    let http = span("c6", 0, 10, &[kv("http.request.method", &s("POST"))], "{}");
    let not_streamed = span("c7", 0, 10, &[kv("gen_ai.operation.name", &s("chat"))], "{}");
    let run = FieldRun::read(&export(&[failed, aborted, embeddings, http, not_streamed])).unwrap();
    assert_eq!(run.trace.requests.len(), 2);
    let f = run.trace.requests[0].failure.as_ref().unwrap();
    assert_eq!(
        (f.kind, f.status, f.message.as_str()),
        (FailureKind::Http, Some(429), "429: Too Many Requests")
    );
    assert_eq!(run.trace.requests[1].failure.as_ref().unwrap().kind, FailureKind::Aborted);
    assert_eq!(run.trace.requests[1].chunks.len(), 2, "what arrived before the stop is kept");
    // A stopped request counts as failed and has no figures, as in the run's statistics.
    let stopped = summary::FieldRow::of(&run.spans[1]);
    assert!(stopped.failed);
    assert_eq!((stopped.figure("ttft"), stopped.qoe, stopped.stalls), (None, None, 0));
    let m = RunMetrics::of(&run.trace, &MetricsConfig::default());
    assert!(m.ttft_ms.is_none(), "no completed request, no TTFT in the run either");
    assert!(
        run.trace
            .meta
            .notes
            .last()
            .unwrap()
            .contains("1 spans that are not GenAI, 1 GenAI operations that stream no text")
    );
    assert!(run.trace.meta.notes.last().unwrap().contains("1 inference spans without a first-chunk time"));
}

#[test]
fn collector_file_lines_tempo_and_jaeger_read_alike() {
    // The collector's file exporter: one request per line.
    let lines = format!("{}\n{}\n", export(&[snippet_span()]), export(&[plain_span("b2", 2000)]));
    assert!(otlp::looks_like(&lines));
    let a = FieldRun::read(&lines).unwrap();
    assert_eq!(a.trace.requests.len(), 2);
    // Tempo: the same resource spans under "batches", older scope name.
    let tempo = export(&[snippet_span()])
        .replace("resourceSpans", "batches")
        .replace("scopeSpans", "instrumentationLibrarySpans");
    let b = FieldRun::read(&tempo).unwrap();
    assert_eq!(b.trace.requests[0].chunks, a.trace.requests[0].chunks);
    // Jaeger: µs times, typed tags, arrays as JSON text.
    let jaeger = r#"{"data":[{"traceID":"0af7","spans":[{"traceID":"0af7","spanID":"j1","operationName":"chat tiny","startTime":1796508000000000,"duration":900000,"processID":"p1",
        "tags":[{"key":"gen_ai.operation.name","type":"string","value":"chat"},{"key":"gen_ai.usage.output_tokens","type":"int64","value":2},
                {"key":"latency_lab.chunk_ms","type":"string","value":"[200,300]"},{"key":"gen_ai.input.messages","type":"string","value":"secret"}]}],
        "processes":{"p1":{"serviceName":"shop-chat","tags":[]}}}]}"#;
    assert!(otlp::looks_like(jaeger));
    let c = FieldRun::read(jaeger).unwrap();
    assert_eq!(c.trace.requests[0].chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [200.0, 300.0]);
    assert_eq!(c.spans[0].site.as_deref(), Some("shop-chat"));
    assert!(!c.trace.to_json().contains("secret"));
    assert_eq!(c.trace.requests[0].chunks[0].kind, ChunkKind::Content);
}

#[test]
fn bad_files_name_their_line_and_what_was_expected() {
    let e = FieldRun::read(&format!("{}\n{{\"resourceSpans\": [\n", export(&[snippet_span()]))).unwrap_err();
    assert!(e.to_string().starts_with("line 2: not JSON"), "{e}");
    let e = FieldRun::read(r#"{"spans": []}"#).unwrap_err();
    assert!(e.to_string().contains("no resourceSpans, batches or data"), "{e}");
    let e = FieldRun::read(&export(&[span("x", 0, 1, &[kv("http.route", &s("/"))], "{}")])).unwrap_err();
    assert!(e.to_string().starts_with("1 spans, none a streamed GenAI inference span"), "{e}");
    // A span with a million chunk offsets is refused, not read.
    let huge = arr(&vec![d(1.0); otlp::MAX_ARRAY + 1]);
    let e = FieldRun::read(&export(&[span(
        "h",
        0,
        1,
        &[kv("gen_ai.operation.name", &s("chat")), kv("latency_lab.chunk_ms", &huge)],
        "{}",
    )]))
    .unwrap_err();
    assert!(e.to_string().contains("latency_lab.chunk_ms holds 100001 values; at most 100000"), "{e}");
}

/// Issue 44's walk: "Feel the field" played empty panes that never ended
/// (field chunks carry no text). A field request replays the lab's sample
/// text in the characters each chunk added, in the recorded rhythm, and
/// the trace still holds no text.
#[test]
fn a_field_request_replays_sample_text_in_its_recorded_lengths() {
    let run = FieldRun::read(&export(&[snippet_span()])).unwrap();
    let r = run.trace.requests[0].clone();
    assert_eq!(r.chunks.iter().map(|c| c.chars).collect::<Vec<_>>(), [Some(5), Some(10), Some(5), Some(20)]);
    assert!(r.chunks.iter().all(|c| c.text.is_empty()), "no text in the trace");
    let pane = crate::replay::pane::PaneConfig::recorded("P90".into(), "field".into(), r.clone());
    let played = pane.network_chunks();
    let lengths: Vec<usize> = played.iter().map(|c| c.text.chars().count()).collect();
    assert_eq!(lengths, [5, 10, 5, 20], "the recorded characters per chunk");
    let due: Vec<f64> = played.iter().map(|c| c.due_ms).collect();
    assert_eq!(
        due,
        r.chunks.iter().map(|c| c.arrived_ms - r.sent_ms).collect::<Vec<_>>(),
        "the recorded rhythm"
    );
    let text: String = played.iter().map(|c| c.text.as_str()).collect();
    let sample = crate::replay::text::sample("chat").unwrap().text;
    assert!(sample.starts_with(&text), "the chat sample, in order: {text:?}");
}

/// What the collector hands the page (`GET /v1/field/requests`) is a lab
/// trace the page must load: every fixture's requests survive their own
/// JSON, whatever their spans said (a span may end before its last
/// recorded chunk: its clock and the page's offsets are not one clock).
#[test]
fn field_runs_are_traces_the_lab_loads() {
    for name in ["collector_file_exporter.jsonl", "tempo_trace.json", "jaeger_export.json"] {
        let path = format!("{}/../../tests/fixtures/field/{name}", env!("CARGO_MANIFEST_DIR"));
        let run = FieldRun::read(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let back = crate::Trace::from_json(&run.trace.to_json());
        assert!(back.is_ok(), "{name}: {}", back.err().map(|e| e.to_string()).unwrap_or_default());
    }
    let late = export(&[span(
        "c3",
        0,
        500,
        &[kv("gen_ai.operation.name", &s("chat")), kv("latency_lab.chunk_ms", &arr(&[d(100.0), d(700.0)]))],
        "{}",
    )]);
    let r = &FieldRun::read(&late).unwrap().trace.requests[0];
    assert_eq!(r.end_ms, Some(700.0), "the end is never before the last chunk");
}

#[test]
fn a_request_starts_at_the_users_action_when_the_page_recorded_it() {
    let with_action = |a: f64| {
        let one = snippet_span().replacen(
            "\"attributes\":[",
            &format!("\"attributes\":[{},", kv("latency_lab.action_ms", &d(a))),
            1,
        );
        FieldRun::read(&export(&[one])).unwrap()
    };
    let run = with_action(0.4);
    let (r, span) = (&run.trace.requests[0], &run.spans[0]);
    assert_eq!(r.sent_ms, 0.0, "sent at the action");
    assert!((r.chunks[0].arrived_ms - 200.4).abs() < 1e-9, "the wait before the send is in the TTFT");
    assert!((r.headers_ms.unwrap() - 150.4).abs() < 1e-9);
    assert!((r.chunks[1].painted_ms.unwrap() - 320.4).abs() < 1e-9);
    assert!((r.end_ms.unwrap() - 900.4).abs() < 1e-9);
    assert!((span.at_unix_ms - (T0 as f64 / 1e6 - 0.4)).abs() < 1e-3, "its time is the action's");
    let m = RunMetrics::of(&run.trace, &MetricsConfig::default());
    assert!((m.ttft_ms.unwrap().median - 200.4).abs() < 1e-9);
    // Out of range (negative, over a second): the request starts at its send.
    for a in [-5.0, conventions::ACTION_MAX_MS + 1.0] {
        assert_eq!(with_action(a).trace.requests[0].chunks[0].arrived_ms, 200.0, "{a}");
    }
}

#[test]
fn a_stream_the_page_could_not_read_is_its_paints_and_a_sampled_one_counts_back() {
    let ms = |xs: &[f64]| arr(&xs.iter().map(|&x| d(x)).collect::<Vec<_>>());
    let unread = span(
        "c1",
        0,
        900,
        &[
            kv("gen_ai.operation.name", &s("chat")),
            kv("latency_lab.wire", &s("unknown")),
            kv("latency_lab.sample_rate", &d(0.5)),
            kv("latency_lab.chunk_ms", &ms(&[])),
            kv("latency_lab.paint_ms", &ms(&[310.0, 420.0, 420.5, 700.0])),
            kv("latency_lab.paint_chars", &ms(&[4.0, 10.0, 10.0, 30.0])),
        ],
        "{}",
    );
    let run = FieldRun::read(&export(&[unread, plain_span("c2", 100)])).unwrap();
    let r = &run.trace.requests[0];
    let chunks: Vec<(f64, Option<f64>, Option<u32>)> =
        r.chunks.iter().map(|c| (c.arrived_ms, c.painted_ms, c.chars)).collect();
    assert_eq!(
        chunks,
        [(310.0, Some(310.0), Some(4)), (420.0, Some(420.0), Some(6)), (700.0, Some(700.0), Some(20))]
    );
    assert!(r.failure.is_none(), "not readable is not failed");
    let s0 = &run.spans[0];
    assert_eq!(
        (s0.wire.as_deref(), s0.sample_rate, s0.chunks_recorded, s0.painted),
        (Some("unknown"), Some(0.5), false, true)
    );
    assert!(
        run.trace
            .meta
            .notes
            .iter()
            .any(|n| n.contains("1 of 2 requests streamed in a format the page could not read")),
        "{:?}",
        run.trace.meta.notes
    );
    assert!(
        !run.trace
            .meta
            .notes
            .iter()
            .any(|n| n.contains("carry only the time to first chunk") && n.starts_with("2"))
    );
    let row = summary::FieldRow::of(s0);
    assert_eq!(
        (row.figure("ttft"), row.figure("ttfp")),
        (Some(310.0), Some(310.0)),
        "its TTFT is what the screen showed"
    );
    assert_eq!(row.weight(), 2.0, "one of two requests reported");
    let rows = [row, summary::FieldRow::of(&run.spans[1])];
    let sum = summary::FieldSummary::of(&rows, summary::GroupBy::Site);
    assert_eq!((sum.requests, sum.estimated, sum.sampled()), (2, 3.0, true));
    assert_eq!(sum.timeline.buckets.iter().map(|b| b.estimated).sum::<f64>(), 3.0);
    let ttft = sum.groups[0].figure("ttft").unwrap();
    assert_eq!(ttft.n, 2, "percentiles stay over the recorded requests");
}
