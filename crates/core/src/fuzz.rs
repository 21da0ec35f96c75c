//! Fuzz harnesses: each takes arbitrary bytes, drives one input surface of
//! the lab (SSE parser, OpenAI chunk decoder, trace loader, the importers,
//! share links and study/bundle files) and everything computed downstream
//! of a successful parse, and panics only when a property breaks. The
//! libFuzzer targets in `fuzz/` call them (`./lab fuzz`), and
//! `tests/fuzz_regressions.rs` replays every input the fuzzer ever found
//! (`fuzz/regressions/`), so a fixed crash stays fixed.
//!
//! Properties:
//! - **sse**: the events are the same however the input is split (the
//!   split points come from the input's first two bytes).
//! - everything else: no panic, and what loads also analyses, summarizes
//!   and exports.

use crate::import::{self, Format};
use crate::measure::analysis::{Analysis, AnalysisOptions};
use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::share::library::Bundle;
use crate::share::link::Shared;
use crate::stream::sse::SseParser;
use crate::study::Study;
use crate::study::results::{StudyResults, summarize, to_csv};
use crate::trace::Trace;

/// The fuzzed surfaces, by target name.
pub const TARGETS: [&str; 5] = ["sse", "openai", "trace", "import", "files"];

/// Runs the harness of `target` on `data` (unknown targets do nothing).
pub fn run(target: &str, data: &[u8]) {
    match target {
        "sse" => sse(data),
        "openai" => openai(data),
        "trace" => trace(data),
        "import" => import_any(data),
        "files" => files(data),
        _ => {}
    }
}

/// SSE: split-invariance of the parsed events, then decoding of each.
pub fn sse(data: &[u8]) {
    let (a, b, body) = match data {
        [a, b, rest @ ..] => (*a as usize, *b as usize, rest),
        _ => (0, 0, data),
    };
    let mut whole = SseParser::new();
    let expected = whole.feed(body);
    let end_whole = whole.finish();
    let mut split = SseParser::new();
    let mut got = Vec::new();
    let n = body.len();
    let (i, j) =
        if n == 0 { (0, 0) } else { ((a % (n + 1)).min(b % (n + 1)), (a % (n + 1)).max(b % (n + 1))) };
    for piece in [&body[..i], &body[i..j], &body[j..]] {
        got.extend(split.feed(piece));
    }
    let end_split = split.finish();
    assert_eq!(expected, got, "events differ when split at {i} and {j}");
    assert_eq!(end_whole, end_split, "end state differs when split");
    for e in &expected {
        let _ = crate::stream::openai::decode(&e.data);
    }
}

/// OpenAI chunk decoding and error bodies.
pub fn openai(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = crate::stream::openai::decode(&text);
    let _ = crate::stream::openai::error_from_body(&text);
    let _ = crate::stream::openai::snippet(&text);
}

/// A trace file: load, analyse, report.
pub fn trace(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(t) = Trace::from_json(&text) {
        let opts = AnalysisOptions { slos: "ttft:200,tpot:15,e2el:3000".parse().ok(), ..Default::default() };
        let a = Analysis::of(&t, &opts);
        let _ = a.to_json();
        let _ = a.to_table();
        let _ =
            crate::share::report::run_report(&t, &a, "fuzz", crate::share::library::EntryStatus::Complete);
        for r in &t.requests {
            let _ = crate::chart::plot::token_timeline(r, &MetricsConfig::default());
        }
        assert!(Trace::from_json(&t.to_json()).is_ok(), "a loaded trace must load again after saving");
    }
}

/// Every importer (the first byte picks one; detection runs too), the
/// field-data reader, and the metrics of what they read.
pub fn import_any(data: &[u8]) {
    let (pick, body) = data.split_first().map_or((0, data), |(p, r)| (*p, r));
    let text = String::from_utf8_lossy(body);
    let formats = [Format::Vllm, Format::GuideLlm, Format::AiPerf, Format::GenAiPerf, Format::LlmPerf];
    let format = formats[usize::from(pick) % formats.len()];
    let cfg = MetricsConfig::default();
    if let Ok(runs) = import::import_as(format, &text) {
        for run in &runs {
            let m: RunMetrics = run.metrics(&cfg);
            let _ = run.itl_samples(&m);
            let _ = run.to_trace();
        }
    }
    let _ = import::import(&text);
    let _ = import::summary_format(&text);
    // Field data (OpenTelemetry spans): what reads also measures.
    if let Ok(run) = crate::field::FieldRun::read(&text) {
        let _ = RunMetrics::of(&run.trace, &cfg);
        let _ = run.trace.to_json();
    }
}

/// Share links, study files, study results and library bundles.
pub fn files(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = Shared::decode(&text);
    let _ = Bundle::from_json(&text);
    if let Ok(study) = Study::from_json(&text) {
        let _ = Shared::Study(Box::new(study.clone())).encode();
        for p in 0..3 {
            let _ = crate::study::plan::plan(&study, p);
        }
        if let Ok(results) = StudyResults::from_json(&text) {
            let _ = summarize(&study, &results);
        }
    }
    if let Ok(results) = StudyResults::from_json(&text) {
        let _ = to_csv(&results);
        let _ = summarize(&Study::example(), &results);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harnesses_accept_their_seeds() {
        let sse_input = b"\x05\x11data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n";
        for t in TARGETS {
            run(t, sse_input);
            run(t, b"");
            run(t, b"{\"schema_version\":1,\"requests\":[]}");
        }
    }
}
