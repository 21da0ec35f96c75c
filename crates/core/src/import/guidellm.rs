//! guidellm `benchmarks.json` reports (checked against guidellm 0.8.1, the
//! report written by `guidellm run --output kind=json`, and the 0.3 series
//! layout of `guidellm benchmark --output-path benchmarks.json`).
//!
//! Each entry of `benchmarks` is one run (one load level). Per request
//! (`requests.successful`, `.incomplete`, `.errored`) guidellm keeps the
//! start, the first and the last token time and the token counts, not the
//! time of every token: the lab spreads the tokens evenly between the first
//! and the last (so jitter and stalls cannot be judged from these files).
//!
//! - 0.4 and later: `info.timings.{request_start, first_token_iteration,
//!   last_token_iteration}`, `info.error`, top-level `output_tokens`,
//!   `prompt_tokens`, `output`, `time_to_first_token_ms`.
//! - 0.3: top-level `start_time`, `first_token_time`, `last_token_time`,
//!   `error`.
//!
//! guidellm's own percentiles are taken from the inverse of the empirical
//! CDF (the smallest value whose cumulative share reaches p), its median
//! too, and its `inter_token_latency_ms` (the lab's TPOT) is weighted by each
//! request's tokens − 1; the comparison says so.

use serde::Deserialize;
use serde_json::Value;

use super::compare::{FigureMetric, FigureStat, ToolFigure};
use super::reconstruct::keep_turns;
use super::{Format, ImportError, ImportedRequest, ImportedRun};

#[derive(Deserialize)]
struct Report {
    benchmarks: Vec<Benchmark>,
    #[serde(default)]
    metadata: Option<Value>,
}

#[derive(Deserialize)]
struct Benchmark {
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    metrics: Option<Value>,
    requests: Requests,
    #[serde(default)]
    start_time: Option<f64>,
    #[serde(default)]
    duration: Option<f64>,
}

#[derive(Deserialize, Default)]
struct Requests {
    #[serde(default)]
    successful: Vec<Stats>,
    #[serde(default)]
    incomplete: Vec<Stats>,
    #[serde(default)]
    errored: Vec<Stats>,
}

#[derive(Deserialize, Default)]
struct Timings {
    #[serde(default)]
    request_start: Option<f64>,
    #[serde(default)]
    first_token_iteration: Option<f64>,
    #[serde(default)]
    last_token_iteration: Option<f64>,
    #[serde(default)]
    request_end: Option<f64>,
}

#[derive(Deserialize, Default)]
struct Info {
    #[serde(default)]
    timings: Timings,
    #[serde(default)]
    turn_index: Option<u32>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize, Default)]
struct Stats {
    #[serde(default)]
    request_id: Option<String>,
    #[serde(default)]
    info: Option<Info>,
    #[serde(default)]
    output: Option<String>,
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    cached_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    time_to_first_token_ms: Option<f64>,
    // 0.3 layout
    #[serde(default)]
    start_time: Option<f64>,
    #[serde(default)]
    end_time: Option<f64>,
    #[serde(default)]
    first_token_time: Option<f64>,
    #[serde(default)]
    last_token_time: Option<f64>,
    #[serde(default)]
    error: Option<String>,
}

impl Stats {
    fn timings(&self) -> (Option<f64>, Option<f64>, Option<f64>, Option<f64>) {
        let t = self.info.as_ref().map(|i| &i.timings);
        (
            t.and_then(|t| t.request_start).or(self.start_time),
            t.and_then(|t| t.first_token_iteration).or(self.first_token_time),
            t.and_then(|t| t.last_token_iteration).or(self.last_token_time),
            t.and_then(|t| t.request_end).or(self.end_time),
        )
    }

    fn error(&self) -> Option<String> {
        self.info.as_ref().and_then(|i| i.error.clone()).or_else(|| self.error.clone())
    }
}

/// Imports a report; each benchmark becomes a run.
pub fn import(text: &str) -> Result<Vec<ImportedRun>, ImportError> {
    let report: Report = serde_json::from_str(text).map_err(|e| ImportError::json(Format::GuideLlm, &e))?;
    let version = report
        .metadata
        .as_ref()
        .and_then(|m| m.get("guidellm_version"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(report.benchmarks.into_iter().enumerate().map(|(i, b)| run(b, i, version.clone())).collect())
}

fn request(s: &Stats, origin: f64, failure: Option<String>) -> ImportedRequest {
    let (start, first, last, end) = s.timings();
    let start = start.unwrap_or(origin);
    let ttft_ms = s.time_to_first_token_ms.or_else(|| first.map(|f| (f - start) * 1000.0));
    ImportedRequest {
        id: s.request_id.clone(),
        sent_ms: (start - origin) * 1000.0,
        ttft_ms,
        itl: (0, 0),
        e2el_ms: last.or(end).map(|l| (l - start) * 1000.0),
        output_tokens: s.output_tokens,
        input_tokens: s.prompt_tokens,
        text: s.output.clone(),
        error: failure,
        spread: true,
        turn: s.info.as_ref().and_then(|i| i.turn_index),
        cached_tokens: s.cached_tokens,
    }
}

fn run(b: Benchmark, index: usize, version: Option<String>) -> ImportedRun {
    let r = &b.requests;
    let origin = b.start_time.unwrap_or_else(|| {
        r.successful
            .iter()
            .chain(&r.incomplete)
            .chain(&r.errored)
            .filter_map(|s| s.timings().0)
            .fold(f64::INFINITY, f64::min)
    });
    let origin = if origin.is_finite() { origin } else { 0.0 };
    let mut requests: Vec<ImportedRequest> = r.successful.iter().map(|s| request(s, origin, None)).collect();
    requests.extend(r.incomplete.iter().map(|s| {
        let why = s.error().unwrap_or_else(|| "cut off when the benchmark ended (incomplete)".into());
        request(s, origin, Some(why))
    }));
    requests.extend(
        r.errored.iter().map(|s| request(s, origin, Some(s.error().unwrap_or_else(|| "errored".into())))),
    );
    requests.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
    keep_turns(&mut requests);

    let strategy = b
        .config
        .as_ref()
        .and_then(|c| c.get("strategy"))
        .or_else(|| b.args.as_ref().and_then(|a| a.get("strategy")));
    let kind = strategy.and_then(|s| s.get("type_")).and_then(Value::as_str);
    let concurrency = strategy
        .and_then(|s| s.get("streams").or_else(|| s.get("max_concurrency")))
        .and_then(Value::as_u64)
        .and_then(|c| u32::try_from(c).ok());
    let rate = strategy.and_then(|s| s.get("rate")).and_then(Value::as_f64);
    let load = match (kind, concurrency, rate) {
        (Some(k), Some(c), _) => format!("{k}@{c}"),
        (Some(k), None, Some(r)) => format!("{k}@{r}/s"),
        (Some(k), None, None) => k.to_string(),
        _ => format!("benchmark {}", index + 1),
    };
    ImportedRun {
        format: Format::GuideLlm,
        label: format!("guidellm · {load}"),
        model: None,
        tool_version: version,
        requests,
        itl_ms: Vec::new(),
        duration_ms: b.duration.map(|d| d * 1000.0),
        concurrency,
        summary: b.metrics.as_ref().map(summary).unwrap_or_default(),
        notes: vec![
            "guidellm keeps only the first and last token time of each request: the lab spreads the tokens evenly between them, so ITL, jitter and stalls of these runs are not measured data.".into(),
            "guidellm's TTFT and latency start when its client began the request (request_start), its E2EL (request_latency) ends when the response closed; the lab's E2EL ends at the last token.".into(),
        ],
    }
}

const RANK_NOTE: &str = "guidellm takes percentiles from the inverse empirical CDF (nearest rank), not numpy's linear interpolation";

fn summary(metrics: &Value) -> Vec<ToolFigure> {
    let mut out = Vec::new();
    let specs: [(&str, FigureMetric, f64, Option<&str>); 3] = [
        ("time_to_first_token_ms", FigureMetric::Ttft, 1.0, None),
        (
            "inter_token_latency_ms",
            FigureMetric::Tpot,
            1.0,
            Some(
                "guidellm weights each request's TPOT by its output tokens − 1; the lab gives each request one vote",
            ),
        ),
        (
            "request_latency",
            FigureMetric::E2el,
            1000.0,
            Some(
                "guidellm's request latency runs until the response closed, the lab's E2EL until the last token",
            ),
        ),
    ];
    for (name, metric, scale, note) in specs {
        let Some(d) = metrics.get(name).and_then(|m| m.get("successful")) else { continue };
        let mut push = |key: String, stat: FigureStat, v: Option<f64>, note: Option<&str>| {
            if let Some(v) = v.filter(|v| v.is_finite()) {
                out.push(ToolFigure { key, metric, stat, value: v * scale, note: note.map(str::to_owned) });
            }
        };
        push(
            format!("{name}.successful.mean"),
            FigureStat::Mean,
            d.get("mean").and_then(Value::as_f64),
            note,
        );
        let rank_note = note.map_or_else(|| RANK_NOTE.to_string(), |n| format!("{n}; {RANK_NOTE}"));
        push(
            format!("{name}.successful.median"),
            FigureStat::Rank(50.0),
            d.get("median").and_then(Value::as_f64),
            Some(&rank_note),
        );
        for (k, p) in [("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0)] {
            let v = d.get("percentiles").and_then(|ps| ps.get(k)).and_then(Value::as_f64);
            push(format!("{name}.successful.percentiles.{k}"), FigureStat::Rank(p), v, Some(&rank_note));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_layout_and_failures() {
        let text = r#"{"benchmarks":[{"type_":"generative_benchmark","args":{"strategy":{"type_":"synchronous"}},
            "start_time":100.0,"duration":2.0,
            "requests":{"successful":[{"request_id":"a","start_time":100.5,"end_time":101.0,"first_token_time":100.6,
              "last_token_time":100.9,"prompt_tokens":5,"output_tokens":4,"output":"w x y z"}],
              "incomplete":[{"request_id":"b","start_time":101.5,"first_token_time":null}],
              "errored":[{"request_id":"c","start_time":100.2,"error":"boom"}]}}]}"#;
        let runs = import(text).unwrap();
        let run = &runs[0];
        assert_eq!(run.label, "guidellm · synchronous");
        assert_eq!(
            run.requests.iter().map(|r| r.id.as_deref().unwrap()).collect::<Vec<_>>(),
            ["c", "a", "b"]
        );
        let t = run.request_trace(1).unwrap();
        let times: Vec<f64> = t.chunks.iter().map(|c| (c.arrived_ms * 1e6).round() / 1e6).collect();
        assert_eq!(times, [600.0, 700.0, 800.0, 900.0]);
        assert_eq!(
            run.request_trace(0).unwrap().failure.unwrap().message,
            "The benchmark tool recorded an error: boom"
        );
        assert!(run.request_trace(2).unwrap().failure.unwrap().message.contains("incomplete"));
        assert_eq!(run.metrics(&Default::default()).completed, 1);
    }
}
