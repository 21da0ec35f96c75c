//! The Vercel AI SDK's UI message stream (`toUIMessageStreamResponse`,
//! header `x-vercel-ai-ui-message-stream: v1`): SSE `data:` parts, each a
//! JSON object with a `type`, ending with `data: [DONE]`.
//! - `text-delta` (`delta`) is answer text, `reasoning-delta` (`delta`)
//!   reasoning;
//! - `tool-input-start` (`toolCallId`, `toolName`) opens a call,
//!   `tool-input-delta` (`inputTextDelta`) adds to it, and
//!   `tool-input-available` (`input`) gives a call whose input was not
//!   streamed whole;
//! - `finish` ends the answer (`finishReason` where the SDK sends it, else
//!   `stop`); usage is not part of the protocol, but a page that puts the
//!   SDK's usage into `messageMetadata` (`usage` or `totalUsage`:
//!   `inputTokens`, `outputTokens`, `cachedInputTokens`, `reasoningTokens`)
//!   has it read;
//! - `error` (`errorText`) is the server's error, `abort` an answer the
//!   server side stopped;
//! - `start`, `start-step`, `finish-step`, `text-start`/`-end`, sources,
//!   files and `data-*` parts carry nothing the lab measures.

use serde_json::Value;

use crate::stream::openai::{ApiError, DecodeError};
use crate::stream::wire::{Delta, Message, WireDecoder, count, object, str_of};
use crate::trace::Usage;

/// The part types of the protocol (for [`super::detect`]).
const PARTS: [&str; 22] = [
    "start",
    "start-step",
    "text-start",
    "text-delta",
    "text-end",
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "tool-input-start",
    "tool-input-delta",
    "tool-input-available",
    "tool-input-error",
    "tool-output-available",
    "tool-output-error",
    "source-url",
    "source-document",
    "file",
    "message-metadata",
    "finish-step",
    "finish",
    "error",
    "abort",
];

/// True for a type this protocol sends.
pub fn is_part(kind: &str) -> bool {
    PARTS.contains(&kind) || kind.starts_with("data-")
}

/// Decodes one `data:` payload.
pub fn decode(d: &mut WireDecoder, data: &str) -> Result<Message, DecodeError> {
    if data.trim() == "[DONE]" {
        return Ok(Message { end: true, ..Message::default() });
    }
    let o = Value::Object(object(data)?);
    let mut m = Message::default();
    let id = str_of(&o, "toolCallId").unwrap_or("");
    match str_of(&o, "type").unwrap_or("") {
        "text-delta" => m.deltas.push(Delta::answer(str_of(&o, "delta").unwrap_or(""))),
        "reasoning-delta" => m.deltas.push(Delta::reasoning(str_of(&o, "delta").unwrap_or(""))),
        "tool-input-start" => {
            let call = d.open_call(id, Some(id), str_of(&o, "toolName"));
            m.deltas.push(Delta::tool(call, ""));
        }
        "tool-input-delta" => {
            let call = d.call(id);
            m.deltas.push(Delta::tool(call, str_of(&o, "inputTextDelta").unwrap_or("")));
        }
        "tool-input-available" if !d.is_call(id) => {
            let call = d.open_call(id, Some(id), str_of(&o, "toolName"));
            m.deltas.push(Delta::tool(call, o.get("input").map_or_else(String::new, Value::to_string)));
        }
        "finish" => {
            m.finish = Some(str_of(&o, "finishReason").unwrap_or("stop").to_owned());
            m.usage = o
                .get("messageMetadata")
                .and_then(|x| x.get("totalUsage").or_else(|| x.get("usage")))
                .map(usage);
        }
        "message-metadata" => {
            m.usage = o
                .get("messageMetadata")
                .and_then(|x| x.get("totalUsage").or_else(|| x.get("usage")))
                .map(usage);
        }
        "error" => {
            m.error = Some(ApiError {
                message: str_of(&o, "errorText").unwrap_or("the server reported an error").to_owned(),
                ..ApiError::default()
            })
        }
        "abort" => m.aborted = true,
        _ => {}
    }
    Ok(m)
}

/// The AI SDK's `LanguageModelUsage`.
pub(crate) fn usage(u: &Value) -> Usage {
    Usage {
        prompt_tokens: count(u, "inputTokens").or_else(|| count(u, "promptTokens")),
        completion_tokens: count(u, "outputTokens").or_else(|| count(u, "completionTokens")),
        cached_tokens: count(u, "cachedInputTokens"),
        reasoning_tokens: count(u, "reasoningTokens"),
    }
}
