//! LLMPerf `*_individual_responses.json` (checked against ray-project/llmperf
//! at f1d6bed, `token_benchmark_ray.py` and the OpenAI chat client).
//!
//! A JSON array, one object per request in the order they completed:
//! `ttft_s`, `end_to_end_latency_s`, `inter_token_latency_s`,
//! `number_output_tokens`, `number_input_tokens`, `error_code` (null on
//! success), `error_msg`. LLMPerf keeps neither the start time of a request
//! nor the time of each token: requests are laid out one after another and
//! the tokens spread evenly from the first to the end.
//!
//! LLMPerf's `inter_token_latency_s` is the sum of all gaps *including the
//! TTFT* divided by the number of streamed chunks (≈ E2EL / tokens), not the
//! lab's ITL or TPOT; it is not compared. The `*_summary.json` written next
//! to it holds no per-request data; given with it ([`attach_summary`]) its
//! TTFT and end-to-end figures are compared with the lab's.

use serde::Deserialize;
use serde_json::Value;

use super::compare::{FigureMetric, FigureStat, ToolFigure};
use super::{Format, ImportError, ImportedRequest, ImportedRun};

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    error_code: Option<Value>,
    #[serde(default)]
    error_msg: Option<String>,
    #[serde(default)]
    ttft_s: Option<f64>,
    #[serde(default)]
    end_to_end_latency_s: Option<f64>,
    #[serde(default)]
    number_output_tokens: Option<u64>,
    #[serde(default)]
    number_input_tokens: Option<u64>,
}

/// Imports the responses (one run).
pub fn import(text: &str) -> Result<Vec<ImportedRun>, ImportError> {
    let rows: Vec<Response> =
        serde_json::from_str(text).map_err(|e| ImportError::json(Format::LlmPerf, &e))?;
    let mut at = 0.0;
    let requests = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let failed = r.error_code.as_ref().is_some_and(|c| !c.is_null());
            let error = failed.then(|| {
                let code = r.error_code.as_ref().map_or_else(String::new, |c| match c.as_i64() {
                    Some(-1) => String::new(),
                    Some(n) => format!("HTTP {n}: "),
                    None => format!("{c}: "),
                });
                let msg =
                    r.error_msg.clone().filter(|m| !m.is_empty()).unwrap_or_else(|| "request failed".into());
                format!("{code}{msg}")
            });
            let ttft = r.ttft_s.filter(|t| *t > 0.0).map(|t| t * 1000.0);
            let e2el = r.end_to_end_latency_s.filter(|t| *t > 0.0).map(|t| t * 1000.0);
            let sent_ms = at;
            at += e2el.or(ttft).unwrap_or(0.0);
            ImportedRequest {
                id: Some(format!("{i}")),
                sent_ms,
                ttft_ms: ttft,
                itl: (0, 0),
                e2el_ms: e2el,
                output_tokens: r.number_output_tokens,
                input_tokens: r.number_input_tokens,
                text: None,
                error,
                spread: true,
                turn: None,
                cached_tokens: None,
            }
        })
        .collect();
    Ok(vec![ImportedRun {
        format: Format::LlmPerf,
        label: "LLMPerf run".into(),
        model: None,
        tool_version: None,
        requests,
        itl_ms: Vec::new(),
        duration_ms: None,
        concurrency: None,
        summary: Vec::new(),
        notes: vec![
            "LLMPerf saves no start time and no per-token times: requests are shown one after another and tokens spread evenly between the first token and the end, so ITL, jitter and stalls are not measured data.".into(),
            "LLMPerf's end-to-end latency runs to the end of the stream; the lab ends E2EL at the last token, here the same instant.".into(),
            "LLMPerf's inter_token_latency_s includes the TTFT (≈ E2EL ÷ tokens); it is neither the lab's ITL nor its TPOT.".into(),
        ],
    }])
}

/// Is this text an LLMPerf `*_summary.json`?
pub fn is_summary(text: &str) -> bool {
    let head = super::head(text, 8192);
    head.contains("\"results_ttft_s_mean\"") || head.contains("\"results_ttft_s_quantiles_p50\"")
}

/// Adds the figures of LLMPerf's `*_summary.json` to a run imported from the
/// `*_individual_responses.json` written with it.
pub fn attach_summary(run: &mut ImportedRun, text: &str) -> Result<(), ImportError> {
    let v: Value = serde_json::from_str(text).map_err(|e| ImportError::json(Format::LlmPerf, &e))?;
    let get = |k: &str| v.get(k).and_then(Value::as_f64).filter(|x| x.is_finite());
    let mut summary = Vec::new();
    for (name, metric) in [("ttft_s", FigureMetric::Ttft), ("end_to_end_latency_s", FigureMetric::E2el)] {
        let mut push = |key: String, stat| {
            if let Some(x) = get(&key) {
                summary.push(ToolFigure { key, metric, stat, value: x * 1000.0, note: None });
            }
        };
        push(format!("results_{name}_mean"), FigureStat::Mean);
        for p in [25, 50, 75, 90, 95, 99] {
            push(format!("results_{name}_quantiles_p{p}"), FigureStat::Percentile(f64::from(p)));
        }
    }
    if let Some(x) = get("results_mean_output_throughput_token_per_s") {
        summary.push(ToolFigure {
            key: "results_mean_output_throughput_token_per_s".into(),
            metric: FigureMetric::OutputThroughput,
            stat: FigureStat::Value,
            value: x,
            note: Some("LLMPerf divides by its whole test time, which the lab can only estimate from the requests-per-minute figure".into()),
        });
    }
    if summary.is_empty() {
        return Err(ImportError::broken(
            Format::LlmPerf,
            "the summary holds none of LLMPerf's latency figures",
        ));
    }
    run.summary = summary;
    if let (Some(n), Some(per_min)) =
        (get("results_num_completed_requests"), get("results_num_completed_requests_per_min"))
        && per_min > 0.0
    {
        run.duration_ms = Some(n / per_min * 60_000.0);
    }
    run.model = v.get("model").and_then(Value::as_str).map(str::to_owned).or(run.model.take());
    run.concurrency = v
        .get("num_concurrent_requests")
        .and_then(Value::as_u64)
        .and_then(|c| u32::try_from(c).ok())
        .or(run.concurrency);
    run.label = match (&run.model, run.concurrency) {
        (Some(m), Some(c)) => format!("LLMPerf · {m} · concurrency {c}"),
        (Some(m), None) => format!("LLMPerf · {m}"),
        _ => run.label.clone(),
    };
    Ok(())
}
