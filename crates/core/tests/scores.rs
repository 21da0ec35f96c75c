//! Scenario scores on the hand-computed fixture, worked out by hand.

use lab_core::measure::metrics::{MetricsConfig, RunMetrics};
use lab_core::measure::score::{self, Verdict};
use lab_core::trace::Trace;

fn run() -> RunMetrics {
    let text = include_str!("../../../tests/fixtures/hand.trace.json");
    RunMetrics::of(&Trace::from_json(text).unwrap(), &MetricsConfig::default())
}

/// Log interpolation between two tiers, as documented in `score`.
fn between(v: f64, (a, sa): (f64, f64), (b, sb): (f64, f64)) -> f64 {
    sa + (sb - sa) * ((v / a).ln() / (b / a).ln())
}

#[test]
fn code_completion_by_hand() {
    let s = score::preset("code").unwrap().score(&run());
    // TTFT P95 of 50, 100, 200, 300: h = 2.85 → 300 − 100·0.15 = 285 ms,
    // between (200 → 50) and (500 → 0).
    let ttft = between(285.0, (200.0, 50.0), (500.0, 0.0));
    // E2EL P95 of 150, 260, 300, 490: 490 − 190·0.15 = 461.5 ms,
    // between (300 → 100) and (1000 → 50).
    let e2el = between(461.5, (300.0, 100.0), (1000.0, 50.0));
    // TPOT mean 61.2 ms is past the 50 ms zero tier: 0.
    let want = (ttft * 55.0 + e2el * 30.0 + 0.0 * 15.0) / 100.0;
    let got = s.score.unwrap();
    assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    assert_eq!(s.verdict, Some(Verdict::Poor));
    // numpy-exact: h = 3·0.95 is 2.8499999999999996 in floating point.
    assert!((s.breakdown[0].value.unwrap() - 285.0).abs() < 1e-9);
    assert!((s.breakdown[2].lost - 15.0).abs() < 1e-9, "TPOT loses its whole 15% weight");
    assert!(
        s.explanation.starts_with("Code completion: 42/100 (poor). Most points lost to TTFT P95 at 285 ms")
    );
}

#[test]
fn unmeasurable_targets_are_left_out_and_said() {
    // One single-token request: no TPOT, no ITL, no jitter.
    let t = Trace::from_json(
        r#"{"schema_version":1,"requests":[{"sent_ms":0,"chunks":[{"arrived_ms":80,"text":"x"}],"end_ms":81}]}"#,
    )
    .unwrap();
    let m = RunMetrics::of(&t, &MetricsConfig::default());
    let s = score::preset("code").unwrap().score(&m);
    // TTFT 80 ≤ 100 → 100; E2EL 80 ≤ 300 → 100; TPOT missing → weights renormalised.
    assert_eq!(s.score, Some(100.0));
    assert!(s.explanation.contains("1 target(s) could not be measured"), "{}", s.explanation);
    let empty = Trace::from_json(r#"{"schema_version":1,"requests":[]}"#).unwrap();
    let s = score::preset("chat").unwrap().score(&RunMetrics::of(&empty, &MetricsConfig::default()));
    assert_eq!(s.score, None);
    assert_eq!(s.explanation, "Interactive chat: no completed requests to score.");
}

#[test]
fn same_tokens_per_second_different_scores() {
    // The seed's point: two runs with equal E2EL and tokens, different feel.
    let mk = |ttft: f64, tpot: f64| {
        let chunks: Vec<String> =
            (0..40).map(|i| format!(r#"{{"arrived_ms":{},"text":"t"}}"#, ttft + tpot * i as f64)).collect();
        let json =
            format!(r#"{{"schema_version":1,"requests":[{{"sent_ms":0,"chunks":[{}]}}]}}"#, chunks.join(","));
        RunMetrics::of(&Trace::from_json(&json).unwrap(), &MetricsConfig::default())
    };
    let fast_start = mk(150.0, 60.0); // E2EL 150 + 39·60 = 2490
    let slow_start = mk(2100.0, 10.0); // E2EL 2100 + 39·10 = 2490
    let tps = |m: &RunMetrics| m.user_output_tokens_per_s.unwrap().median;
    assert!((tps(&fast_start) - tps(&slow_start)).abs() < 1e-9);
    let chat = score::preset("chat").unwrap();
    assert!(chat.score(&fast_start).score.unwrap() > chat.score(&slow_start).score.unwrap() + 20.0);
}
