//! AIPerf per-request records, `profile_export.jsonl` (checked against
//! aiperf 0.13.0, recorded with `tests/fixtures/import/record_tools.sh`).
//!
//! One JSON object per line: `metadata.request_start_ns` (and `_end_ns`,
//! `x_request_id`, `benchmark_phase`, `was_cancelled`), `metrics.<name> =
//! {value, unit}` with `time_to_first_token` (ms), `inter_chunk_latency`
//! (list, ms: one gap per streamed chunk), `request_latency` (ms),
//! `output_sequence_length` and `input_sequence_length` (tokens), and for a
//! failed request `error = {type, message}`.
//!
//! AIPerf's `inter_token_latency` is (request latency − TTFT) / (output
//! tokens − 1): what the lab calls TPOT. Its aggregate file
//! `profile_export_aiperf.json` holds no per-request data; given next to the
//! records ([`attach_summary`]) its figures are compared with the lab's.
//! Warm-up records (`benchmark_phase: "warmup"`) are left out, as AIPerf
//! leaves them out of its figures.

use serde::Deserialize;
use serde_json::Value;

use super::compare::{FigureMetric, FigureStat, ToolFigure};
use super::reconstruct::keep_turns;
use super::{Format, ImportError, ImportedRequest, ImportedRun};

#[derive(Deserialize, Default)]
struct Metadata {
    #[serde(default)]
    x_request_id: Option<String>,
    #[serde(default)]
    turn_index: Option<u32>,
    #[serde(default)]
    request_start_ns: Option<f64>,
    #[serde(default)]
    benchmark_phase: Option<String>,
    #[serde(default)]
    was_cancelled: bool,
}

#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    metadata: Metadata,
    #[serde(default)]
    metrics: serde_json::Map<String, Value>,
    #[serde(default)]
    error: Option<Value>,
}

impl Record {
    fn value(&self, name: &str) -> Option<&Value> {
        self.metrics.get(name).and_then(|m| m.get("value"))
    }

    fn ms(&self, name: &str) -> Option<f64> {
        let m = self.metrics.get(name)?;
        let v = m.get("value")?.as_f64()?;
        Some(match m.get("unit").and_then(Value::as_str) {
            Some("ns") => v / 1e6,
            Some("us") => v / 1e3,
            Some("s" | "sec") => v * 1e3,
            _ => v,
        })
    }

    fn count(&self, name: &str) -> Option<u64> {
        self.value(name).and_then(Value::as_f64).filter(|v| *v >= 0.0).map(|v| v.round() as u64)
    }
}

/// Imports the records (one run).
pub fn import(text: &str) -> Result<Vec<ImportedRun>, ImportError> {
    let mut records = Vec::new();
    let mut warmup = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: Record =
            serde_json::from_str(line).map_err(|e| ImportError::json_line(Format::AiPerf, &e, i + 1))?;
        if r.metadata.benchmark_phase.as_deref() == Some("warmup") {
            warmup += 1;
            continue;
        }
        records.push(r);
    }
    let origin = records.iter().filter_map(|r| r.metadata.request_start_ns).fold(f64::INFINITY, f64::min);
    let origin = if origin.is_finite() { origin } else { 0.0 };
    let mut itl_ms = Vec::new();
    let mut requests = Vec::with_capacity(records.len());
    for r in &records {
        let gaps: Vec<f64> = match r.value("inter_chunk_latency") {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_f64).collect(),
            _ => Vec::new(),
        };
        let start = itl_ms.len();
        itl_ms.extend(&gaps);
        let error = match &r.error {
            Some(Value::Null) | None if r.metadata.was_cancelled => Some("cancelled by AIPerf".to_string()),
            Some(Value::Null) | None => None,
            Some(e) => Some(
                e.get("message")
                    .and_then(Value::as_str)
                    .or_else(|| e.get("type").and_then(Value::as_str))
                    .map_or_else(|| e.to_string(), str::to_owned),
            ),
        };
        requests.push(ImportedRequest {
            id: r.metadata.x_request_id.clone(),
            sent_ms: r.metadata.request_start_ns.map_or(0.0, |s| (s - origin) / 1e6),
            ttft_ms: r.ms("time_to_first_token"),
            itl: (start, gaps.len()),
            e2el_ms: r.ms("request_latency"),
            output_tokens: r.count("output_sequence_length"),
            input_tokens: r.count("input_sequence_length"),
            text: None,
            error,
            spread: false,
            turn: r.metadata.turn_index,
            cached_tokens: None,
        });
    }
    keep_turns(&mut requests);
    let mut notes = vec![
        "AIPerf's \"inter token latency\" is what the lab calls TPOT; the lab's ITL is AIPerf's inter-chunk latency.".to_string(),
        "AIPerf counts output tokens with its tokenizer (or the server's usage with --use-server-token-count); the lab uses its count.".to_string(),
    ];
    if warmup > 0 {
        notes.push(format!("{warmup} warm-up records left out, as AIPerf does."));
    }
    Ok(vec![ImportedRun {
        format: Format::AiPerf,
        label: "AIPerf profile".into(),
        model: None,
        tool_version: None,
        requests,
        itl_ms,
        duration_ms: None,
        concurrency: None,
        summary: Vec::new(),
        notes,
    }])
}

/// Is this text AIPerf's aggregate `profile_export_aiperf.json`?
pub fn is_summary(text: &str) -> bool {
    let head = super::head(text, 4096);
    head.contains("\"aiperf_version\"")
        || (head.contains("\"input_config\"") && head.contains("\"time_to_first_token\""))
}

/// Adds the figures of AIPerf's aggregate `profile_export_aiperf.json` (and
/// its duration, model, load and version) to a run imported from the
/// `profile_export.jsonl` of the same benchmark.
pub fn attach_summary(run: &mut ImportedRun, text: &str) -> Result<(), ImportError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ImportError::json(Format::AiPerf, &e))?;
    let specs = [
        ("time_to_first_token", FigureMetric::Ttft, None),
        ("inter_token_latency", FigureMetric::Tpot, None),
        (
            "inter_chunk_latency",
            FigureMetric::Itl,
            Some(
                "AIPerf's inter-chunk latency is the gap between streamed chunks; a chunk of several tokens counts once",
            ),
        ),
        (
            "request_latency",
            FigureMetric::E2el,
            Some("AIPerf's request latency ends at the last response, which may come after the last token"),
        ),
    ];
    let mut summary = Vec::new();
    for (name, metric, note) in specs {
        let Some(m) = v.get(name) else { continue };
        let stats = [
            ("avg", FigureStat::Mean),
            ("std", FigureStat::Std),
            ("p50", FigureStat::Percentile(50.0)),
            ("p90", FigureStat::Percentile(90.0)),
            ("p95", FigureStat::Percentile(95.0)),
            ("p99", FigureStat::Percentile(99.0)),
        ];
        for (k, stat) in stats {
            if let Some(x) = m.get(k).and_then(Value::as_f64) {
                let note = note.map(str::to_owned);
                summary.push(ToolFigure { key: format!("{name}.{k}"), metric, stat, value: x, note });
            }
        }
    }
    for (name, metric) in [
        ("output_token_throughput", FigureMetric::OutputThroughput),
        ("request_throughput", FigureMetric::RequestThroughput),
    ] {
        if let Some(x) = v.pointer(&format!("/{name}/avg")).and_then(Value::as_f64) {
            let note = Some("AIPerf divides by its own observation window, which the files do not record; the lab divides by the benchmark duration".to_string());
            summary.push(ToolFigure {
                key: format!("{name}.avg"),
                metric,
                stat: FigureStat::Value,
                value: x,
                note,
            });
        }
    }
    if summary.is_empty() {
        return Err(ImportError::broken(
            Format::AiPerf,
            "the aggregate file holds none of AIPerf's latency figures",
        ));
    }
    run.summary = summary;
    run.duration_ms =
        v.pointer("/benchmark_duration/avg").and_then(Value::as_f64).map(|s| s * 1000.0).or(run.duration_ms);
    run.tool_version = v.get("aiperf_version").and_then(Value::as_str).map(str::to_owned);
    run.model = v.pointer("/input_config/models/items/0/name").and_then(Value::as_str).map(str::to_owned);
    let phase = v.pointer("/input_config/phases/0");
    run.concurrency =
        phase.and_then(|p| p.get("concurrency")).and_then(Value::as_u64).and_then(|c| u32::try_from(c).ok());
    let load = match (run.concurrency, phase.and_then(|p| p.get("request_rate")).and_then(Value::as_f64)) {
        (Some(c), _) => format!(" · concurrency {c}"),
        (None, Some(r)) => format!(" · {r} req/s"),
        _ => String::new(),
    };
    run.label = format!("AIPerf · {}{load}", run.model.as_deref().unwrap_or("profile"));
    Ok(())
}
