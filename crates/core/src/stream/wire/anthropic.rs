//! Anthropic Messages events (`POST /v1/messages`, `"stream": true`):
//! - `message_start`: the model and the first usage (`input_tokens`, which
//!   leaves out cached prompt tokens, `cache_read_input_tokens`,
//!   `cache_creation_input_tokens`): the lab's prompt tokens are their sum,
//!   its cached tokens the cache reads;
//! - `content_block_start`: a `tool_use` block opens a call (`id`, `name`),
//!   keyed by the block's `index`;
//! - `content_block_delta`: `text_delta` (`text`) is answer text,
//!   `thinking_delta` (`thinking`) reasoning, `input_json_delta`
//!   (`partial_json`) a piece of the block's call; `signature_delta` carries
//!   no text;
//! - `message_delta`: `delta.stop_reason` (`end_turn`, `max_tokens`,
//!   `tool_use`, `stop_sequence`, …) and the output tokens so far;
//! - `message_stop` ends the answer; `error` (`error.type`, `.message`,
//!   e.g. `overloaded_error`) is the server's error; `ping` keeps the
//!   connection alive.
//!
//! Thinking tokens are inside `output_tokens`; the API does not count them
//! apart, so reasoning tokens stay unknown.

use serde_json::Value;

use crate::stream::openai::{ApiError, DecodeError};
use crate::stream::wire::{Delta, Message, WireDecoder, count, no_usage, object, str_of};
use crate::trace::Usage;

/// Decodes one event.
pub fn decode(d: &mut WireDecoder, event: Option<&str>, data: &str) -> Result<Message, DecodeError> {
    let o = Value::Object(object(data)?);
    let kind = str_of(&o, "type").or(event).unwrap_or("");
    let block = || format!("block:{}", count(&o, "index").unwrap_or(0));
    let mut m = Message::default();
    match kind {
        "message_start" => {
            let msg = o.get("message").unwrap_or(&Value::Null);
            m.model = str_of(msg, "model").map(str::to_owned);
            m.usage = msg.get("usage").map(usage);
        }
        "content_block_start" => {
            let b = o.get("content_block").unwrap_or(&Value::Null);
            if matches!(str_of(b, "type"), Some("tool_use" | "server_tool_use")) {
                let call = d.open_call(&block(), str_of(b, "id"), str_of(b, "name"));
                m.deltas.push(Delta::tool(call, ""));
            }
        }
        "content_block_delta" => {
            let delta = o.get("delta").unwrap_or(&Value::Null);
            let text = |k: &str| str_of(delta, k).unwrap_or("").to_owned();
            match str_of(delta, "type") {
                Some("text_delta") => m.deltas.push(Delta::answer(text("text"))),
                Some("thinking_delta") => m.deltas.push(Delta::reasoning(text("thinking"))),
                Some("input_json_delta") => {
                    let call = d.call(&block());
                    m.deltas.push(Delta::tool(call, text("partial_json")));
                }
                _ => {}
            }
        }
        "message_delta" => {
            m.finish = o.get("delta").and_then(|x| str_of(x, "stop_reason")).map(str::to_owned);
            m.usage = o.get("usage").map(usage);
        }
        "message_stop" => m.end = true,
        "error" => {
            let e = o.get("error").unwrap_or(&Value::Null);
            m.error = Some(ApiError {
                message: str_of(e, "message").unwrap_or("the server reported an error").to_owned(),
                kind: str_of(e, "type").map(str::to_owned),
                code: None,
            });
        }
        _ => {}
    }
    Ok(m)
}

fn usage(u: &Value) -> Usage {
    let input = count(u, "input_tokens");
    let read = count(u, "cache_read_input_tokens");
    let created = count(u, "cache_creation_input_tokens");
    Usage {
        prompt_tokens: input.map(|i| i + read.unwrap_or(0) + created.unwrap_or(0)),
        completion_tokens: count(u, "output_tokens"),
        cached_tokens: read,
        ..no_usage()
    }
}
