//! OpenAI Responses API events (`POST /v1/responses`, `"stream": true`).
//! Every event is typed (`event:` and the data's `type`):
//! - `response.output_text.delta` and `response.refusal.delta`: answer
//!   text (`delta`);
//! - `response.reasoning_summary_text.delta`, `response.reasoning_text.delta`:
//!   reasoning;
//! - `response.output_item.added` with a `function_call` item opens a tool
//!   call (`call_id`, `name`), keyed by the item's `id`;
//!   `response.function_call_arguments.delta` adds to it (`item_id`);
//! - `response.created` names the model; `response.completed` ends the
//!   answer with its `usage` (`input_tokens`,
//!   `input_tokens_details.cached_tokens`, `output_tokens`,
//!   `output_tokens_details.reasoning_tokens`); `response.incomplete` ends
//!   it early, its finish reason `incomplete_details.reason` (e.g.
//!   `max_output_tokens`);
//! - `response.failed` (`response.error`) and `error` (`code`, `message`,
//!   documented flat, sent nested under `error` too) are the server's
//!   errors. There is no `[DONE]` (one a proxy adds is read as the end).
//!
//! Other events (`response.in_progress`, `.content_part.added`,
//! `.output_text.done`, …) carry nothing the lab measures.

use serde_json::Value;

use crate::stream::openai::{ApiError, DecodeError};
use crate::stream::wire::{Delta, Message, WireDecoder, count, object, str_of};
use crate::trace::Usage;

/// Decodes one event.
pub fn decode(d: &mut WireDecoder, event: Option<&str>, data: &str) -> Result<Message, DecodeError> {
    // The protocol has no `[DONE]`, but the SDKs stop on one: a proxy may add it.
    if data.trim() == "[DONE]" {
        return Ok(Message { end: true, ..Message::default() });
    }
    let o = Value::Object(object(data)?);
    let kind = str_of(&o, "type").or(event).unwrap_or("");
    let delta = || str_of(&o, "delta").unwrap_or("").to_owned();
    let mut m = Message::default();
    match kind {
        "response.output_text.delta" | "response.refusal.delta" => m.deltas.push(Delta::answer(delta())),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
            m.deltas.push(Delta::reasoning(delta()))
        }
        "response.output_item.added" => {
            let item = o.get("item").unwrap_or(&Value::Null);
            if str_of(item, "type") == Some("function_call") {
                let key = str_of(item, "id").or(str_of(item, "call_id")).unwrap_or("");
                let call = d.open_call(key, str_of(item, "call_id"), str_of(item, "name"));
                m.deltas.push(Delta::tool(call, str_of(item, "arguments").unwrap_or("")));
            }
        }
        "response.function_call_arguments.delta" => {
            let key = str_of(&o, "item_id").unwrap_or("");
            let call = d.call(key);
            m.deltas.push(Delta::tool(call, delta()));
        }
        "response.created" | "response.in_progress" => {
            m.model = o.get("response").and_then(|r| str_of(r, "model")).map(str::to_owned);
        }
        "response.completed" | "response.incomplete" => {
            let r = o.get("response").unwrap_or(&Value::Null);
            m.model = str_of(r, "model").map(str::to_owned);
            m.usage = r.get("usage").map(usage);
            m.finish = Some(match r.get("incomplete_details").and_then(|i| str_of(i, "reason")) {
                Some(reason) => reason.to_owned(),
                None => str_of(r, "status").unwrap_or("completed").to_owned(),
            });
            m.end = true;
        }
        "response.failed" => {
            let e = o.get("response").and_then(|r| r.get("error")).unwrap_or(&Value::Null);
            m.error = Some(error(e, "the response failed"));
        }
        // Documented flat (`code`, `message`); seen nested under `error` too.
        "error" => {
            m.error = Some(error(
                o.get("error").filter(|e| e.is_object()).unwrap_or(&o),
                "the server reported an error",
            ))
        }
        _ => {}
    }
    Ok(m)
}

fn error(e: &Value, fallback: &str) -> ApiError {
    ApiError {
        message: str_of(e, "message").unwrap_or(fallback).to_owned(),
        kind: str_of(e, "type").filter(|t| *t != "error").map(str::to_owned),
        code: e
            .get("code")
            .filter(|c| !c.is_null())
            .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned)),
    }
}

fn usage(u: &Value) -> Usage {
    Usage {
        prompt_tokens: count(u, "input_tokens"),
        completion_tokens: count(u, "output_tokens"),
        cached_tokens: u.get("input_tokens_details").and_then(|d| count(d, "cached_tokens")),
        reasoning_tokens: u.get("output_tokens_details").and_then(|d| count(d, "reasoning_tokens")),
    }
}
