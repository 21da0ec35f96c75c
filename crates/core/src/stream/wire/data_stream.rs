//! The Vercel AI SDK's data stream (AI SDK 4, `toDataStreamResponse`,
//! header `x-vercel-ai-data-stream: v1`): one part per line, `code:JSON`.
//! - `0:"…"` answer text, `g:"…"` reasoning;
//! - `b:` (`toolCallId`, `toolName`) opens a streamed call, `c:`
//!   (`argsTextDelta`) adds to it, `9:` (`args`) is a whole call (read
//!   only when it was not streamed);
//! - `e:` ends a step and `d:` the message, each with `finishReason` and
//!   `usage` (`promptTokens`, `completionTokens`); `d:` is the end;
//! - `3:"…"` is the server's error;
//! - `f:` (start of a step), `2:` (data), `8:` (annotations), `a:` (a tool's
//!   result), `h:` (sources), `i:`/`j:` (redacted reasoning, signatures) and
//!   `k:` (files) carry nothing the lab measures.

use serde_json::Value;

use crate::stream::openai::{ApiError, DecodeError, snippet};
use crate::stream::wire::{Delta, Message, WireDecoder, str_of, ui_stream};

/// Decodes one line.
pub fn decode(d: &mut WireDecoder, line: &str) -> Result<Message, DecodeError> {
    let line = line.trim();
    let Some((code, json)) = line.split_once(':').filter(|(c, _)| c.len() == 1) else {
        return Err(DecodeError::Json {
            message: "a data stream line is a one-character code, a colon and JSON".into(),
            snippet: snippet(line),
        });
    };
    let v: Value = serde_json::from_str(json).map_err(|e| DecodeError::Json {
        message: crate::trace::json_error::plain(&e),
        snippet: snippet(line),
    })?;
    let text = || v.as_str().unwrap_or("").to_owned();
    let id = str_of(&v, "toolCallId").unwrap_or("");
    let mut m = Message::default();
    match code {
        "0" => m.deltas.push(Delta::answer(text())),
        "g" => m.deltas.push(Delta::reasoning(text())),
        "b" => {
            let call = d.open_call(id, Some(id), str_of(&v, "toolName"));
            m.deltas.push(Delta::tool(call, ""));
        }
        "c" => {
            let call = d.call(id);
            m.deltas.push(Delta::tool(call, str_of(&v, "argsTextDelta").unwrap_or("")));
        }
        "9" if !d.is_call(id) => {
            let call = d.open_call(id, Some(id), str_of(&v, "toolName"));
            m.deltas.push(Delta::tool(call, v.get("args").map_or_else(String::new, Value::to_string)));
        }
        "e" | "d" => {
            m.finish = str_of(&v, "finishReason").map(str::to_owned);
            m.usage = v.get("usage").map(ui_stream::usage);
            m.end = code == "d";
        }
        "3" => m.error = Some(ApiError { message: text(), ..ApiError::default() }),
        _ => {}
    }
    Ok(m)
}
