//! Hand-computed cases for every definition of the module.

use super::*;

const D: f64 = DEFAULT_FLUIDITY_TTFT_MS;
const T: f64 = DEFAULT_FLUIDITY_TBT_MS;
const E: f64 = DEFAULT_QOE_TTFT_MS;
const R: f64 = DEFAULT_QOE_TOKENS_PER_S;

/// One token per arrival.
fn ones(ts: &[f64]) -> Vec<(f64, u64)> {
    ts.iter().map(|&t| (t, 1)).collect()
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[test]
fn fluidity_of_one_token_a_stall_and_a_multi_token_chunk() {
    assert_eq!(fluidity(&ones(&[300.0]), D, T), Some(1.0));
    assert_eq!(fluidity(&ones(&[600.0]), D, T), Some(0.0));
    assert_eq!(fluidity(&[], D, T), None);
    // Deadlines 500, 550, 600, 650 (missed: 800), then re-based: 850, 900.
    let stall = [100.0, 150.0, 200.0, 800.0, 850.0, 900.0];
    assert!(close(fluidity(&ones(&stall), D, T), 5.0 / 6.0));
    // A chunk of 3 tokens at 520: the first misses 500, the next two meet 570 and 620.
    assert!(close(fluidity(&[(520.0, 3)], D, T), 2.0 / 3.0));
    assert!(close(fluidity(&[(520.0, 3)], D, T), fluidity(&ones(&[520.0; 3]), D, T).unwrap()));
    // A chunk claiming billions of tokens is one run, not billions of values.
    assert!(close(fluidity(&[(100.0, u64::from(u32::MAX))], D, T), 1.0));
    assert!(qoe(&[(100.0, u64::from(u32::MAX))], E, R).is_some());
    // One long stall costs one token, however long it is.
    let long = [100.0, 150.0, 5000.0, 5050.0];
    assert!(close(fluidity(&ones(&long), D, T), 3.0 / 4.0));
}

#[test]
fn qoe_by_hand() {
    // One token before the reader expects it: the whole expected area.
    assert!(close(qoe(&ones(&[300.0]), E, R), 1.0));
    // One token 100 ms after the horizon of the expectation: nothing delivered in time.
    assert!(close(qoe(&ones(&[650.0]), E, R), 0.0));
    // Two tokens at 500 and 700: expected area 100 + 200 = 300; delivered
    // min(A, X): 25 + 50 + 100 = 175.
    assert!(close(qoe(&ones(&[500.0, 700.0]), E, R), 175.0 / 300.0));
    // Faster than the reader earns nothing extra.
    assert!(close(qoe(&ones(&[10.0, 11.0, 12.0]), E, R), 1.0));
    assert_eq!(qoe(&[], E, R), None);
    assert_eq!(qoe(&ones(&[1.0]), E, 0.0), None);
    // A run of k tokens is k tokens at one instant.
    for (run, spread) in [((520.0, 3), [520.0; 3]), ((90.0, 3), [90.0; 3])] {
        assert!(close(qoe(&[run], E, R), qoe(&ones(&spread), E, R).unwrap()));
    }
    let mixed = [(450.0, 2), (600.0, 1), (900.0, 4)];
    let flat = [450.0, 450.0, 600.0, 900.0, 900.0, 900.0, 900.0];
    assert!(close(qoe(&mixed, E, R), qoe(&ones(&flat), E, R).unwrap()));
    assert!(close(fluidity(&mixed, D, T), fluidity(&ones(&flat), D, T).unwrap()));
}

#[test]
fn qoe_is_exact_not_sampled() {
    // A stream at the reading pace whose token k arrives as X starts rising
    // towards k: A ≥ X throughout, so the delivered area is the whole
    // expected area, to the last bit.
    let arrivals: Vec<f64> = (1..=40).map(|k| E + 50.0 * f64::from(k) - 50.0).collect();
    let q = qoe(&ones(&arrivals), E, R).unwrap();
    assert!((q - 1.0).abs() < 1e-12, "{q}");
    // Half the pace: the area lost is exact too.
    let slow: Vec<f64> = (0..4).map(|k| E + 100.0 * f64::from(k)).collect();
    // X: 0 at 500 → 4 at 700; A: 1 at 500, 2 at 600, 3 at 700, 4 at 800; H = 800.
    // Expected: 4·200/2 + 4·100 = 800. min(A, X): [500,550] X≤1: 25;
    // [550,600] 1: 50; [600,650] X 2..3 > 2: 2·50 = 100; [650,700] 2: 100;
    // [700,800] 3: 300. Total 575.
    assert!(close(qoe(&ones(&slow), E, R), 575.0 / 800.0));
}

#[test]
fn apdex_and_input_rate() {
    let ttfts = [Some(100.0), Some(600.0), Some(2000.0), Some(2500.0), None];
    assert!(close(apdex(ttfts, 500.0), (1.0 + 0.5 + 0.5) / 5.0));
    assert_eq!(apdex(std::iter::empty(), 500.0), None);
    assert!(close(input_tokens_per_s(Some(1000), Some(250.0)), 4000.0));
    assert_eq!(input_tokens_per_s(None, Some(250.0)), None);
    assert_eq!(input_tokens_per_s(Some(0), Some(250.0)), None);
    assert_eq!(input_tokens_per_s(Some(10), None), None);
}

#[test]
fn knobs_in_words() {
    let mut c = FeelConfig::default();
    c.set_fluidity("ttft:300,tbt:25").unwrap();
    c.set_qoe("tps:10").unwrap();
    c.set_apdex("250").unwrap();
    assert_eq!(
        (c.fluidity_ttft_ms, c.fluidity_tbt_ms, c.qoe_ttft_ms, c.qoe_tokens_per_s, c.apdex_ms),
        (300.0, 25.0, 500.0, 10.0, 250.0)
    );
    for bad in ["ttft", "ttft:x", "speed:3", "tbt:0", "tbt:-1"] {
        assert!(c.set_fluidity(bad).is_err(), "{bad}");
    }
    assert!(c.set_qoe("tps:0").unwrap_err().to_string().starts_with("--qoe tps:0: expected"));
    assert!(c.set_apdex("soon").is_err());
}
