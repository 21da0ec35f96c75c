//! Google Gemini (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`):
//! every `data:` payload is a whole `GenerateContentResponse`.
//! - `candidates[0].content.parts[]`: a part with `text` is answer text, or
//!   reasoning when it has `"thought": true`; a `functionCall` part is a
//!   whole call (`name`, `args`, sometimes `id`), recorded as one fragment
//!   holding its arguments as JSON. Each part is one delta; an empty text
//!   part (the last chunk often has one beside its finish reason) is none.
//! - `candidates[0].finishReason` (`STOP`, `MAX_TOKENS`, `SAFETY`, …) ends
//!   the answer; the stream has no end marker of its own, so it is complete
//!   when a finish reason came and the body closed cleanly.
//! - `usageMetadata`: `promptTokenCount` (cached tokens included),
//!   `cachedContentTokenCount`, `candidatesTokenCount` (the answer, thoughts
//!   left out) and `thoughtsTokenCount`: the lab's output tokens are
//!   candidates + thoughts, its reasoning tokens the thoughts.
//! - `modelVersion` names the model; `{"error": {code, message, status}}` is
//!   the server's error, and a prompt refused before any answer
//!   (`promptFeedback.blockReason`) is one too.

use serde_json::Value;

use crate::stream::openai::{ApiError, DecodeError, api_error};
use crate::stream::wire::{Delta, Message, WireDecoder, count, object, str_of};
use crate::trace::Usage;

/// Decodes one payload.
pub fn decode(d: &mut WireDecoder, data: &str) -> Result<Message, DecodeError> {
    let o = Value::Object(object(data)?);
    let mut m = Message { model: str_of(&o, "modelVersion").map(str::to_owned), ..Message::default() };
    if let Some(mut e) = api_error(&o) {
        if let Some(status) = o.get("error").and_then(|e| str_of(e, "status")) {
            e.kind = Some(status.to_owned());
        }
        m.error = Some(e);
        return Ok(m);
    }
    m.usage = o.get("usageMetadata").map(|u| {
        let thoughts = count(u, "thoughtsTokenCount");
        Usage {
            prompt_tokens: count(u, "promptTokenCount"),
            completion_tokens: count(u, "candidatesTokenCount").map(|c| c + thoughts.unwrap_or(0)),
            cached_tokens: count(u, "cachedContentTokenCount"),
            reasoning_tokens: thoughts,
        }
    });
    let candidate = o.get("candidates").and_then(Value::as_array).and_then(|c| c.first());
    if let Some(reason) = o.get("promptFeedback").and_then(|f| str_of(f, "blockReason"))
        && candidate.is_none()
    {
        m.error = Some(ApiError {
            message: format!("the prompt was blocked ({reason})"),
            kind: Some("promptFeedback".into()),
            code: None,
        });
        return Ok(m);
    }
    if let Some(c) = candidate {
        let parts = c.get("content").and_then(|x| x.get("parts")).and_then(Value::as_array);
        for p in parts.into_iter().flatten() {
            if let Some(f) = p.get("functionCall") {
                let key = format!("call:{}", d.calls.len());
                let call = d.open_call(&key, str_of(f, "id"), str_of(f, "name"));
                let args = f.get("args").map_or_else(String::new, Value::to_string);
                m.deltas.push(Delta::tool(call, args));
            } else if let Some(text) = str_of(p, "text").filter(|t| !t.is_empty()) {
                let thought = p.get("thought").and_then(Value::as_bool) == Some(true);
                m.deltas.push(if thought { Delta::reasoning(text) } else { Delta::answer(text) });
            }
        }
        m.finish = str_of(c, "finishReason").filter(|r| *r != "FINISH_REASON_UNSPECIFIED").map(str::to_owned);
    }
    Ok(m)
}
