//! Writing a stream in any wire but OpenAI Chat (which
//! [`crate::stream::openai::encode`] writes): the events `latency-lab serve`
//! sends, in the order each provider's own SDK expects them, so the SDK
//! reads a replay as it reads the provider.
//!
//! A stream is [`WireEncoder::head`] (sent with the headers), one
//! [`WireEncoder::piece`] per generated piece (a piece opens its block or
//! item first when the kind changes: Anthropic's `content_block_start`,
//! Responses' `output_item.added` and `content_part.added`, the UI stream's
//! `text-start`; the previous one is closed in the same write), and
//! [`WireEncoder::tail`] (closing events, the finish reason and usage, the
//! end marker). Errors a fault injects mid-stream are [`WireEncoder::error`].
//! Gemini and Ollama send a call whole ([`Wire::whole_calls`]): the writer
//! gives its fragments joined as one piece.

use serde_json::{Value, json};

use crate::stream::wire::Wire;
use crate::trace::{ChunkKind, ToolCallRef};

/// Why generation ended, as every wire says it in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The answer ended.
    Stop,
    /// `max_tokens` was reached.
    Length,
    /// The answer ended with tool calls.
    ToolCalls,
}

/// The counts a stream's tail reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Prompt tokens (cached ones included).
    pub prompt: u64,
    /// Prompt tokens from the prefix cache.
    pub cached: u64,
    /// Generated tokens (reasoning included).
    pub completion: u64,
    /// Generated tokens that were reasoning.
    pub reasoning: u64,
    /// When the first token went out (ms after arrival), for Ollama's durations.
    pub first_ms: f64,
    /// When the last one did.
    pub last_ms: f64,
}

/// The block (Anthropic), output item (Responses) or part (UI stream) open.
#[derive(Debug, Clone, PartialEq)]
struct Open {
    kind: ChunkKind,
    /// Its position among the blocks or items.
    index: usize,
    /// Its id (Responses items, UI stream parts, tool calls).
    id: String,
    /// The text written into it (Responses repeats it in its `.done` events).
    text: String,
    /// The call's name.
    name: String,
}

/// Writes one stream of a wire.
#[derive(Debug, Clone)]
pub struct WireEncoder {
    wire: Wire,
    id: String,
    model: String,
    created: u64,
    open: Option<Open>,
    /// Blocks or items opened so far.
    opened: usize,
    /// Items closed, as Responses' final `output` lists them.
    done: Vec<Value>,
    /// Responses' `sequence_number` of the next event.
    sequence: std::cell::Cell<u64>,
    /// Ollama's `/api/generate` (text in `response`, not `message`).
    generate: bool,
}

fn sse(event: Option<&str>, v: &Value) -> String {
    match event {
        Some(e) => format!("event: {e}\ndata: {v}\n\n"),
        None => format!("data: {v}\n\n"),
    }
}

impl WireEncoder {
    /// An encoder of `wire` for response `id` by `model`, created at
    /// `created` (Unix seconds).
    pub fn new(wire: Wire, id: &str, model: &str, created: u64) -> Self {
        Self {
            wire,
            id: id.to_owned(),
            model: model.to_owned(),
            created,
            open: None,
            opened: 0,
            done: Vec::new(),
            sequence: std::cell::Cell::new(0),
            generate: false,
        }
    }

    /// The same encoder writing Ollama's `/api/generate` lines.
    pub fn generating(self) -> Self {
        Self { generate: true, ..self }
    }

    /// An Ollama line: `message` (chat) or `response` and `thinking`
    /// (generate), with `fields`.
    fn ollama(&self, message: Value, fields: Value) -> String {
        let mut v = json!({"model": self.model, "created_at": self.created_at()});
        if self.generate {
            v["response"] = message.get("content").cloned().unwrap_or_else(|| json!(""));
            if let Some(t) = message.get("thinking") {
                v["thinking"] = t.clone();
            }
        } else {
            v["message"] = message;
        }
        if let (Value::Object(o), Value::Object(f)) = (&mut v, fields) {
            o.extend(f);
        }
        format!("{v}\n")
    }

    /// The response's content type.
    pub fn content_type(&self) -> &'static str {
        match self.wire {
            Wire::DataStream | Wire::Text => "text/plain; charset=utf-8",
            w => w.content_type(),
        }
    }

    /// Headers the wire's clients look for.
    pub fn headers(&self) -> &'static [(&'static str, &'static str)] {
        match self.wire {
            Wire::UiStream => &[("x-vercel-ai-ui-message-stream", "v1")],
            Wire::DataStream => &[("x-vercel-ai-data-stream", "v1")],
            _ => &[],
        }
    }

    fn responses_event(&self, kind: &str, fields: Value) -> String {
        let n = self.sequence.get();
        self.sequence.set(n + 1);
        let mut v = json!({ "type": kind, "sequence_number": n });
        if let (Value::Object(o), Value::Object(f)) = (&mut v, fields) {
            o.extend(f);
        }
        sse(Some(kind), &v)
    }

    fn response(&self, status: &str, output: Value, usage: Value, incomplete: Value) -> Value {
        json!({
            "id": self.id, "object": "response", "created_at": self.created, "status": status,
            "error": null, "incomplete_details": incomplete, "model": self.model,
            "output": output, "usage": usage,
        })
    }

    /// What goes out with the headers, given the prompt's tokens.
    pub fn head(&self, prompt: u64, cached: u64) -> String {
        match self.wire {
            Wire::Responses => {
                let r = self.response("in_progress", json!([]), Value::Null, Value::Null);
                self.responses_event("response.created", json!({ "response": r }))
                    + &self.responses_event("response.in_progress", json!({ "response": r }))
            }
            Wire::Anthropic => {
                let usage = json!({"input_tokens": prompt - cached.min(prompt), "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": cached, "output_tokens": 1});
                let m = json!({"id": self.id, "type": "message", "role": "assistant", "model": self.model,
                    "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage});
                sse(Some("message_start"), &json!({"type": "message_start", "message": m}))
                    + &sse(Some("ping"), &json!({"type": "ping"}))
            }
            Wire::UiStream => {
                sse(None, &json!({"type": "start", "messageId": self.id}))
                    + &sse(None, &json!({"type": "start-step"}))
            }
            Wire::DataStream => format!("f:{}\n", json!({"messageId": self.id})),
            _ => String::new(),
        }
    }

    /// One generated piece: `text` of `kind` (for a tool call, a piece of
    /// the arguments of `tool`, which names the call on its first piece).
    pub fn piece(&mut self, kind: ChunkKind, text: &str, tool: Option<&ToolCallRef>) -> String {
        let new_call = kind == ChunkKind::ToolCall && tool.is_some_and(|t| t.name.is_some());
        let mut out = String::new();
        if self.open.as_ref().is_none_or(|o| o.kind != kind) || new_call {
            out.push_str(&self.close());
            out.push_str(&self.start(kind, tool));
        }
        out.push_str(&self.delta(kind, text, tool));
        if let Some(o) = self.open.as_mut() {
            o.text.push_str(text);
        }
        out
    }

    /// Opens a block, item or part of `kind`.
    fn start(&mut self, kind: ChunkKind, tool: Option<&ToolCallRef>) -> String {
        let index = self.opened;
        self.opened += 1;
        let name = tool.and_then(|t| t.name.clone()).unwrap_or_default();
        let call_id = tool.and_then(|t| t.id.clone()).unwrap_or_else(|| format!("call_{}_{index}", self.id));
        let id = match kind {
            ChunkKind::ToolCall => call_id.clone(),
            ChunkKind::Reasoning => format!("rs_{}_{index}", self.id),
            ChunkKind::Content => format!("msg_{}_{index}", self.id),
        };
        self.open = Some(Open { kind, index, id: id.clone(), text: String::new(), name: name.clone() });
        match (self.wire, kind) {
            (Wire::Responses, ChunkKind::Content) => {
                let item = json!({"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []});
                self.responses_event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": item}),
                ) + &self.responses_event(
                    "response.content_part.added",
                    json!({"item_id": id, "output_index": index, "content_index": 0,
                            "part": {"type": "output_text", "text": "", "annotations": []}}),
                )
            }
            (Wire::Responses, ChunkKind::Reasoning) => {
                let item = json!({"id": id, "type": "reasoning", "summary": []});
                self.responses_event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": item}),
                ) + &self.responses_event(
                    "response.reasoning_summary_part.added",
                    json!({"item_id": id, "output_index": index, "summary_index": 0,
                            "part": {"type": "summary_text", "text": ""}}),
                )
            }
            (Wire::Responses, ChunkKind::ToolCall) => {
                let item = json!({"id": format!("fc_{}_{index}", self.id), "type": "function_call",
                    "status": "in_progress", "arguments": "", "call_id": call_id, "name": name});
                self.responses_event(
                    "response.output_item.added",
                    json!({"output_index": index, "item": item}),
                )
            }
            (Wire::Anthropic, _) => {
                let block = match kind {
                    ChunkKind::Content => json!({"type": "text", "text": ""}),
                    ChunkKind::Reasoning => json!({"type": "thinking", "thinking": ""}),
                    ChunkKind::ToolCall => {
                        json!({"type": "tool_use", "id": call_id, "name": name, "input": {}})
                    }
                };
                sse(
                    Some("content_block_start"),
                    &json!({"type": "content_block_start", "index": index, "content_block": block}),
                )
            }
            (Wire::UiStream, ChunkKind::Content) => sse(None, &json!({"type": "text-start", "id": id})),
            (Wire::UiStream, ChunkKind::Reasoning) => {
                sse(None, &json!({"type": "reasoning-start", "id": id}))
            }
            (Wire::UiStream, ChunkKind::ToolCall) => {
                sse(None, &json!({"type": "tool-input-start", "toolCallId": id, "toolName": name}))
            }
            (Wire::DataStream, ChunkKind::ToolCall) => {
                format!("b:{}\n", json!({"toolCallId": id, "toolName": name}))
            }
            _ => String::new(),
        }
    }

    /// The event carrying one piece.
    fn delta(&self, kind: ChunkKind, text: &str, tool: Option<&ToolCallRef>) -> String {
        let Some(o) = self.open.as_ref() else { return String::new() };
        let (id, index) = (&o.id, o.index);
        match (self.wire, kind) {
            (Wire::Responses, ChunkKind::Content) => self.responses_event(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": text, "logprobs": []}),
            ),
            (Wire::Responses, ChunkKind::Reasoning) => self.responses_event(
                "response.reasoning_summary_text.delta",
                json!({"item_id": id, "output_index": index, "summary_index": 0, "delta": text}),
            ),
            (Wire::Responses, ChunkKind::ToolCall) => self.responses_event(
                "response.function_call_arguments.delta",
                json!({"item_id": format!("fc_{}_{index}", self.id), "output_index": index, "delta": text}),
            ),
            (Wire::Anthropic, _) => {
                let delta = match kind {
                    ChunkKind::Content => json!({"type": "text_delta", "text": text}),
                    ChunkKind::Reasoning => json!({"type": "thinking_delta", "thinking": text}),
                    ChunkKind::ToolCall => json!({"type": "input_json_delta", "partial_json": text}),
                };
                sse(Some("content_block_delta"), &json!({"type": "content_block_delta", "index": index, "delta": delta}))
            }
            (Wire::Gemini, _) => {
                let part = match kind {
                    ChunkKind::Content => json!({"text": text}),
                    ChunkKind::Reasoning => json!({"text": text, "thought": true}),
                    // Gemini sends a call whole: its arguments as one object.
                    ChunkKind::ToolCall => {
                        let args = serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!({}));
                        json!({"functionCall": {"name": tool.and_then(|t| t.name.clone()).unwrap_or_else(|| o.name.clone()), "args": args}})
                    }
                };
                sse(None, &self.gemini(json!([part]), None, None))
            }
            (Wire::Ollama, _) => {
                let message = match kind {
                    ChunkKind::Content => json!({"role": "assistant", "content": text}),
                    ChunkKind::Reasoning => json!({"role": "assistant", "content": "", "thinking": text}),
                    ChunkKind::ToolCall => {
                        let args = serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!({}));
                        json!({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": o.name, "arguments": args}}]})
                    }
                };
                self.ollama(message, json!({"done": false}))
            }
            (Wire::UiStream, ChunkKind::Content) => sse(None, &json!({"type": "text-delta", "id": id, "delta": text})),
            (Wire::UiStream, ChunkKind::Reasoning) => {
                sse(None, &json!({"type": "reasoning-delta", "id": id, "delta": text}))
            }
            (Wire::UiStream, ChunkKind::ToolCall) => {
                sse(None, &json!({"type": "tool-input-delta", "toolCallId": id, "inputTextDelta": text}))
            }
            (Wire::DataStream, ChunkKind::Content) => format!("0:{}\n", Value::from(text)),
            (Wire::DataStream, ChunkKind::Reasoning) => format!("g:{}\n", Value::from(text)),
            (Wire::DataStream, ChunkKind::ToolCall) => {
                format!("c:{}\n", json!({"toolCallId": id, "argsTextDelta": text}))
            }
            (Wire::Text, ChunkKind::Content) => text.to_owned(),
            // Chat is written by `openai::encode`; plain text carries only the answer.
            _ => String::new(),
        }
    }

    /// Closes the open block, item or part.
    fn close(&mut self) -> String {
        let Some(o) = self.open.take() else { return String::new() };
        let (id, index, text) = (o.id.as_str(), o.index, o.text.as_str());
        match (self.wire, o.kind) {
            (Wire::Responses, ChunkKind::Content) => {
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                let item = json!({"id": id, "type": "message", "role": "assistant", "status": "completed", "content": [part]});
                let out = self.responses_event(
                    "response.output_text.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "text": text, "logprobs": []}),
                ) + &self.responses_event(
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
                ) + &self.responses_event("response.output_item.done", json!({"output_index": index, "item": item}));
                self.done.push(item);
                out
            }
            (Wire::Responses, ChunkKind::Reasoning) => {
                let part = json!({"type": "summary_text", "text": text});
                let item = json!({"id": id, "type": "reasoning", "summary": [part]});
                let out = self.responses_event(
                    "response.reasoning_summary_text.done",
                    json!({"item_id": id, "output_index": index, "summary_index": 0, "text": text}),
                ) + &self.responses_event(
                    "response.reasoning_summary_part.done",
                    json!({"item_id": id, "output_index": index, "summary_index": 0, "part": part}),
                ) + &self.responses_event(
                    "response.output_item.done",
                    json!({"output_index": index, "item": item}),
                );
                self.done.push(item);
                out
            }
            (Wire::Responses, ChunkKind::ToolCall) => {
                let fc = format!("fc_{}_{index}", self.id);
                let item = json!({"id": fc, "type": "function_call", "status": "completed", "arguments": text,
                    "call_id": id, "name": o.name});
                let out = self.responses_event(
                    "response.function_call_arguments.done",
                    json!({"item_id": fc, "output_index": index, "name": o.name, "arguments": text}),
                ) + &self.responses_event(
                    "response.output_item.done",
                    json!({"output_index": index, "item": item}),
                );
                self.done.push(item);
                out
            }
            (Wire::Anthropic, _) => {
                sse(Some("content_block_stop"), &json!({"type": "content_block_stop", "index": index}))
            }
            (Wire::UiStream, ChunkKind::Content) => sse(None, &json!({"type": "text-end", "id": id})),
            (Wire::UiStream, ChunkKind::Reasoning) => sse(None, &json!({"type": "reasoning-end", "id": id})),
            (Wire::UiStream, ChunkKind::ToolCall) => {
                let input = serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!({}));
                sse(
                    None,
                    &json!({"type": "tool-input-available", "toolCallId": id, "toolName": o.name, "input": input}),
                )
            }
            (Wire::DataStream, ChunkKind::ToolCall) => {
                let args = serde_json::from_str::<Value>(text).unwrap_or_else(|_| json!({}));
                format!("9:{}\n", json!({"toolCallId": id, "toolName": o.name, "args": args}))
            }
            _ => String::new(),
        }
    }

    fn created_at(&self) -> String {
        rfc3339(self.created)
    }

    fn gemini(&self, parts: Value, finish: Option<&str>, usage: Option<Value>) -> Value {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if let Some(f) = finish {
            candidate["finishReason"] = json!(f);
        }
        let mut v = json!({"candidates": [candidate], "modelVersion": self.model, "responseId": self.id});
        if let Some(u) = usage {
            v["usageMetadata"] = u;
        }
        v
    }

    /// The closing events: the open block closed, the finish reason, the
    /// usage and the wire's end.
    pub fn tail(&mut self, finish: Finish, t: Totals) -> String {
        let mut out = self.close();
        let answer = t.completion.saturating_sub(t.reasoning);
        let word = |stop: &'static str, length: &'static str, tools: &'static str| match finish {
            Finish::Stop => stop,
            Finish::Length => length,
            Finish::ToolCalls => tools,
        };
        match self.wire {
            Wire::Responses => {
                let usage = json!({"input_tokens": t.prompt, "input_tokens_details": {"cached_tokens": t.cached},
                    "output_tokens": t.completion, "output_tokens_details": {"reasoning_tokens": t.reasoning},
                    "total_tokens": t.prompt + t.completion});
                let output = Value::from(std::mem::take(&mut self.done));
                let (kind, status, incomplete) = match finish {
                    Finish::Length => {
                        ("response.incomplete", "incomplete", json!({"reason": "max_output_tokens"}))
                    }
                    _ => ("response.completed", "completed", Value::Null),
                };
                let r = self.response(status, output, usage, incomplete);
                out.push_str(&self.responses_event(kind, json!({ "response": r })));
            }
            Wire::Anthropic => {
                let delta =
                    json!({"stop_reason": word("end_turn", "max_tokens", "tool_use"), "stop_sequence": null});
                out.push_str(&sse(
                    Some("message_delta"),
                    &json!({"type": "message_delta", "delta": delta, "usage": {"output_tokens": t.completion}}),
                ));
                out.push_str(&sse(Some("message_stop"), &json!({"type": "message_stop"})));
            }
            Wire::Gemini => {
                let mut usage = json!({"promptTokenCount": t.prompt, "candidatesTokenCount": answer,
                    "totalTokenCount": t.prompt + t.completion});
                if t.cached > 0 {
                    usage["cachedContentTokenCount"] = json!(t.cached);
                }
                if t.reasoning > 0 {
                    usage["thoughtsTokenCount"] = json!(t.reasoning);
                }
                let v =
                    self.gemini(json!([{"text": ""}]), Some(word("STOP", "MAX_TOKENS", "STOP")), Some(usage));
                out.push_str(&sse(None, &v));
            }
            Wire::Ollama => {
                let ns = |ms: f64| (ms.max(0.0) * 1e6).round() as u64;
                out.push_str(&self.ollama(
                    json!({"role": "assistant", "content": ""}),
                    json!({"done": true, "done_reason": word("stop", "length", "stop"),
                        "total_duration": ns(t.last_ms), "load_duration": 0,
                        "prompt_eval_count": t.prompt - t.cached.min(t.prompt),
                        "prompt_eval_duration": ns(t.first_ms), "eval_count": t.completion,
                        "eval_duration": ns(t.last_ms - t.first_ms)}),
                ));
            }
            Wire::UiStream => {
                out.push_str(&sse(None, &json!({"type": "finish-step"})));
                out.push_str(&sse(None, &json!({"type": "finish"})));
                out.push_str("data: [DONE]\n\n");
            }
            Wire::DataStream => {
                let reason = word("stop", "length", "tool-calls");
                let usage = json!({"promptTokens": t.prompt, "completionTokens": t.completion});
                out.push_str(&format!(
                    "e:{}\n",
                    json!({"finishReason": reason, "usage": usage, "isContinued": false})
                ));
                out.push_str(&format!("d:{}\n", json!({"finishReason": reason, "usage": usage})));
            }
            Wire::Chat | Wire::Text => {}
        }
        out
    }

    /// A whole response, not streamed: the answer `text`, why it ended, the
    /// counts (`None` for the wires that only stream).
    pub fn whole(&self, text: &str, finish: Finish, t: Totals) -> Option<String> {
        let word = |stop: &'static str, length: &'static str, tools: &'static str| match finish {
            Finish::Stop => stop,
            Finish::Length => length,
            Finish::ToolCalls => tools,
        };
        Some(match self.wire {
            Wire::Responses => {
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                let item = json!({"id": format!("msg_{}", self.id), "type": "message", "role": "assistant",
                    "status": "completed", "content": [part]});
                let usage = json!({"input_tokens": t.prompt, "input_tokens_details": {"cached_tokens": t.cached},
                    "output_tokens": t.completion, "output_tokens_details": {"reasoning_tokens": t.reasoning},
                    "total_tokens": t.prompt + t.completion});
                let (status, incomplete) = match finish {
                    Finish::Length => ("incomplete", json!({"reason": "max_output_tokens"})),
                    _ => ("completed", Value::Null),
                };
                self.response(status, json!([item]), usage, incomplete).to_string()
            }
            Wire::Anthropic => json!({"id": self.id, "type": "message", "role": "assistant", "model": self.model,
                "content": [{"type": "text", "text": text}], "stop_reason": word("end_turn", "max_tokens", "tool_use"),
                "stop_sequence": null, "usage": {"input_tokens": t.prompt - t.cached.min(t.prompt),
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": t.cached, "output_tokens": t.completion}})
            .to_string(),
            Wire::Gemini => {
                let mut usage = json!({"promptTokenCount": t.prompt,
                    "candidatesTokenCount": t.completion.saturating_sub(t.reasoning), "totalTokenCount": t.prompt + t.completion});
                if t.cached > 0 {
                    usage["cachedContentTokenCount"] = json!(t.cached);
                }
                self.gemini(json!([{"text": text}]), Some(word("STOP", "MAX_TOKENS", "STOP")), Some(usage)).to_string()
            }
            Wire::Ollama => {
                let ns = |ms: f64| (ms.max(0.0) * 1e6).round() as u64;
                self.ollama(
                    json!({"role": "assistant", "content": text}),
                    json!({"done": true, "done_reason": word("stop", "length", "stop"), "total_duration": ns(t.last_ms),
                        "load_duration": 0, "prompt_eval_count": t.prompt - t.cached.min(t.prompt),
                        "prompt_eval_duration": ns(t.first_ms), "eval_count": t.completion,
                        "eval_duration": ns(t.last_ms - t.first_ms)}),
                )
                .trim_end()
                .to_owned()
            }
            Wire::Chat | Wire::UiStream | Wire::DataStream | Wire::Text => return None,
        })
    }

    /// An error body of an HTTP error, as the wire's SDKs read one.
    pub fn error_body(wire: Wire, status: u16, kind: &str, message: &str) -> String {
        match wire {
            Wire::Anthropic => {
                json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
            }
            Wire::Gemini => {
                json!({"error": {"code": status, "message": message, "status": kind.to_uppercase()}})
                    .to_string()
            }
            Wire::Ollama => json!({ "error": message }).to_string(),
            _ => crate::stream::openai::encode::error_body(message, kind, status),
        }
    }

    /// An error reported inside the stream, as the wire reports one.
    pub fn error(&self, message: &str, kind: &str) -> String {
        match self.wire {
            Wire::Responses => {
                self.responses_event("error", json!({"code": kind, "message": message, "param": null}))
            }
            Wire::Anthropic => {
                sse(Some("error"), &json!({"type": "error", "error": {"type": kind, "message": message}}))
            }
            Wire::Gemini => {
                sse(None, &json!({"error": {"code": 500, "message": message, "status": "INTERNAL"}}))
            }
            Wire::Ollama => format!("{}\n", json!({ "error": message })),
            Wire::UiStream => sse(None, &json!({"type": "error", "errorText": message})),
            Wire::DataStream => format!("3:{}\n", Value::from(message)),
            Wire::Chat | Wire::Text => String::new(),
        }
    }
}

/// `secs` (Unix seconds) as RFC 3339 UTC, as Ollama's `created_at` has it
/// (the civil date from days since 1970 by Hinnant's `civil_from_days`).
fn rfc3339(secs: u64) -> String {
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let (year, month, day) = crate::trace::dates::civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::record::{Recorder, StreamEnd};
    use crate::stream::wire::WIRES;
    use crate::trace::tool_calls;

    /// Reasoning, an answer in three pieces, then a call in two: written in
    /// every wire, read back by the lab's own decoder.
    #[test]
    fn every_wire_written_reads_back_as_written() {
        for wire in WIRES.into_iter().filter(|w| *w != Wire::Chat) {
            let mut e = WireEncoder::new(wire, "r1", "m", 1_796_515_200);
            let mut body = e.head(40, 32);
            let call = ToolCallRef { index: 0, id: Some("call_1".into()), name: Some("get_weather".into()) };
            let pieces: [(ChunkKind, &str, Option<&ToolCallRef>); 7] = [
                (ChunkKind::Reasoning, "Let me ", None),
                (ChunkKind::Reasoning, "see.", None),
                (ChunkKind::Content, "He said \"", None),
                (ChunkKind::Content, "hi\"\n", None),
                (ChunkKind::Content, "— 你好 🙂", None),
                (ChunkKind::ToolCall, "{\"city\":", Some(&call)),
                (ChunkKind::ToolCall, "\"Paris\"}", Some(&ToolCallRef { index: 0, id: None, name: None })),
            ];
            let mut reads = Vec::new();
            for (kind, text, tool) in &pieces[..5] {
                reads.push(e.piece(*kind, text, *tool));
            }
            if wire.whole_calls() {
                reads.push(e.piece(ChunkKind::ToolCall, "{\"city\":\"Paris\"}", Some(&call)));
            } else {
                for (kind, text, tool) in &pieces[5..] {
                    reads.push(e.piece(*kind, text, *tool));
                }
            }
            let totals =
                Totals { prompt: 40, cached: 32, completion: 7, reasoning: 2, first_ms: 5.0, last_ms: 9.0 };
            let tail = e.tail(Finish::ToolCalls, totals);
            let mut r = Recorder::with_wire(0.0, wire);
            r.on_headers(0.0, 200);
            body.push_str(&reads.concat());
            body.push_str(&tail);
            r.on_bytes(1.0, body.as_bytes());
            let t = r.finish(2.0, StreamEnd::Closed);
            let name = wire.name();
            assert_eq!(t.failure, None, "{name}: {body}");
            let answer: String =
                t.chunks.iter().filter(|c| c.kind == ChunkKind::Content).map(|c| c.text.as_str()).collect();
            assert_eq!(answer, "He said \"hi\"\n— 你好 🙂", "{name}");
            if wire == Wire::Text {
                continue;
            }
            let reasoning: String =
                t.chunks.iter().filter(|c| c.kind == ChunkKind::Reasoning).map(|c| c.text.as_str()).collect();
            assert_eq!(reasoning, "Let me see.", "{name}");
            let calls = tool_calls(&t);
            assert_eq!(calls.len(), 1, "{name}: {calls:?}");
            assert_eq!((calls[0].name.as_str(), calls[0].valid_json), ("get_weather", true), "{name}");
            if wire == Wire::UiStream {
                // The protocol carries no usage (a page may put it in its metadata; the lab does not).
                assert_eq!(t.usage, None);
                continue;
            }
            let u = t.usage.unwrap_or_default();
            let expected_prompt = if wire == Wire::Ollama { 8 } else { 40 };
            assert_eq!(u.prompt_tokens, Some(expected_prompt), "{name}");
            assert_eq!(u.completion_tokens, Some(7), "{name}");
            let cached = match wire {
                Wire::Responses | Wire::Anthropic | Wire::Gemini => Some(32),
                _ => None,
            };
            assert_eq!(u.cached_tokens, cached, "{name}");
        }
    }

    #[test]
    fn a_length_finish_and_an_error_are_said_as_each_wire_says_them() {
        for wire in WIRES.into_iter().filter(|w| !matches!(w, Wire::Chat | Wire::Text)) {
            let mut e = WireEncoder::new(wire, "r1", "m", 0);
            let body = e.head(3, 0)
                + &e.piece(ChunkKind::Content, "Hi", None)
                + &e.error("Overloaded", "overloaded_error");
            let mut r = Recorder::with_wire(0.0, wire);
            r.on_bytes(1.0, body.as_bytes());
            let t = r.finish(2.0, StreamEnd::Closed);
            let f = t.failure.expect("failed");
            assert_eq!(f.kind, crate::trace::FailureKind::Server, "{}", wire.name());
            assert!(f.message.contains("Overloaded"), "{}: {}", wire.name(), f.message);
            let mut e = WireEncoder::new(wire, "r1", "m", 0);
            let body = e.head(3, 0)
                + &e.piece(ChunkKind::Content, "Hi", None)
                + &e.tail(Finish::Length, Totals::default());
            let mut r = Recorder::with_wire(0.0, wire);
            r.on_bytes(1.0, body.as_bytes());
            let reason = r.finish_reason().map(str::to_owned);
            assert_eq!(r.finish(2.0, StreamEnd::Closed).failure, None, "{}", wire.name());
            let said = ["max_output_tokens", "max_tokens", "MAX_TOKENS", "length"];
            assert!(
                reason.as_deref().is_some_and(|r| said.contains(&r)) || wire == Wire::UiStream,
                "{}: {reason:?}",
                wire.name()
            );
        }
    }

    #[test]
    fn ollama_dates_its_lines() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_515_200), "2026-12-06T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 3_661), "2000-02-29T01:01:01Z");
    }
}
