//! GenAI-Perf / perf_analyzer `profile_export.json` (the layout read by
//! genai-perf 0.0.16's `LLMProfileDataParser`).
//!
//! `experiments[]` (one per load level: `experiment.mode` and `.value`), each
//! with `requests[]`: `timestamp` (ns, request sent), `response_timestamps`
//! (ns, one per network read) and `response_outputs` (the raw bytes of each
//! read: `{"response": "data: {...}\n\n"}` for OpenAI endpoints,
//! `{"text_output": "..."}` for Triton). The lab runs the raw responses
//! through its own SSE parser and chunk decoder, as if it had recorded them.
//!
//! As GenAI-Perf does, only responses that carry text count as tokens: TTFT
//! is the first of them minus `timestamp`, request latency the last.
//! GenAI-Perf's "inter token latency" is (latency − TTFT) / (tokens − 1) with
//! tokens from its tokenizer: the lab's TPOT, with the lab counting one token
//! per text response unless the stream reported `usage`.

use serde::Deserialize;
use serde_json::Value;

use super::{Format, ImportError, ImportedRequest, ImportedRun};
use crate::stream::openai::{self, StreamItem};
use crate::stream::sse::SseParser;

#[derive(Deserialize)]
struct Export {
    experiments: Vec<Experiment>,
    #[serde(default)]
    service_kind: Option<String>,
    #[serde(default)]
    endpoint: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

#[derive(Deserialize)]
struct Experiment {
    #[serde(default)]
    experiment: Option<Value>,
    requests: Vec<Request>,
}

#[derive(Deserialize)]
struct Request {
    timestamp: f64,
    #[serde(default)]
    response_timestamps: Vec<f64>,
    #[serde(default)]
    response_outputs: Vec<Value>,
}

/// What one request's responses held.
#[derive(Default)]
struct Decoded {
    /// Times (ns) of responses with text.
    times: Vec<f64>,
    text: String,
    usage_tokens: Option<u64>,
    prompt_tokens: Option<u64>,
    done: bool,
    error: Option<String>,
}

fn decode(r: &Request) -> Decoded {
    let mut d = Decoded::default();
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    for (t, out) in r.response_timestamps.iter().zip(&r.response_outputs) {
        if let Some(text) = out.get("text_output").and_then(Value::as_str) {
            if !text.is_empty() {
                d.times.push(*t);
                d.text.push_str(text);
            }
            d.done = true;
            continue;
        }
        let Some(raw) = out.get("response").and_then(Value::as_str) else { continue };
        events.clear();
        parser.feed_into(raw.as_bytes(), &mut events);
        let mut has_text = false;
        for e in &events {
            match openai::decode(&e.data) {
                Ok(StreamItem::Done) => d.done = true,
                Ok(StreamItem::Chunk(c)) => {
                    if let Some(u) = &c.usage {
                        d.usage_tokens = u.completion_tokens.or(d.usage_tokens);
                        d.prompt_tokens = u.prompt_tokens.or(d.prompt_tokens);
                    }
                    if c.has_text() {
                        has_text = true;
                        d.text.push_str(&c.content);
                    }
                }
                Ok(StreamItem::Error(e)) => d.error = Some(e.message),
                Err(e) => d.error = Some(format!("a response the lab could not decode: {e}")),
            }
        }
        if has_text {
            d.times.push(*t);
        }
    }
    d
}

/// Imports every experiment as a run.
pub fn import(text: &str) -> Result<Vec<ImportedRun>, ImportError> {
    let export: Export = serde_json::from_str(text).map_err(|e| ImportError::json(Format::GenAiPerf, &e))?;
    let kind = export.service_kind.clone().unwrap_or_else(|| "openai".into());
    if kind == "triton_c_api" {
        return Err(ImportError::broken(
            Format::GenAiPerf,
            "service kind triton_c_api stores token ids without text; the lab reads openai and triton exports",
        ));
    }
    let mut runs = Vec::new();
    for (i, exp) in export.experiments.iter().enumerate() {
        let origin = exp.requests.iter().map(|r| r.timestamp).fold(f64::INFINITY, f64::min);
        let origin = if origin.is_finite() { origin } else { 0.0 };
        let mut itl_ms = Vec::new();
        let mut requests = Vec::with_capacity(exp.requests.len());
        for (k, r) in exp.requests.iter().enumerate() {
            let d = decode(r);
            let start = itl_ms.len();
            itl_ms.extend(d.times.windows(2).map(|w| (w[1] - w[0]) / 1e6));
            let error = d.error.clone().or_else(|| {
                if r.response_timestamps.is_empty() {
                    Some("no response was recorded".into())
                } else {
                    (!d.done).then(|| "the stream ended without [DONE] (cut off)".to_string())
                }
            });
            requests.push(ImportedRequest {
                id: Some(format!("{k}")),
                sent_ms: (r.timestamp - origin) / 1e6,
                ttft_ms: d.times.first().map(|t| (t - r.timestamp) / 1e6),
                itl: (start, d.times.len().saturating_sub(1)),
                e2el_ms: d.times.last().map(|t| (t - r.timestamp) / 1e6),
                output_tokens: d.usage_tokens,
                input_tokens: d.prompt_tokens,
                text: Some(d.text),
                error,
                spread: false,
                turn: None,
                cached_tokens: None,
            });
        }
        let end = exp
            .requests
            .iter()
            .filter_map(|r| r.response_timestamps.last())
            .fold(f64::NEG_INFINITY, |a, b| a.max(*b));
        let mode = exp.experiment.as_ref().and_then(|e| e.get("mode")).and_then(Value::as_str);
        let value = exp.experiment.as_ref().and_then(|e| e.get("value")).and_then(Value::as_f64);
        let concurrency = (mode == Some("concurrency")).then_some(value).flatten().map(|v| v as u32);
        let load = match (mode, value) {
            (Some(m), Some(v)) => format!("{} {v}", m.replace('_', " ")),
            _ => format!("experiment {}", i + 1),
        };
        runs.push(ImportedRun {
            format: Format::GenAiPerf,
            label: format!("GenAI-Perf · {} · {load}", export.endpoint.as_deref().unwrap_or(&kind)),
            model: None,
            tool_version: export.version.clone().filter(|v| !v.is_empty()),
            requests,
            itl_ms,
            duration_ms: end.is_finite().then(|| (end - origin) / 1e6),
            concurrency,
            summary: Vec::new(),
            notes: vec![
                "The raw responses were decoded by the lab; a token is a response carrying text (GenAI-Perf counts tokens with its tokenizer, which the file does not hold).".into(),
                "GenAI-Perf's \"inter token latency\" is what the lab calls TPOT.".into(),
            ],
        });
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_responses_become_chunks() {
        let chunk = |c: &str| format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{c}\"}}}}]}}\n\n");
        let doc = serde_json::json!({
            "service_kind": "openai", "endpoint": "v1/chat/completions",
            "experiments": [{"experiment": {"mode": "concurrency", "value": 2}, "requests": [
                {"timestamp": 1_000_000_000.0, "response_timestamps": [1_100_000_000.0, 1_150_000_000.0, 1_170_000_000.0, 1_171_000_000.0],
                 "response_outputs": [
                    {"response": "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"},
                    {"response": chunk("Hel") + &chunk("lo")},
                    {"response": chunk(" world")},
                    {"response": "data: [DONE]\n\n"}]},
                {"timestamp": 1_010_000_000.0, "response_timestamps": [1_200_000_000.0],
                 "response_outputs": [{"response": chunk("cut")}]}
            ]}]
        });
        let runs = import(&doc.to_string()).unwrap();
        let run = &runs[0];
        assert_eq!(run.concurrency, Some(2));
        let t = run.request_trace(0).unwrap();
        assert_eq!(t.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [150.0, 170.0]);
        assert_eq!(t.text(), "Hello world");
        assert!(t.failure.is_none());
        let cut = run.request_trace(1).unwrap();
        assert!(cut.failure.unwrap().message.contains("without [DONE]"));
        assert_eq!(run.metrics(&Default::default()).completed, 1);
    }
}
