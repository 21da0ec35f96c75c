//! The latency rows of `measure::registry` are the rows `latency-lab
//! analyze` prints (text and JSON) and the HTML report shows, for the same
//! run (the web table is checked the same way in `tests/web.rs`).

use lab_core::measure::analysis::{Analysis, AnalysisOptions};
use lab_core::measure::registry::LATENCY;
use lab_core::replay::profile::Profile;
use lab_core::share::library::EntryStatus;
use lab_core::share::report::run_report;

#[test]
fn analyze_and_the_report_show_the_same_latency_rows() {
    for spec in ["ttft=120,tpot=8,tokens=12,tool_call=search:6", "ttft=200,tpot=20,tokens=30"] {
        let profile: Profile = spec.parse().unwrap();
        let mut trace = profile.to_trace(3, 10);
        for c in trace.requests.iter_mut().flat_map(|r| r.chunks.iter_mut()) {
            c.painted_ms = Some(c.arrived_ms + 6.0);
        }
        let a = Analysis::of(&trace, &AnalysisOptions::default());
        let m = &a.metrics;
        let want: Vec<&str> = LATENCY.iter().filter(|r| r.shown_for(m)).map(|r| r.id).collect();
        let html = run_report(&trace, &a, "2026-12-05", EntryStatus::Complete);
        let in_report: Vec<&str> =
            html.split("data-metric=\"").skip(1).filter_map(|s| s.split('"').next()).collect();
        assert_eq!(in_report, want, "{spec}: the report");
        let json: serde_json::Value = serde_json::from_str(&a.to_json()).unwrap();
        let table = a.to_table();
        for r in LATENCY.iter().filter(|r| r.shown_for(m)) {
            assert!(json[r.json_key()].get("p99").is_some(), "{spec}: JSON has {}", r.json_key());
            assert!(table.lines().any(|l| l.starts_with(r.short)), "{spec}: the table has {}", r.short);
        }
        let tools = spec.contains("tool_call");
        assert_eq!(want.contains(&"tool_calls_complete"), tools, "{spec}");
        assert_eq!(table.contains("Tool calls complete"), tools, "{spec}: a row measured only sometimes");
    }
}
