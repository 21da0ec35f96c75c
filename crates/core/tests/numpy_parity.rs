//! Bit-for-bit parity with numpy (the fixture is produced by numpy itself:
//! `python3 crates/core/tests/fixtures/gen_numpy_stats.py`).

use lab_core::measure::stats::Samples;
use serde_json::Value;

#[test]
fn mean_std_median_percentiles_match_numpy_exactly() {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/numpy_stats.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 50);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let values: Vec<f64> =
            case["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        let s = Samples::new(values).unwrap().summary().unwrap();
        let want = |k: &str| case[k].as_f64().unwrap();
        assert_eq!(s.mean.to_bits(), want("mean").to_bits(), "{name} mean {} vs {}", s.mean, want("mean"));
        assert_eq!(s.std.to_bits(), want("std").to_bits(), "{name} std {} vs {}", s.std, want("std"));
        assert_eq!(s.median.to_bits(), want("median").to_bits(), "{name} median");
        let p = &case["percentiles"];
        for (key, got) in [("50", s.p50), ("90", s.p90), ("95", s.p95), ("99", s.p99)] {
            let w = p[key].as_f64().unwrap();
            assert_eq!(got.to_bits(), w.to_bits(), "{name} p{key}: {got} vs {w}");
        }
    }
}
