//! vLLM `vllm bench serve --save-result --save-detailed` results (checked
//! against vllm/benchmarks/serve.py at commit 009e6d4a1cd6, the vLLM 0.11–0.12
//! series; older `benchmarks/benchmark_serving.py` files have the same
//! fields minus `latencies` and `start_times`).
//!
//! Per request: `ttfts` (s), `itls` (list per request, s), `latencies` (s),
//! `start_times` (s, `perf_counter`), `input_lens`, `output_lens`,
//! `generated_texts`, `errors` (empty string = success). Summary:
//! `{mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms`, `request_throughput`,
//! `output_throughput`, `duration` (s). With `--append-result` the file holds
//! one JSON object per line; each becomes a run.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::compare::{FigureMetric, FigureStat, ToolFigure};
use super::{Format, ImportError, ImportedRequest, ImportedRun};

#[derive(Deserialize)]
struct VllmResult {
    #[serde(default)]
    backend: Option<String>,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    model_id: Option<String>,
    #[serde(default)]
    max_concurrency: Option<u32>,
    #[serde(default)]
    request_rate: Option<Value>,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    input_lens: Option<Vec<u64>>,
    #[serde(default)]
    output_lens: Option<Vec<u64>>,
    #[serde(default)]
    ttfts: Option<Vec<f64>>,
    #[serde(default)]
    itls: Option<Vec<Vec<f64>>>,
    #[serde(default)]
    start_times: Option<Vec<f64>>,
    #[serde(default)]
    latencies: Option<Vec<f64>>,
    #[serde(default)]
    generated_texts: Option<Vec<String>>,
    #[serde(default)]
    errors: Option<Vec<String>>,
    #[serde(flatten)]
    rest: HashMap<String, Value>,
}

/// Imports one object or JSON lines of objects.
pub fn import(text: &str) -> Result<Vec<ImportedRun>, ImportError> {
    match serde_json::from_str::<VllmResult>(text) {
        Ok(r) => Ok(vec![run(r, 0)?]),
        Err(e) if e.classify() == serde_json::error::Category::Syntax && e.line() > 1 => {
            // --append-result: one object per line.
            let mut runs = Vec::new();
            let lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
            for (i, (n, line)) in lines.enumerate() {
                let r: VllmResult = serde_json::from_str(line)
                    .map_err(|e| ImportError::json_line(Format::Vllm, &e, n + 1))?;
                runs.push(run(r, i)?);
            }
            Ok(runs)
        }
        Err(e) => Err(ImportError::json(Format::Vllm, &e)),
    }
}

fn figure(key: &str, value: f64) -> Option<ToolFigure> {
    if let Some(rest) = key.strip_suffix("_ms") {
        let (stat, metric) = rest.split_once('_')?;
        let metric = match metric {
            "ttft" => FigureMetric::Ttft,
            "tpot" => FigureMetric::Tpot,
            "itl" => FigureMetric::Itl,
            "e2el" => FigureMetric::E2el,
            _ => return None,
        };
        let stat = match stat {
            "mean" => FigureStat::Mean,
            "median" => FigureStat::Median,
            "std" => FigureStat::Std,
            p => FigureStat::Percentile(p.strip_prefix('p')?.parse().ok()?),
        };
        let note = (metric == FigureMetric::Itl).then(|| {
            "vLLM records one ITL per streamed chunk; chunks of several tokens count once (see the lab's per-token ITL)".to_string()
        });
        return Some(ToolFigure { key: key.to_string(), metric, stat, value, note });
    }
    let metric = match key {
        "request_throughput" => FigureMetric::RequestThroughput,
        "output_throughput" => FigureMetric::OutputThroughput,
        _ => return None,
    };
    Some(ToolFigure { key: key.to_string(), metric, stat: FigureStat::Value, value, note: None })
}

fn run(r: VllmResult, index: usize) -> Result<ImportedRun, ImportError> {
    let (Some(ttfts), Some(itls)) = (r.ttfts, r.itls) else {
        return Err(ImportError::SummaryOnly {
            what: "a vLLM result saved without --save-detailed",
            instead: "run `vllm bench serve` with --save-result --save-detailed to keep per-request timings",
        });
    };
    let n = ttfts.len();
    if itls.len() != n {
        return Err(ImportError::broken(Format::Vllm, format!("{n} ttfts but {} itls lists", itls.len())));
    }
    let at = |v: &Option<Vec<u64>>, i: usize| v.as_ref().and_then(|v| v.get(i)).copied();
    let origin = r.start_times.as_ref().and_then(|s| s.iter().copied().reduce(f64::min)).unwrap_or(0.0);
    let mut flat = Vec::with_capacity(itls.iter().map(Vec::len).sum());
    let mut requests = Vec::with_capacity(n);
    let mut texts = r.generated_texts.map(|t| t.into_iter());
    for (i, gaps) in itls.into_iter().enumerate() {
        let error = r.errors.as_ref().and_then(|e| e.get(i)).filter(|e| !e.is_empty()).cloned();
        let start = flat.len();
        flat.extend(gaps.iter().map(|g| g * 1000.0));
        let sent_ms = r.start_times.as_ref().and_then(|s| s.get(i)).map_or(0.0, |s| (s - origin) * 1000.0);
        requests.push(ImportedRequest {
            id: Some(format!("{i}")),
            sent_ms,
            // vLLM writes TTFT 0 for a request that failed before any token.
            ttft_ms: Some(ttfts[i] * 1000.0).filter(|t| error.is_none() || *t > 0.0 || !gaps.is_empty()),
            itl: (start, gaps.len()),
            e2el_ms: r.latencies.as_ref().and_then(|l| l.get(i)).map(|l| l * 1000.0).filter(|l| *l > 0.0),
            output_tokens: at(&r.output_lens, i),
            input_tokens: at(&r.input_lens, i),
            text: texts.as_mut().and_then(Iterator::next),
            error,
            spread: false,
            turn: None,
            cached_tokens: None,
        });
    }
    let mut summary: Vec<ToolFigure> =
        r.rest.iter().filter_map(|(k, v)| v.as_f64().and_then(|v| figure(k, v))).collect();
    summary.sort_by(|a, b| a.metric.cmp(&b.metric).then(a.stat.order().total_cmp(&b.stat.order())));
    let load = match (r.max_concurrency, r.request_rate.as_ref()) {
        (Some(c), _) => format!("concurrency {c}"),
        (None, Some(rate)) => {
            format!("rate {}", rate.as_str().map_or_else(|| rate.to_string(), str::to_owned))
        }
        _ => format!("run {}", index + 1),
    };
    let model = r.model_id.clone();
    Ok(ImportedRun {
        format: Format::Vllm,
        label: r.label.clone().unwrap_or_else(|| {
            format!("vLLM {} · {} · {load}", r.backend.as_deref().unwrap_or("bench"), model.as_deref().unwrap_or("model"))
        }),
        model,
        tool_version: None,
        requests,
        itl_ms: flat,
        duration_ms: r.duration.map(|d| d * 1000.0),
        concurrency: r.max_concurrency,
        summary,
        notes: vec![
            "Timings are vLLM's client-side measurements; vLLM's TTFT starts at the first streamed chunk with choices (for chat, the role-only opening chunk), the lab's live TTFT at the first text.".into(),
        ],
    })
}
