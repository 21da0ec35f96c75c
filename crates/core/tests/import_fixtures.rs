//! The importers on files the tools really wrote (see
//! `tests/fixtures/import/record_tools.sh` and `gen_vllm.py`), and on broken
//! ones.

use lab_core::MetricsConfig;
use lab_core::import::{
    self, FigureComparison, Format, ImportError, Imported, ImportedRun, attach_summary, compare,
    summary_format,
};

fn fixture(name: &str) -> String {
    let path = format!("{}/../../tests/fixtures/import/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn runs(name: &str) -> Vec<ImportedRun> {
    match import::import(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}")) {
        Imported::Runs(r) => r,
        Imported::Trace(_) => panic!("{name} read as a lab trace"),
        Imported::Field(_) => panic!("{name} read as field data"),
    }
}

fn comparisons(run: &ImportedRun) -> Vec<FigureComparison> {
    compare(run, &run.metrics(&MetricsConfig::default()))
}

fn figure<'a>(c: &'a [FigureComparison], key: &str) -> &'a FigureComparison {
    c.iter().find(|f| f.key == key).unwrap_or_else(|| panic!("no figure {key}"))
}

#[test]
fn vllm_percentiles_equal_vllms_own_summary() {
    let runs = runs("vllm_bench_serve.json");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.format, Format::Vllm);
    assert_eq!(run.requests.len(), 40);
    let m = run.metrics(&MetricsConfig::default());
    assert_eq!(m.completed, 37);
    let c = compare(run, &m);
    for metric in ["ttft", "tpot", "itl", "e2el"] {
        for stat in ["p50", "p90", "p95", "p99", "mean", "median", "std"] {
            let f = figure(&c, &format!("{stat}_{metric}_ms"));
            let d = f.diff.expect("lab value");
            assert!(d.abs() <= 0.01, "{}: lab {:?} vs vLLM {} ({d})", f.key, f.lab, f.tool);
            assert!(!f.differs);
        }
    }
    for key in ["request_throughput", "output_throughput"] {
        assert!(!figure(&c, key).differs, "{:?}", figure(&c, key));
    }
    // A request of it replays: chunks at TTFT then each gap, text spread over them.
    let t = run.request_trace(0).unwrap();
    assert!(t.chunks.len() > 1 && !t.text().is_empty());
    let r = &run.requests[0];
    assert!((t.chunks[0].arrived_ms - r.sent_ms - r.ttft_ms.unwrap()).abs() < 1e-9);
}

#[test]
fn vllm_append_result_lines_are_runs() {
    let one = fixture("vllm_bench_serve.json");
    let line: serde_json::Value = serde_json::from_str(&one).unwrap();
    let text = format!("{}\n{}\n", line, line);
    let Imported::Runs(runs) = import::import(&text).unwrap() else { panic!() };
    assert_eq!(runs.len(), 2);
}

#[test]
fn guidellm_0_8_report() {
    let runs = runs("guidellm_0.8.1_benchmarks.json");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.tool_version.as_deref(), Some("0.8.1"));
    assert_eq!(run.label, "guidellm · concurrent@4");
    assert_eq!(run.concurrency, Some(4));
    assert_eq!(run.requests.len(), 28);
    let m = run.metrics(&MetricsConfig::default());
    assert_eq!((m.completed, m.failed), (24, 4));
    let c = comparisons(run);
    // TTFT: guidellm's own per-request values, its nearest-rank percentiles.
    for key in ["mean", "median", "percentiles.p50", "percentiles.p90", "percentiles.p95", "percentiles.p99"]
    {
        let f = figure(&c, &format!("time_to_first_token_ms.successful.{key}"));
        assert!(!f.differs, "{f:?}");
    }
    // Its latency ends when the response closed, after the last token: flagged, with why.
    let e2el = figure(&c, "request_latency.successful.mean");
    assert!(e2el.differs && e2el.diff.unwrap() < 0.0, "{e2el:?}");
    assert!(e2el.why.as_deref().unwrap().contains("closed"));
    // Errored requests keep what arrived before the stream was cut.
    let failed = run.requests.iter().position(|r| r.error.is_some()).unwrap();
    let t = run.request_trace(failed).unwrap();
    assert!(t.failure.unwrap().message.contains("peer closed connection"));
    assert!(!t.chunks.is_empty());
}

#[test]
fn aiperf_records_with_and_without_their_aggregate() {
    let mut runs = runs("aiperf_0.13.0_profile_export.jsonl");
    let run = &mut runs[0];
    assert_eq!(run.format, Format::AiPerf);
    assert_eq!(run.requests.len(), 28);
    assert!(run.summary.is_empty());
    let summary = fixture("aiperf_0.13.0_profile_export_aiperf.json");
    assert_eq!(summary_format(&summary), Some(Format::AiPerf));
    attach_summary(run, &summary).unwrap();
    assert_eq!(run.tool_version.as_deref(), Some("0.13.0"));
    assert_eq!(run.concurrency, Some(4));
    let m = run.metrics(&MetricsConfig::default());
    assert_eq!((m.completed, m.failed), (24, 4));
    let c = compare(run, &m);
    for metric in ["time_to_first_token", "inter_token_latency", "inter_chunk_latency", "request_latency"] {
        for stat in ["avg", "p50", "p90", "p99"] {
            let f = figure(&c, &format!("{metric}.{stat}"));
            assert!(f.diff.unwrap().abs() <= 0.01, "{f:?}");
        }
    }
    // Rates: AIPerf's window is not in the files; within 1%, and the reason is given.
    for key in ["request_throughput.avg", "output_token_throughput.avg"] {
        let f = figure(&c, key);
        assert!((f.diff.unwrap() / f.tool).abs() < 0.01, "{f:?}");
        assert!(!f.differs || f.why.as_deref().unwrap().contains("observation window"), "{f:?}");
    }
}

#[test]
fn genai_perf_raw_responses() {
    let runs = runs("genai_perf_0.0.16_profile_export.json");
    let run = &runs[0];
    assert_eq!(run.label, "GenAI-Perf · v1/chat/completions · concurrency 4");
    assert_eq!(run.requests.len(), 28);
    let m = run.metrics(&MetricsConfig::default());
    assert_eq!((m.completed, m.failed), (24, 4));
    let done = m.per_request.iter().find(|r| r.completed).unwrap();
    assert_eq!(done.output_tokens, 48, "one token per text response");
    let t = run.request_trace(0).unwrap();
    assert!(t.text().starts_with("Good question!"), "{}", t.text());
}

#[test]
fn llmperf_responses_with_their_summary() {
    let mut runs = runs("llmperf_lab_48_32_individual_responses.json");
    let run = &mut runs[0];
    assert_eq!(run.requests.len(), 28);
    assert!(run.requests.iter().all(|r| r.spread));
    let summary = fixture("llmperf_lab_48_32_summary.json");
    assert!(matches!(import::import(&summary), Err(ImportError::SummaryOnly { .. })));
    attach_summary(run, &summary).unwrap();
    assert_eq!(run.concurrency, Some(4));
    let m = run.metrics(&MetricsConfig::default());
    assert_eq!(m.completed, 24);
    let c = compare(run, &m);
    for key in [
        "results_ttft_s_quantiles_p50",
        "results_ttft_s_quantiles_p99",
        "results_end_to_end_latency_s_quantiles_p90",
        "results_end_to_end_latency_s_mean",
    ] {
        assert!(!figure(&c, key).differs, "{:?}", figure(&c, key));
    }
    // A summary of another tool is refused with a reason.
    let aiperf = fixture("aiperf_0.13.0_profile_export_aiperf.json");
    assert!(attach_summary(run, &aiperf).unwrap_err().to_string().contains("cannot describe"));
}

#[test]
fn broken_truncated_and_unknown_files_say_what_was_expected() {
    let vllm = fixture("vllm_bench_serve.json");
    let cut = &vllm[..vllm.len() / 2];
    let e = import::import(cut).unwrap_err();
    assert!(matches!(e, ImportError::Broken { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("vLLM") && msg.contains("ends early") && msg.contains("line"), "{msg}");

    let e = import::import(r#"{"name": "something else", "values": [1, 2]}"#).unwrap_err().to_string();
    assert!(e.contains("expected") && e.contains("guidellm") && e.contains("AIPerf"), "{e}");
    assert!(matches!(import::import(""), Err(ImportError::Empty)));
    assert_eq!(import::import_bytes(&[0x89, b'P', b'N', b'G', 0xff]), Err(ImportError::NotText));

    let aiperf = fixture("aiperf_0.13.0_profile_export.jsonl");
    let mut lines: Vec<&str> = aiperf.lines().collect();
    lines[3] = "{\"metadata\": {\"x_request_id\": ";
    let e = import::import(&lines.join("\n")).unwrap_err().to_string();
    assert!(e.contains("line 4"), "{e}");

    let mut no_detail: serde_json::Value = serde_json::from_str(&vllm).unwrap();
    for k in [
        "ttfts",
        "itls",
        "generated_texts",
        "errors",
        "input_lens",
        "output_lens",
        "start_times",
        "latencies",
    ] {
        no_detail.as_object_mut().unwrap().remove(k);
    }
    let e = import::import(&no_detail.to_string()).unwrap_err().to_string();
    assert!(e.contains("--save-detailed"), "{e}");
}

#[test]
fn no_cut_of_any_fixture_panics() {
    for name in [
        "vllm_bench_serve.json",
        "guidellm_0.8.1_benchmarks.json",
        "aiperf_0.13.0_profile_export.jsonl",
        "genai_perf_0.0.16_profile_export.json",
        "llmperf_lab_48_32_individual_responses.json",
    ] {
        let text = fixture(name);
        let step = (text.len() / 97).max(1);
        for end in (0..text.len()).step_by(step) {
            if text.is_char_boundary(end) {
                let _ = import::import(&text[..end]);
            }
        }
    }
}

#[test]
fn multi_turn_runs_keep_their_turns_and_single_turn_runs_do_not() {
    use lab_core::measure::turns;
    // The recorded runs are single-turn: every turn_index is 0, which says nothing.
    for name in ["aiperf_0.13.0_profile_export.jsonl", "guidellm_0.8.1_benchmarks.json"] {
        assert!(runs(name)[0].requests.iter().all(|r| r.turn.is_none()), "{name}");
    }
    // The same AIPerf records as conversations of two turns.
    let text = fixture("aiperf_0.13.0_profile_export.jsonl");
    let mut k = 0;
    let two: Vec<String> = text
        .lines()
        .map(|l| {
            k += 1;
            l.replace("\"turn_index\":0", &format!("\"turn_index\":{}", k % 2))
        })
        .collect();
    let Imported::Runs(r) = import::import(&two.join("\n")).unwrap() else { panic!("not a run") };
    let run = &r[0];
    assert!(run.requests.iter().any(|q| q.turn == Some(1)));
    let m = run.metrics(&MetricsConfig::default());
    let t = turns::turns(&run.to_trace(), &m).expect("turns");
    assert_eq!(t.rows.iter().map(|r| r.turn).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(t.rows.iter().map(|r| r.requests).sum::<usize>(), m.completed);
}

/// The Import view reads field data as it reads everything else: each
/// tracing system's file (tests/fixtures/field, written by make_otlp.py)
/// becomes one run whose card says what its spans lack; a broken one is
/// named as what it looked like.
#[test]
fn field_data_files_import_as_runs_that_say_what_they_lack() {
    use lab_core::import::service::{FromWorker, ImportService, ToWorker};
    for (name, lacks_paint) in
        [("collector_file_exporter.jsonl", true), ("tempo_trace.json", false), ("jaeger_export.json", false)]
    {
        let path = format!("{}/../../tests/fixtures/field/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut service = ImportService::new();
        let out = service.handle(
            ToWorker::Import { job: 1, name: name.into(), slos: None },
            Some(&bytes),
            &mut |_, _| {},
        );
        let Some(FromWorker::Imported { runs, .. }) = out.first() else { panic!("{name}: {out:?}") };
        assert_eq!(runs.len(), 1, "{name}");
        let digest = &runs[0].1;
        assert!(!digest.rows.is_empty(), "{name}: no requests");
        assert_eq!(
            digest.notes.iter().any(|n| n.contains("no paints")),
            lacks_paint,
            "{name}: {:?}",
            digest.notes
        );
        let text = serde_json::to_string(&out).unwrap_or_default();
        assert!(!text.contains("charged twice"), "{name}: the prompt came through");
    }
    let mut service = ImportService::new();
    let out = service.handle(
        ToWorker::Import { job: 2, name: "cut.json".into(), slos: None },
        Some(br#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "#),
        &mut |_, _| {},
    );
    let Some(FromWorker::Failed { message, .. }) = out.first() else { panic!("{out:?}") };
    assert!(message.contains("OpenTelemetry trace file"), "{message}");
}
