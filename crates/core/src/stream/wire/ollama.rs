//! Ollama's native API (`POST /api/chat`, `POST /api/generate`): one JSON
//! object per line (`application/x-ndjson`).
//! - `message.content` (chat) or `response` (generate) is answer text,
//!   `message.thinking` / `thinking` reasoning, `message.tool_calls[]` whole
//!   calls (`function.name`, `function.arguments` as an object), each one
//!   fragment holding its arguments as JSON. A line with none of them that
//!   is not the last is a token whose text is still empty.
//! - The last line has `"done": true`, `done_reason` (`stop`, `length`,
//!   `load`, …), `prompt_eval_count` (prompt tokens evaluated: a prompt
//!   Ollama found in its cache counts less), `eval_count` (output tokens)
//!   and Ollama's own durations in nanoseconds.
//! - `{"error": "…"}` is the server's error.

use serde_json::Value;

use crate::stream::openai::{DecodeError, api_error};
use crate::stream::wire::{Delta, Message, WireDecoder, count, no_usage, object, str_of};
use crate::trace::Usage;

/// Decodes one line.
pub fn decode(d: &mut WireDecoder, line: &str) -> Result<Message, DecodeError> {
    let o = Value::Object(object(line)?);
    let mut m = Message { model: str_of(&o, "model").map(str::to_owned), ..Message::default() };
    if let Some(e) = api_error(&o) {
        m.error = Some(e);
        return Ok(m);
    }
    let msg = o.get("message");
    let field = |k: &str, generate: &str| msg.and_then(|x| str_of(x, k)).or_else(|| str_of(&o, generate));
    if let Some(t) = field("thinking", "thinking").filter(|t| !t.is_empty()) {
        m.deltas.push(Delta::reasoning(t));
    }
    if let Some(t) = field("content", "response").filter(|t| !t.is_empty()) {
        m.deltas.push(Delta::answer(t));
    }
    let calls = msg.and_then(|x| x.get("tool_calls")).and_then(Value::as_array);
    for c in calls.into_iter().flatten() {
        let f = c.get("function").unwrap_or(c);
        let key = format!("call:{}", d.calls.len());
        let call = d.open_call(&key, str_of(c, "id"), str_of(f, "name"));
        m.deltas.push(Delta::tool(call, f.get("arguments").map_or_else(String::new, Value::to_string)));
    }
    let done = o.get("done").and_then(Value::as_bool) == Some(true);
    if done {
        m.end = true;
        m.finish = Some(str_of(&o, "done_reason").unwrap_or("stop").to_owned());
        m.usage = Some(Usage {
            prompt_tokens: count(&o, "prompt_eval_count"),
            completion_tokens: count(&o, "eval_count"),
            ..no_usage()
        });
    } else if m.deltas.is_empty() && (msg.is_some() || o.get("response").is_some()) {
        m.deltas.push(Delta::answer(""));
    }
    Ok(m)
}
