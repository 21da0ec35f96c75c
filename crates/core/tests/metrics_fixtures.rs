//! Metrics against a hand-computed fixture (`tests/fixtures/hand.trace.json`
//! at the workspace root). Every expected number below is worked out by hand
//! in the comment beside it.

use lab_core::measure::metrics::{MetricsConfig, RunMetrics};
use lab_core::measure::slo::SloSet;
use lab_core::trace::{FailureKind, Trace};

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn run() -> RunMetrics {
    let text = include_str!("../../../tests/fixtures/hand.trace.json");
    RunMetrics::of(&Trace::from_json(text).unwrap(), &MetricsConfig::default())
}

#[test]
fn counts_and_failures() {
    let m = run();
    assert_eq!((m.requests, m.completed, m.failed), (6, 4, 2));
    assert_eq!(m.failures.get("http"), Some(&1));
    assert_eq!(m.failures.get("truncated"), Some(&1));
    // 3 + 6 (usage) + 1 + 4; the truncated request's token is not counted.
    assert_eq!(m.output_tokens, 14);
    assert_eq!(m.input_tokens, 12);
}

#[test]
fn three_single_token_chunks() {
    let a = &run().per_request[0];
    close(a.ttft_ms.unwrap(), 100.0);
    close(a.e2el_ms.unwrap(), 150.0);
    close(a.tpot_ms.unwrap(), 25.0); // (150 - 100) / (3 - 1)
    assert_eq!(a.itl.iter().map(|g| g.ms).collect::<Vec<_>>(), [20.0, 30.0]);
    close(a.output_tokens_per_s.unwrap(), 20.0); // 3 tokens / 0.15 s
    close(a.ttfb_ms.unwrap(), 40.0);
    close(a.ttfp_ms.unwrap(), 108.0);
    close(a.paint_lag_ms.unwrap().mean, (8.0 + 4.0 + 8.0) / 3.0);
}

#[test]
fn multi_token_chunk_is_not_one_fast_token() {
    let m = run();
    let b = &m.per_request[1];
    assert_eq!(b.output_tokens, 6); // usage wins over the chunk sum (6 as well)
    close(b.ttft_ms.unwrap(), 200.0);
    close(b.e2el_ms.unwrap(), 260.0);
    close(b.tpot_ms.unwrap(), 12.0); // (260 - 200) / 5
    assert_eq!(b.itl.iter().map(|g| (g.ms, g.tokens)).collect::<Vec<_>>(), [(40.0, 4), (20.0, 1)]);
    // Per-token view of all gaps: A 20, 30; B 10,10,10,10 and 20; D 20, 400, 20.
    let pt = m.itl_per_token_ms.unwrap();
    assert_eq!(pt.count, 10);
    close(pt.mean, (20.0 + 30.0 + 40.0 + 20.0 + 20.0 + 400.0 + 20.0) / 10.0);
    close(pt.median, 20.0);
}

#[test]
fn one_token_response_has_no_tpot() {
    let m = run();
    let c = &m.per_request[2];
    assert_eq!(c.output_tokens, 1);
    assert_eq!(c.tpot_ms, None);
    assert!(c.itl.is_empty());
    close(c.ttft_ms.unwrap(), 300.0);
    // TPOT statistics cover A, B, D only: 25, 12, 146.67.
    let tpot = m.tpot_ms.unwrap();
    assert_eq!(tpot.count, 3);
    close(tpot.mean, (25.0 + 12.0 + 440.0 / 3.0) / 3.0);
    close(tpot.median, 25.0);
}

#[test]
fn stall_is_detected() {
    let m = run();
    let d = &m.per_request[3];
    close(d.tpot_ms.unwrap(), 440.0 / 3.0); // (490 - 50) / 3
    assert_eq!(d.stalls.len(), 1);
    close(d.stalls[0].duration_ms, 400.0);
    close(d.stalls[0].start_ms, 70.0);
    assert_eq!(d.stalls[0].after_tokens, 2);
    assert_eq!((m.stalls.count, m.stalls.requests_with_stalls), (1, 1));
    close(m.stalls.longest_ms, 400.0);
    // Jitter of D: gaps 20, 400, 20 → mean 146.67, std 179.13, CV 1.2214
    let j = d.jitter.unwrap();
    let mean = 440.0 / 3.0;
    let var = (2.0 * (20.0f64 - mean).powi(2) + (400.0f64 - mean).powi(2)) / 3.0;
    close(j.std_ms, var.sqrt());
    assert!((j.cv - 1.2214).abs() < 1e-3, "{}", j.cv);
}

#[test]
fn errored_requests_are_excluded_from_latency() {
    let m = run();
    assert_eq!(m.per_request[4].failure, Some(FailureKind::Http));
    assert_eq!(m.per_request[5].failure, Some(FailureKind::Truncated));
    assert!(!m.per_request[5].completed, "a truncated stream with text is still failed");
    // TTFT over A, B, C, D = 100, 200, 300, 50.
    let t = m.ttft_ms.unwrap();
    assert_eq!(t.count, 4);
    close(t.mean, 162.5);
    close(t.median, 150.0);
    close(t.std, 9218.75f64.sqrt());
    close(t.p90, 270.0); // h = 3 * 0.9 = 2.7 → 200 + 100 * 0.7
    close(t.p99, 297.0); // h = 2.97 → 300 − 100 * 0.03
    // ITL pooled: 20, 30, 40, 20, 20, 400, 20.
    let i = m.itl_ms.unwrap();
    assert_eq!(i.count, 7);
    close(i.mean, 550.0 / 7.0);
    close(i.median, 20.0);
    close(i.p90, 184.0); // h = 5.4 → 40 + 360 * 0.4
    close(i.p99, 378.4); // h = 5.94 → 400 − 360 * 0.06
    // E2EL: 150, 260, 300, 490.
    let e = m.e2el_ms.unwrap();
    close(e.mean, 300.0);
    close(e.median, 280.0);
}

#[test]
fn throughput_over_the_whole_run() {
    let m = run();
    // From the first send (0) to the last event of any request (5150).
    close(m.duration_ms.unwrap(), 5150.0);
    close(m.output_tokens_per_s.unwrap(), 14.0 / 5.15);
    close(m.request_throughput.unwrap(), 4.0 / 5.15);
}

#[test]
fn goodput_like_vllm() {
    let m = run();
    // A (100, 25) good; B (200 ≤ 200, 12) good; C TTFT 300 fails; D TPOT 146.7 fails;
    // E and F failed → 2 of 6.
    let g: SloSet = "ttft:200,tpot:30".parse().unwrap();
    let gp = g.goodput(&m);
    assert_eq!((gp.good, gp.total), (2, 6));
    close(gp.ratio, 2.0 / 6.0);
    // The 1-token response C counts as TPOT 0 and meets any TPOT SLO.
    let tpot_only: SloSet = "tpot:30".parse().unwrap();
    assert_eq!(tpot_only.goodput(&m).good, 3);
    // ITL: every gap ≤ 100 ms: A, B, C (no gaps); D has a 400 ms gap.
    let itl: SloSet = "itl:100".parse().unwrap();
    assert_eq!(itl.goodput(&m).good, 3);
    let e2el: SloSet = "e2el:300".parse().unwrap();
    assert_eq!(e2el.goodput(&m).good, 3);
}

#[test]
fn empty_trace_has_no_numbers_and_no_panic() {
    let t = Trace::from_json(r#"{"schema_version":1,"requests":[]}"#).unwrap();
    let m = RunMetrics::of(&t, &MetricsConfig::default());
    assert_eq!(m.requests, 0);
    assert!(m.ttft_ms.is_none() && m.itl_ms.is_none() && m.duration_ms.is_none());
    assert_eq!(SloSet::standard().goodput(&m).ratio, 0.0);
}
