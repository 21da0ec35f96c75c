//! `latency-lab analyze` end to end: output shape, figures, exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hand.trace.json")
}

/// A fresh directory for this test's files (`tag` keeps tests apart).
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lab-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn analyze(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latency-lab")).arg("analyze").args(args).output().unwrap()
}

fn json(args: &[&str]) -> Value {
    let out = analyze(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_has_the_documented_shape_and_hand_computed_values() {
    let f = fixture();
    let v = json(&[f.to_str().unwrap(), "--json", "--slo", "ttft:200,tpot:30"]);
    assert_eq!(v["requests"], 6);
    assert_eq!(v["completed"], 4);
    for m in ["ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"] {
        for k in ["mean", "median", "std", "p50", "p90", "p95", "p99"] {
            assert!(v[m][k].is_f64(), "{m}.{k} missing");
        }
    }
    assert_eq!(v["ttft_ms"]["mean"], 162.5);
    assert_eq!(v["ttft_ms"]["p90"], 270.0);
    assert!((v["itl_ms"]["p99"].as_f64().unwrap() - 378.4).abs() < 1e-9);
    assert!((v["output_tokens_per_s"].as_f64().unwrap() - 14.0 / 5.15).abs() < 1e-9);
    assert!((v["goodput"]["ratio"].as_f64().unwrap() - 2.0 / 6.0).abs() < 1e-12);
    let scores = v["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 5);
    for s in scores {
        let score = s["score"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&score));
        assert!(!s["breakdown"].as_array().unwrap().is_empty());
    }
    assert!(v.get("per_request").is_none());
}

#[test]
fn one_scenario_per_request_and_no_goodput_without_slos() {
    let f = fixture();
    let v = json(&[f.to_str().unwrap(), "--json", "--scenario", "code", "--per-request"]);
    assert_eq!(v["scores"].as_array().unwrap().len(), 1);
    assert_eq!(v["scores"][0]["id"], "code");
    assert!(v["goodput"].is_null());
    assert_eq!(v["per_request"].as_array().unwrap().len(), 6);
    assert_eq!(v["per_request"][3]["stalls"][0]["duration_ms"], 400.0);
}

#[test]
fn scenario_file_with_edited_weights() {
    let dir = scratch("scenario");
    let mut s = lab_core::measure::score::preset("code").unwrap();
    s.targets[0].weight = 0.0;
    s.targets[2].weight = 0.0;
    let path = dir.join("scenario.json");
    std::fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
    let f = fixture();
    let v = json(&[f.to_str().unwrap(), "--json", "--scenario-file", path.to_str().unwrap()]);
    // Only E2EL P95 = 461.5 ms counts: log-interpolated between 300 (100) and 1000 (50).
    let expected = 100.0 - 50.0 * ((461.5f64 / 300.0).ln() / (1000.0f64 / 300.0).ln());
    assert!((v["scores"][0]["score"].as_f64().unwrap() - expected).abs() < 1e-9);
    std::fs::write(&path, "{\"id\": 3}").unwrap();
    let out = analyze(&[f.to_str().unwrap(), "--scenario-file", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a scenario definition"));
}

#[test]
fn table_is_readable() {
    let f = fixture();
    let out = analyze(&[f.to_str().unwrap(), "--slo", "ttft:200"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Requests: 6 (4 completed, 2 failed: 1 http, 1 truncated)"), "{text}");
    assert!(text.contains("TTFT"));
    assert!(text.contains("Goodput (ttft:200)"));
    assert!(text.contains("Interactive chat:"));
}

#[test]
fn an_early_paint_stamp_is_kept_and_flagged() {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let clean = json(&[fixture().to_str().unwrap(), "--json"]);
    assert_eq!(clean["early_stamps"]["paints"], 0);
    // Request A's second chunk painted 3 ms before it arrived.
    let early = text.replacen(r#""painted_ms": 124"#, r#""painted_ms": 117"#, 1);
    assert_ne!(early, text);
    let f = scratch("early").join("early.trace.json");
    std::fs::write(&f, early).unwrap();
    let v = json(&[f.to_str().unwrap(), "--json"]);
    assert_eq!(v["early_stamps"]["paints"], 1);
    assert!((v["early_stamps"]["paint_worst_ms"].as_f64().unwrap() - 3.0).abs() < 1e-9);
    // Kept as measured: the lag is negative, not 0.
    assert!(v["paint_lag_ms"]["min"].as_f64().unwrap() < -2.9, "{}", v["paint_lag_ms"]);
    let out = analyze(&[f.to_str().unwrap()]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table
            .contains("Early stamps: 1 paint stamp(s) earlier than their chunk's arrival (by up to 3.00 ms)"),
        "{table}"
    );
    let plain = String::from_utf8(analyze(&[fixture().to_str().unwrap()]).stdout).unwrap();
    assert!(!plain.contains("Early stamps"));
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let dir = scratch("bad");
    let cases: [(&str, &[u8], &str); 6] = [
        (
            "cut.json",
            b"{\"schema_version\": 1, \"requests\": [",
            "not valid JSON: the text ends early (cut off?): a list […] is not closed (line 1, column 35)",
        ),
        ("foreign.json", b"{\"hello\": [0.1]}", "expected a Latency Lab trace, a vLLM"),
        (
            "undetailed.json",
            b"{\"backend\": \"vllm\", \"num_prompts\": 3, \"mean_ttft_ms\": 1}",
            "--save-detailed",
        ),
        (
            "cut-vllm.json",
            b"{\"backend\": \"vllm\", \"ttfts\": [0.1, 0.",
            "vLLM bench serve result but cannot be read: the text ends early",
        ),
        ("binary.json", b"\xff\xfe\x00garbage", "not UTF-8 text"),
        (
            "backwards.json",
            b"{\"schema_version\":1,\"requests\":[{\"sent_ms\":10,\"headers_ms\":5}]}",
            "request 0: headers_ms (5)",
        ),
    ];
    for (name, body, want) in cases {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        let out = analyze(&[p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let f = fixture();
    let missing = analyze(&["/nonexistent/trace.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /nonexistent/trace.json"));
    let bad_slo = analyze(&[f.to_str().unwrap(), "--slo", "ttft=fast"]);
    assert_eq!(bad_slo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_slo.stderr).contains("--slo"));
    let bad_scenario = analyze(&[f.to_str().unwrap(), "--scenario", "gaming"]);
    assert_eq!(bad_scenario.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_scenario.stderr).contains("unknown scenario \"gaming\""));
}

fn import_fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/import")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn vllm_result_recomputed_equals_its_summary() {
    let v = json(&[&import_fixture("vllm_bench_serve.json"), "--json", "--slo", "ttft:300,tpot:40"]);
    assert_eq!(v["requests"], 40);
    assert_eq!(v["completed"], 37);
    assert_eq!(v["source"]["format"], "vllm");
    let rows = v["tool_summary"].as_array().unwrap();
    assert!(rows.len() >= 28, "{}", rows.len());
    for r in rows {
        assert_eq!(r["differs"], false, "{r}");
        assert!(r["diff"].as_f64().unwrap().abs() <= 0.01, "{r}");
    }
    // vLLM's goodput under the same SLOs.
    let vllm: Value =
        serde_json::from_str(&std::fs::read_to_string(import_fixture("vllm_bench_serve.json")).unwrap())
            .unwrap();
    let duration_s = vllm["duration"].as_f64().unwrap();
    let lab = v["goodput"]["ratio"].as_f64().unwrap() * 40.0 / duration_s;
    assert!(
        (lab - vllm["request_goodput"].as_f64().unwrap()).abs() < 1e-9,
        "{lab} vs {}",
        vllm["request_goodput"]
    );
}

#[test]
fn aggregate_files_next_to_the_records_are_compared() {
    let v = json(&[&import_fixture("aiperf_0.13.0_profile_export.jsonl"), "--json"]);
    assert_eq!(v["source"]["tool_version"], "0.13.0");
    let ttft =
        v["tool_summary"].as_array().unwrap().iter().find(|r| r["key"] == "time_to_first_token.p99").unwrap();
    assert_eq!(ttft["differs"], false);
    let table = analyze(&[&import_fixture("llmperf_lab_48_32_individual_responses.json")]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("The tool's own summary beside the lab's recomputation"), "{text}");
    assert!(text.contains("P99 TTFT"), "{text}");
    let alone = analyze(&[&import_fixture("llmperf_lab_48_32_summary.json")]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("import the *_individual_responses.json"));
}

#[test]
fn several_runs_and_run_selection() {
    let dir = scratch("runs");
    let one: Value =
        serde_json::from_str(&std::fs::read_to_string(import_fixture("vllm_bench_serve.json")).unwrap())
            .unwrap();
    let p = dir.join("appended.json");
    std::fs::write(&p, format!("{one}\n{one}\n")).unwrap();
    let v = json(&[p.to_str().unwrap(), "--json"]);
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    let second = json(&[p.to_str().unwrap(), "--json", "--run", "2"]);
    assert_eq!(second["requests"], 40);
    let out = analyze(&[p.to_str().unwrap(), "--run", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds 2 run(s)"));
}

#[test]
fn tool_call_figures_in_json_and_table() {
    let p: lab_core::replay::profile::Profile =
        "ttft=250,tpot=10,jitter=constant,tokens=5,tool_call=search:20".parse().unwrap();
    let dir = scratch("tools");
    let path = dir.join("agent.trace.json");
    std::fs::write(&path, p.to_trace(4, 500).to_json()).unwrap();
    let v = json(&[path.to_str().unwrap(), "--json", "--per-request"]);
    assert_eq!(v["completed"], 4);
    assert_eq!(v["requests_with_tool_calls"], 4);
    // 5 text tokens, then the call: 250 + 5 × 10 ms; complete after its 20 argument pieces.
    assert!((v["time_to_first_tool_call_ms"]["median"].as_f64().unwrap() - 300.0).abs() < 1e-6);
    assert!((v["tool_calls_complete_ms"]["p95"].as_f64().unwrap() - 500.0).abs() < 1e-6);
    assert_eq!(v["per_request"][0]["tool_calls"], 1);
    let rag = v["scores"].as_array().unwrap().iter().find(|s| s["id"] == "rag").unwrap();
    assert!(rag["breakdown"].as_array().unwrap().iter().any(|b| b["metric"] == "tool_calls_complete"));
    let table = String::from_utf8(analyze(&[path.to_str().unwrap()]).stdout).unwrap();
    assert!(table.contains("First tool call"), "{table}");
    // A run without tool calls has neither figure.
    let plain = json(&[fixture().to_str().unwrap(), "--json"]);
    assert!(plain.get("time_to_first_tool_call_ms").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn how_it_felt_keys_defaults_and_options() {
    // One request of a slow reader's nightmare: first token at 800 ms, then 10 tokens 100 ms apart.
    let p: lab_core::replay::profile::Profile =
        "ttft=800,tpot=100,jitter=constant,tokens=10".parse().unwrap();
    let dir = scratch("feel");
    let path = dir.join("slow.trace.json");
    std::fs::write(&path, p.to_trace(2, 400).to_json()).unwrap();
    let file = path.to_str().unwrap();
    let v = json(&[file, "--json"]);
    for k in ["input_tokens_per_s", "fluidity_index", "qoe", "time_to_first_answer_ms"] {
        for s in ["mean", "median", "std", "p50", "p90", "p95", "p99", "min", "max", "count"] {
            assert!(!v[k][s].is_null(), "{k}.{s} missing");
        }
    }
    // Defaults: fluidity 500 ms + 50 ms/token; the first token misses 500, every later one
    // misses its re-based deadline (100 ms gaps > 50 ms): 0 of 10.
    assert_eq!(v["fluidity_index"]["median"], 0.0);
    assert_eq!(v["feel"]["fluidity_ttft_ms"], 500.0);
    assert_eq!(v["apdex_ttft"], 0.5, "800 ms is tolerating at T = 500 ms");
    assert!((v["input_tokens_per_s"]["median"].as_f64().unwrap() - 400.0 / 0.8).abs() < 1e-9);
    assert!(v["system_input_tokens_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["time_to_first_answer_ms"]["median"], 800.0);
    let q = v["qoe"]["median"].as_f64().unwrap();
    assert!(q > 0.0 && q < 1.0, "late and slower than the reader: {q}");
    // Options move the figures.
    let lenient = json(&[
        file,
        "--json",
        "--fluidity",
        "ttft:1000,tbt:150",
        "--qoe",
        "ttft:1000,tps:5",
        "--apdex",
        "1000",
    ]);
    assert_eq!(lenient["fluidity_index"]["median"], 1.0);
    assert_eq!(lenient["apdex_ttft"], 1.0);
    assert!(lenient["qoe"]["median"].as_f64().unwrap() > q);
    let table = String::from_utf8(analyze(&[file, "--apdex", "1000"]).stdout).unwrap();
    assert!(table.contains("Apdex (TTFT, T = 1000 ms): 1.00") && table.contains("Fluidity-index"), "{table}");
    let bad = analyze(&[file, "--qoe", "tps:0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--qoe tps:0: expected ttft:MS,tps:N"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trace of where latency comes from: a prompt sweep (50 ms + 0.2 ms per
/// token), a conversation in two series, and requests sent on a schedule.
fn origins_trace() -> PathBuf {
    let chunk = |t: f64| serde_json::json!({"arrived_ms": t, "text": "a", "tokens": 1});
    let mut reqs = Vec::new();
    for (i, p) in [64u64, 256, 1024, 4096].iter().enumerate() {
        let sent = i as f64 * 2000.0;
        let ttft = 50.0 + 0.2 * *p as f64;
        reqs.push(serde_json::json!({"sent_ms": sent, "scheduled_ms": sent - 1.0,
            "usage": {"prompt_tokens": p, "completion_tokens": 2},
            "chunks": [chunk(sent + ttft), chunk(sent + ttft + 10.0)], "end_ms": sent + ttft + 10.0}));
    }
    for (group, ttfts) in [("stable prefix", [100.0, 60.0, 62.0]), ("changed prefix", [100.0, 140.0, 180.0])]
    {
        for (turn, ttft) in ttfts.iter().enumerate() {
            let sent = 10_000.0 + turn as f64 * 1000.0;
            reqs.push(serde_json::json!({"sent_ms": sent, "turn": turn, "group": group,
                "usage": {"prompt_tokens": 100 * (turn + 1), "completion_tokens": 1},
                "chunks": [chunk(sent + ttft)], "end_ms": sent + ttft}));
        }
    }
    let trace =
        serde_json::json!({"schema_version": 1, "format": "latency-lab/trace", "meta": {}, "requests": reqs});
    let path = scratch("origins").join("origins.trace.json");
    std::fs::write(&path, trace.to_string()).unwrap();
    path
}

#[test]
fn prefill_turns_and_rate_come_out_when_the_trace_has_them() {
    let f = origins_trace();
    let v = json(&[f.to_str().unwrap(), "--json"]);
    let fit = &v["prefill_fit"];
    assert!(fit["tokens_per_s"].as_f64().unwrap() > 0.0, "{fit}");
    let turns = &v["turns"];
    assert_eq!(turns["rows"].as_array().unwrap().len(), 6);
    assert_eq!(turns["saving"]["stable_ms"], 61.0);
    assert_eq!(turns["saving"]["changed_ms"], 160.0);
    let rate = &v["rate_run"];
    assert_eq!(rate["requests"], 4);
    assert!((rate["client_delay_ms"]["p99"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    let out = analyze(&[f.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    for part in
        ["Prefill", "Conversation turns", "prefix caching saves about 99 ms", "Request rate", "offered/s"]
    {
        assert!(text.contains(part), "{part} missing in:\n{text}");
    }
    // A plain run has none of them.
    let plain = json(&[fixture().to_str().unwrap(), "--json"]);
    assert!(plain.get("turns").is_none() && plain.get("rate_run").is_none());
    let _ = std::fs::remove_dir_all(f.parent().unwrap());
}

fn workload(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/workload")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn workloads_are_summarised_from_every_format() {
    for (name, format, requests) in [
        ("mooncake_trace.jsonl", "Mooncake (FAST'25)", 200),
        ("bailian_trace.jsonl", "Alibaba Bailian", 160),
        ("azure_conv_2023.csv", "Azure LLM inference", 100),
        ("azure_code_2024.csv", "Azure LLM inference", 80),
        ("burstgpt.csv", "BurstGPT", 120),
        ("sharegpt.json", "ShareGPT", 33),
    ] {
        let v = json(&[&workload(name), "--json"]);
        assert_eq!(v["workload"]["format"], format, "{name}");
        assert_eq!(v["workload"]["requests"], requests, "{name}");
        assert!(v["workload"]["input_tokens"]["p50"].as_u64().is_some_and(|p| p > 0), "{name}");
    }
    let m = json(&[&workload("mooncake_trace.jsonl"), "--json"]);
    assert!(m["workload"]["prefix_reuse"].as_f64().is_some_and(|r| r > 0.1));
    assert!(m["workload"]["rate_over_time"].as_array().is_some_and(|s| !s.is_empty()));
    let g = json(&[&workload("sharegpt.json"), "--json"]);
    assert_eq!(g["workload"]["approximate_counts"], 0, "counted with the tokenizer natively");
    assert!(g["workload"]["mean_rate"].is_null(), "ShareGPT has no send times");
    // A lab trace is analysed as a run, or summarised as a workload on request.
    let trace = fixture();
    assert!(json(&[trace.to_str().unwrap(), "--json"])["ttft_ms"].is_object());
    assert_eq!(json(&[trace.to_str().unwrap(), "--json", "--workload"])["workload"]["requests"], 6);
    let table = analyze(&[&workload("bailian_trace.jsonl")]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("sessions") && text.contains("prefix reuse") && text.contains("request rate over time"),
        "{text}"
    );
}

#[test]
fn a_bad_workload_row_exits_2_naming_its_line() {
    let dir = scratch("workload");
    let f = dir.join("broken.csv");
    std::fs::write(&f, "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,ChatGPT,10,5,15,API log\n2,ChatGPT,ten,5,15,API log\n").unwrap();
    let out = analyze(&[f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.csv: line 3: Request tokens: a whole number of tokens"), "{err}");
    assert!(out.stdout.is_empty(), "nothing half-read is shown");
}

#[test]
fn a_probe_run_prints_its_windows_and_breaking_point() {
    use lab_core::replay::profile::Profile;
    use lab_core::trace::LoadWindow;
    let mut trace = lab_core::Trace::default();
    for (k, ttft) in [120.0, 2500.0].into_iter().enumerate() {
        let from = k as f64 * 10_000.0;
        let mut probes = Profile::simple("p", ttft, 10.0, 20).to_trace(3, 1).requests;
        for (i, r) in probes.iter_mut().enumerate() {
            let shift = from + i as f64 * 3000.0 - r.sent_ms;
            r.sent_ms += shift;
            for t in [&mut r.headers_ms, &mut r.end_ms].into_iter().flatten() {
                *t += shift;
            }
            r.chunks.iter_mut().for_each(|c| c.arrived_ms += shift);
        }
        trace.requests.extend(probes);
        trace.meta.load.push(LoadWindow {
            label: format!("{}×", k + 1),
            speed: Some((k + 1) as f64),
            from_ms: from,
            to_ms: from + 10_000.0,
            offered_per_s: Some(5.0 * (k + 1) as f64),
            admitted: 2,
            queued_ms: vec![0.0, ttft],
            ..LoadWindow::default()
        });
    }
    let path = scratch("probe").join("probe.trace.json");
    std::fs::write(&path, trace.to_json()).unwrap();
    let out = analyze(&[path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Felt while loaded (judged as Interactive chat):"), "{text}");
    assert!(text.contains("falls below its pass line (75) at 2.0× the trace"), "{text}");
    let v = json(&[path.to_str().unwrap(), "--json", "--scenario", "code"]);
    assert_eq!(v["probe"]["windows"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["probe"]["scenario"], "Code completion");
    assert_eq!(v["requests"], 6, "the run's own analysis is still there");
}

#[test]
fn a_probe_run_against_another_engine_takes_the_load_from_its_own_trace() {
    use lab_core::replay::profile::Profile;
    use lab_core::trace::LoadWindow;
    // Probes every 2 s for 20 s in two windows; the page opened at 10:00:00.
    let mut probe = Profile::simple("p", 150.0, 10.0, 20).to_trace(10, 1);
    for (i, r) in probe.requests.iter_mut().enumerate() {
        let shift = 1000.0 + i as f64 * 2000.0 - r.sent_ms;
        r.sent_ms += shift;
        for t in [&mut r.headers_ms, &mut r.end_ms].into_iter().flatten() {
            *t += shift;
        }
        r.chunks.iter_mut().for_each(|c| c.arrived_ms += shift);
    }
    probe.meta.clock_epoch_ms = Some(1_796_508_000_000.0);
    probe.meta.load = (0..2)
        .map(|k| LoadWindow {
            label: format!("{}–{} s", k * 10, k * 10 + 10),
            from_ms: k as f64 * 10_000.0,
            to_ms: (k + 1) as f64 * 10_000.0,
            ..LoadWindow::default()
        })
        .collect();
    // The runner started 4 s later: 12 requests in the first window (TTFT
    // 90), 30 in the second (TTFT 700).
    let mut load = Profile::simple("l", 90.0, 10.0, 5).to_trace(12, 1);
    let slow = Profile::simple("l", 700.0, 10.0, 5).to_trace(30, 1);
    load.requests.extend(slow.requests);
    for (i, r) in load.requests.iter_mut().enumerate() {
        let at = if i < 12 { i as f64 * 500.0 } else { 6_000.0 + (i - 12) as f64 * 300.0 };
        let shift = at - r.sent_ms;
        r.sent_ms += shift;
        r.scheduled_ms = Some(at);
        for t in [&mut r.headers_ms, &mut r.end_ms].into_iter().flatten() {
            *t += shift;
        }
        r.chunks.iter_mut().for_each(|c| c.arrived_ms += shift);
    }
    load.meta.clock_epoch_ms = Some(1_796_508_004_000.0);
    let dir = scratch("probe-load");
    let (p, l) = (dir.join("probe.trace.json"), dir.join("run.trace.json"));
    std::fs::write(&p, probe.to_json()).unwrap();
    std::fs::write(&l, load.to_json()).unwrap();
    let out = analyze(&[p.to_str().unwrap(), "--load", l.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("In 0–10 s (1.2 req/s offered)"), "{text}");
    assert!(text.contains("In 10–20 s (3.0 req/s offered)"), "{text}");
    assert!(text.contains("the load's own requests began within 700 ms at P50, 700 ms at P90"), "{text}");
    let v = json(&[p.to_str().unwrap(), "--load", l.to_str().unwrap(), "--json"]);
    let w = &v["probe"]["windows"];
    assert_eq!(w[0]["load"]["load_ttft_ms"].as_array().unwrap().len(), 12, "{v}");
    assert_eq!(w[1]["load"]["load_ttft_ms"].as_array().unwrap().len(), 30, "{v}");
    // A load recorded an hour later does not line up: said, exit 2, nothing printed.
    load.meta.clock_epoch_ms = Some(1_796_511_600_000.0);
    std::fs::write(&l, load.to_json()).unwrap();
    let out = analyze(&[p.to_str().unwrap(), "--load", l.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("none of the load's 42 requests falls in a probe window"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn opentelemetry_files_read_as_field_data_saying_what_they_lack() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/field");
    let file = |f: &str| dir.join(f).to_str().unwrap().to_string();
    // The collector's file exporter: a page with the lab's snippet, a back
    // end with the conventions only.
    let out = analyze(&[&file("collector_file_exporter.jsonl")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.starts_with("Source: OpenTelemetry GenAI spans\n"), "{text}");
    assert!(text.contains("5 of 13 requests carry only the time to first chunk"), "{text}");
    assert!(text.contains("5 of 13 requests carry no paints"), "{text}");
    assert!(text.contains("Left out: 1 spans that are not GenAI, 1 GenAI operations"), "{text}");
    assert!(text.contains("Requests: 13 (12 completed, 1 failed: 1 http)"), "{text}");
    let v = json(&[&file("collector_file_exporter.jsonl"), "--json", "--per-request"]);
    assert_eq!(v["source"]["format"], "otlp");
    assert_eq!(v["source"]["notes"].as_array().unwrap().len(), 3);
    assert_eq!(v["ttfp_ms"]["count"], 8, "the snippet's spans have a first paint: {}", v["ttfp_ms"]);
    let all = v.to_string();
    assert!(
        !all.contains("12345") && !all.contains("charged twice"),
        "no prompt or answer text in the output"
    );
    // Tempo and Jaeger: the page's first four requests, the same figures.
    let tempo = json(&[&file("tempo_trace.json"), "--json"]);
    let jaeger = json(&[&file("jaeger_export.json"), "--json"]);
    assert_eq!(tempo["requests"], 4);
    assert_eq!(tempo["ttft_ms"], jaeger["ttft_ms"]);
    assert_eq!(tempo["ttft_ms"]["median"], 240.0);
    assert_eq!(tempo["ttfp_ms"]["count"], 4);
    // A lab trace with notes (the collector's period): said before the table, and in JSON.
    let d = scratch("otlp");
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    t["meta"]["notes"] = serde_json::json!(["3 of 4 requests carry no paints"]);
    let noted = d.join("noted.trace.json");
    std::fs::write(&noted, t.to_string()).unwrap();
    let out = analyze(&[noted.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("note: 3 of 4 requests carry no paints\n"));
    assert_eq!(json(&[noted.to_str().unwrap(), "--json"])["notes"][0], "3 of 4 requests carry no paints");
    // Spans but none to read: said, exit 2.
    let f = d.join("http-only.json");
    std::fs::write(&f, r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"spanId":"1","name":"GET /","startTimeUnixNano":"1","endTimeUnixNano":"2","attributes":[]}]}]}]}"#).unwrap();
    let out = analyze(&[f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 spans, none a streamed GenAI inference span"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
