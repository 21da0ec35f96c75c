//! Every workload fixture (written by tests/fixtures/workload/make_workloads.py
//! from the formats' field definitions) is detected as its format and read
//! row by row without a refusal; the summaries hold what the script wrote.

use std::path::PathBuf;

use lab_core::workload::read::{LineReader, detect, lab_trace, sharegpt};
use lab_core::workload::summary::Summary;
use lab_core::workload::{Format, Request};

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn read(name: &str) -> (Format, Vec<Request>) {
    let text = fixture(name);
    let format = detect(&text).unwrap_or_else(|| panic!("{name} not detected"));
    let rows = match format {
        Format::ShareGpt => {
            let mut rows = Vec::new();
            sharegpt(&mut serde_json::Deserializer::from_str(&text), None, &mut |r| rows.push(r)).unwrap();
            rows
        }
        Format::LabTrace => lab_trace(&text).unwrap(),
        f => {
            let mut r = LineReader::new(f);
            text.lines().filter_map(|l| r.line(l).unwrap_or_else(|e| panic!("{name}: {e}"))).collect()
        }
    };
    (format, rows)
}

fn summary(format: Format, rows: &[Request]) -> Summary {
    let mut s = Summary::new(format);
    rows.iter().for_each(|r| s.add(r));
    s
}

#[test]
fn each_fixture_is_its_format_and_reads_whole() {
    let cases = [
        ("workload/mooncake_trace.jsonl", Format::Mooncake, 200),
        ("workload/bailian_trace.jsonl", Format::Bailian, 0),
        ("workload/azure_conv_2023.csv", Format::Azure, 100),
        ("workload/azure_code_2024.csv", Format::Azure, 80),
        ("workload/burstgpt.csv", Format::BurstGpt, 120),
        ("workload/sharegpt.json", Format::ShareGpt, 0),
        ("hand.trace.json", Format::LabTrace, 0),
    ];
    for (name, format, rows) in cases {
        let (found, read) = read(name);
        assert_eq!(found, format, "{name}");
        assert!(!read.is_empty(), "{name}");
        if rows > 0 {
            assert_eq!(read.len(), rows, "{name}");
        }
    }
}

#[test]
fn summaries_hold_what_the_script_wrote() {
    let (f, rows) = read("workload/mooncake_trace.jsonl");
    let s = summary(f, &rows);
    // 70% of the requests start with one of 4 shared system prompts.
    let reuse = s.prefix_reuse().unwrap();
    assert!(reuse > 0.1 && reuse < 0.6, "{reuse}");
    assert!(s.burstiness().unwrap() > 1.5, "bursty arrivals: {:?}", s.burstiness());
    assert!(s.input.percentile(50.0).unwrap() > 512);
    let (f, rows) = read("workload/bailian_trace.jsonl");
    let s = summary(f, &rows);
    assert_eq!(s.sessions(), 60, "60 conversations");
    let (mean, most) = s.turns().unwrap();
    assert!(mean > 1.0 && most <= 4, "{mean} {most}");
    assert!(s.prefix_reuse().unwrap() > 0.2, "each turn starts with the previous one's blocks");
    let (f, rows) = read("workload/burstgpt.csv");
    let s = summary(f, &rows);
    assert!(s.zero_output > 0, "failed requests have no response tokens");
    let (f, rows) = read("workload/azure_conv_2023.csv");
    let s = summary(f, &rows);
    let rate = s.mean_rate().unwrap();
    assert!(rate > 0.8 && rate < 1.8, "about one request every 0.8 s: {rate}");
    let (f, rows) = read("workload/sharegpt.json");
    let s = summary(f, &rows);
    assert_eq!(s.sessions(), 20);
    assert_eq!(s.approximate, s.requests, "counted without the model's tokenizer: said so");
}
