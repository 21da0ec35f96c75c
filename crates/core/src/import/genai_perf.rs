//! GenAI-Perf / perf_analyzer `profile_export.json` (the layout read by
//! genai-perf 0.0.16's `LLMProfileDataParser`).
//!
//! `experiments[]` (one per load level: `experiment.mode` and `.value`), each
//! with `requests[]`: `timestamp` (ns, request sent), `response_timestamps`
//! (ns, one per network read) and `response_outputs` (the raw bytes of each
//! read: `{"response": "data: {...}\n\n"}` for OpenAI endpoints,
//! `{"text_output": "..."}` for Triton). The lab runs the raw responses
//! through its own framing and decoder, as if it had recorded them, in the
//! wire they speak ([`crate::stream::wire`]): named by `endpoint`
//! (`v1/responses`, `v1/messages`, `…:streamGenerateContent`, `api/chat`),
//! else told by the first response, else OpenAI Chat. A stream is complete
//! when its wire says so (its end event, or a finish where the wire ends so).
//!
//! As GenAI-Perf does, only responses that carry text count as tokens: TTFT
//! is the first of them minus `timestamp`, request latency the last.
//! GenAI-Perf's "inter token latency" is (latency − TTFT) / (tokens − 1) with
//! tokens from its tokenizer: the lab's TPOT, with the lab counting one token
//! per text response unless the stream reported `usage`.

use serde::Deserialize;
use serde_json::Value;

use super::{Format, ImportError, ImportedRequest, ImportedRun};
use crate::stream::frame::Framer;
use crate::stream::wire::{Wire, WireDecoder, detect};
use crate::trace::ChunkKind;

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

/// The wire an export's `endpoint` names, if it names one.
fn named_wire(endpoint: &str) -> Option<Wire> {
    let e = endpoint.to_ascii_lowercase();
    Some(if e.contains("responses") {
        Wire::Responses
    } else if e.contains("messages") {
        Wire::Anthropic
    } else if e.contains("generatecontent") {
        Wire::Gemini
    } else if e.contains("api/chat") || e.contains("api/generate") {
        Wire::Ollama
    } else if e.contains("completions") {
        Wire::Chat
    } else {
        return None;
    })
}

/// The wire of a request's raw responses: named, else told by the first of
/// them (an event stream, else JSON lines), else Chat.
fn wire_of(r: &Request, named: Option<Wire>) -> Wire {
    named
        .or_else(|| {
            let first: String = r
                .response_outputs
                .iter()
                .filter_map(|o| o.get("response").and_then(Value::as_str))
                .take(4)
                .collect();
            detect("text/event-stream", |_| None, first.as_bytes()).or_else(|| {
                if first.trim_start().starts_with('{') {
                    Some(Wire::Ollama)
                } else {
                    // The AI SDK's data stream (`0:"…"` lines), else plain text.
                    detect("text/plain", |_| None, first.as_bytes())
                }
            })
        })
        .unwrap_or(Wire::Chat)
}

fn decode(r: &Request, wire: Wire) -> Decoded {
    let mut d = Decoded::default();
    let mut framer = Framer::new(wire.framing());
    let mut decoder = WireDecoder::new(wire);
    let (mut scratch, mut framed) = (Vec::new(), Vec::new());
    // Plain text has no end of its own: the body's end is the answer's.
    let mut finished = wire == Wire::Text;
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
        framed.clear();
        framer.feed(raw.as_bytes(), &mut scratch, &mut framed);
        let mut has_text = false;
        for f in &framed {
            match decoder.decode(f.event.as_deref(), &f.data) {
                Ok(m) => {
                    if let Some(u) = &m.usage {
                        d.usage_tokens = u.completion_tokens.or(d.usage_tokens);
                        d.prompt_tokens = u.prompt_tokens.or(d.prompt_tokens);
                    }
                    for delta in
                        m.deltas.iter().filter(|x| x.kind == ChunkKind::Content && !x.text.is_empty())
                    {
                        has_text = true;
                        d.text.push_str(&delta.text);
                    }
                    finished |= m.finish.is_some() && wire.finish_ends();
                    d.done |= m.end;
                    if let Some(e) = m.error {
                        d.error = Some(e.message);
                    }
                }
                Err(e) => d.error = Some(format!("a {} response the lab could not decode: {e}", wire.name())),
            }
        }
        if has_text {
            d.times.push(*t);
        }
    }
    // A finish ends a stream of a wire whose end marker is optional, when
    // nothing was left half-sent.
    d.done |= finished && framer.finish().clean;
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
    let named = export.endpoint.as_deref().and_then(named_wire);
    let mut runs = Vec::new();
    for (i, exp) in export.experiments.iter().enumerate() {
        let origin = exp.requests.iter().map(|r| r.timestamp).fold(f64::INFINITY, f64::min);
        let origin = if origin.is_finite() { origin } else { 0.0 };
        let mut itl_ms = Vec::new();
        let mut requests = Vec::with_capacity(exp.requests.len());
        for (k, r) in exp.requests.iter().enumerate() {
            let wire = wire_of(r, named);
            let d = decode(r, wire);
            let start = itl_ms.len();
            itl_ms.extend(d.times.windows(2).map(|w| (w[1] - w[0]) / 1e6));
            let error = d.error.clone().or_else(|| {
                if r.response_timestamps.is_empty() {
                    Some("no response was recorded".into())
                } else {
                    (!d.done).then(|| {
                        format!("the {} stream ended without {} (cut off)", wire.name(), wire.ending())
                    })
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

    /// Each wire's stream as the replay endpoint sends it (Chat as OpenAI
    /// does), one network read per event, recorded as GenAI-Perf records it.
    fn recorded(wire: Wire, pieces: &[&str], end: bool) -> Value {
        use crate::stream::wire::encode::{Finish, Totals, WireEncoder};
        let mut reads = Vec::new();
        if wire == Wire::Chat {
            let chunk = |c: &str| {
                format!("data: {}\n\n", serde_json::json!({"choices": [{"delta": {"content": c}}]}))
            };
            reads.extend(pieces.iter().map(|p| chunk(p)));
            if end {
                reads.push("data: [DONE]\n\n".into());
            }
        } else {
            let mut enc = WireEncoder::new(wire, "r1", "m", 0);
            reads.push(enc.head(10, 0));
            reads.extend(pieces.iter().map(|p| enc.piece(ChunkKind::Content, p, None)));
            if end {
                let totals = Totals { prompt: 10, completion: pieces.len() as u64, ..Totals::default() };
                reads.push(enc.tail(Finish::Stop, totals));
            }
        }
        reads.retain(|r| !r.is_empty());
        let times: Vec<f64> = (1..=reads.len()).map(|i| 1e9 + i as f64 * 1e7).collect();
        let outputs: Vec<Value> = reads.iter().map(|r| serde_json::json!({ "response": r })).collect();
        serde_json::json!({"timestamp": 1e9, "response_timestamps": times, "response_outputs": outputs})
    }

    #[test]
    fn every_wire_recorded_is_read_told_by_its_first_response_or_named() {
        for wire in crate::stream::wire::WIRES {
            for endpoint in [None, named_endpoint(wire)] {
                let whole = recorded(wire, &["Hel", "lo", " world"], true);
                let cut = recorded(wire, &["cut"], false);
                let doc =
                    serde_json::json!({"endpoint": endpoint, "experiments": [{"requests": [whole, cut]}]});
                let run = &import(&doc.to_string()).unwrap()[0];
                let t = run.request_trace(0).unwrap();
                assert_eq!(t.text(), "Hello world", "{wire:?} {endpoint:?}");
                assert_eq!(t.chunks.len(), 3, "{wire:?}: one token per text response");
                assert!(t.failure.is_none(), "{wire:?} {endpoint:?}: {:?}", t.failure);
                if wire != Wire::Text {
                    let failure =
                        run.request_trace(1).unwrap().failure.map(|f| f.message).unwrap_or_default();
                    assert!(
                        failure.contains(wire.name()) && failure.contains(wire.ending()),
                        "{wire:?}: {failure}"
                    );
                }
            }
        }
    }

    /// The `endpoint` GenAI-Perf would record for a wire (none for the AI
    /// SDK's and plain text, which it has no endpoint type for).
    fn named_endpoint(wire: Wire) -> Option<&'static str> {
        match wire {
            Wire::Chat => Some("v1/chat/completions"),
            Wire::Responses => Some("v1/responses"),
            Wire::Anthropic => Some("v1/messages"),
            Wire::Gemini => Some("v1beta/models/m:streamGenerateContent"),
            Wire::Ollama => Some("api/chat"),
            _ => None,
        }
    }
}
