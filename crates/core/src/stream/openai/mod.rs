//! Decoding of OpenAI-compatible streaming chunks (the `data:` payloads of
//! `/v1/chat/completions` and `/v1/completions` with `"stream": true`).
//!
//! What each payload means:
//! - `[DONE]`: the server finished the stream ([`StreamItem::Done`]).
//! - an object with `error` (OpenAI, vLLM, llama.cpp) or with
//!   `"object": "error"` (older vLLM): a server-side failure
//!   ([`StreamItem::Error`]).
//! - otherwise a chunk ([`StreamItem::Chunk`]): text of the first choice,
//!   `choices[0].delta.content` (chat) or `choices[0].text` (completions);
//!   reasoning text from `delta.reasoning_content` (vLLM, DeepSeek) or
//!   `delta.reasoning` (newer vLLM, OpenRouter); the `role` of the usually
//!   role-only first chat chunk; `finish_reason`; and `usage`, which servers
//!   send in a final chunk with empty `choices` when the request asked for
//!   `stream_options.include_usage`.
//! - tool calls: `delta.tool_calls[]` fragments (`index`, on the first one
//!   `id` and `function.name`, then pieces of `function.arguments`), and
//!   the older single `delta.function_call` (read as call 0); see
//!   [`crate::trace::tool`].
//!
//! Only choice index 0 is read: the lab streams one completion per request.
//! An empty delta (`{}` or `""`) is a chunk with no text, never a token.
//!
//! Beside the decoder: [`request`] reads completion requests (as the replay
//! endpoint does) and [`encode`] writes streams (as it sends them).

pub mod encode;
pub mod repair;
pub mod request;

use serde_json::Value;

use crate::trace::{ToolCallRef, Usage};

/// A decoded payload.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// `[DONE]`.
    Done,
    /// A regular chunk.
    Chunk(ChunkData),
    /// The server reported an error inside the stream.
    Error(ApiError),
}

/// The useful content of one chunk.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkData {
    /// Answer text (may be empty).
    pub content: String,
    /// Reasoning text (may be empty).
    pub reasoning: String,
    /// `delta.role`, present on the first chat chunk.
    pub role: Option<String>,
    /// `finish_reason` when the choice ended.
    pub finish_reason: Option<String>,
    /// Token usage, when the chunk carried it.
    pub usage: Option<Usage>,
    /// The `model` field.
    pub model: Option<String>,
    /// True when the chunk had at least one choice.
    pub has_choice: bool,
    /// The choice had a `content` (or `text`) string, possibly empty.
    pub content_present: bool,
    /// Tool-call fragments: which call, and the piece of its arguments.
    pub tool_calls: Vec<(ToolCallRef, String)>,
    /// What had to be repaired to read the payload ([`repair`]).
    pub repaired: Vec<String>,
}

impl ChunkData {
    /// True when the chunk carries generated text.
    pub fn has_text(&self) -> bool {
        !self.content.is_empty() || !self.reasoning.is_empty() || !self.tool_calls.is_empty()
    }

    /// True when the chunk stands for a generated token: it has text, or it
    /// has an *empty* content string without being the role-only opening
    /// chunk or the closing `finish_reason` chunk. Engines such as llama.cpp
    /// send such empty deltas for tokens whose bytes do not yet form a whole
    /// character; they are real tokens (vLLM's client counts them too).
    pub fn is_token(&self) -> bool {
        self.has_text() || (self.content_present && self.role.is_none() && self.finish_reason.is_none())
    }
}

/// An error the server sent (in the stream or as an HTTP error body).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiError {
    /// The human message.
    pub message: String,
    /// `type`, e.g. `invalid_request_error`.
    pub kind: Option<String>,
    /// `code`, stringified.
    pub code: Option<String>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        match (&self.kind, &self.code) {
            (Some(k), Some(c)) => write!(f, " ({k}, code {c})"),
            (Some(k), None) => write!(f, " ({k})"),
            (None, Some(c)) => write!(f, " (code {c})"),
            (None, None) => Ok(()),
        }
    }
}

/// Why a payload could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON (or cut off).
    #[error("stream event is not valid JSON ({message}): {snippet}")]
    Json {
        /// Parser message.
        message: String,
        /// The start of the payload.
        snippet: String,
    },
    /// JSON, but not an object.
    #[error("stream event is JSON but not an object: {snippet}")]
    NotAnObject {
        /// The start of the payload.
        snippet: String,
    },
}

/// Length of payload excerpts quoted in errors.
pub const SNIPPET_CHARS: usize = 120;

/// The first [`SNIPPET_CHARS`] characters of `s`, marked when cut.
pub fn snippet(s: &str) -> String {
    let mut out: String = s.chars().take(SNIPPET_CHARS).collect();
    if s.chars().nth(SNIPPET_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// Decodes one SSE `data` payload.
pub fn decode(data: &str) -> Result<StreamItem, DecodeError> {
    let trimmed = data.trim();
    if trimmed == "[DONE]" {
        return Ok(StreamItem::Done);
    }
    let (value, repaired): (Value, Vec<String>) = match serde_json::from_str(trimmed) {
        Ok(v) => (v, Vec::new()),
        Err(e) => {
            let fixed =
                repair::repair(trimmed).and_then(|r| Some((serde_json::from_str(&r.json).ok()?, r.notes)));
            fixed.ok_or_else(|| DecodeError::Json {
                message: crate::trace::json_error::plain(&e),
                snippet: snippet(trimmed),
            })?
        }
    };
    let Some(obj) = value.as_object() else {
        return Err(DecodeError::NotAnObject { snippet: snippet(trimmed) });
    };
    if let Some(err) = api_error(&value) {
        return Ok(StreamItem::Error(err));
    }
    let mut out = ChunkData {
        model: obj.get("model").and_then(Value::as_str).map(str::to_owned),
        usage: obj.get("usage").and_then(parse_usage),
        repaired,
        ..ChunkData::default()
    };
    let choice = obj
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find(|ch| ch.get("index").and_then(Value::as_u64).unwrap_or(0) == 0));
    if let Some(choice) = choice {
        out.has_choice = true;
        out.finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_owned);
        if let Some(delta) = choice.get("delta") {
            out.content_present = delta.get("content").is_some_and(|c| c.is_string() || c.is_array());
            out.content = text_of(delta.get("content"));
            out.reasoning = text_of(delta.get("reasoning_content"));
            if out.reasoning.is_empty() {
                out.reasoning = text_of(delta.get("reasoning"));
            }
            out.role = delta.get("role").and_then(Value::as_str).map(str::to_owned);
            out.tool_calls = tool_calls_of(delta);
        } else {
            out.content_present = choice.get("text").is_some_and(Value::is_string);
            out.content = text_of(choice.get("text"));
        }
    }
    Ok(StreamItem::Chunk(out))
}

/// The tool-call fragments of a delta.
fn tool_calls_of(delta: &Value) -> Vec<(ToolCallRef, String)> {
    let one = |t: &Value, default_index: u64| {
        let f = t.get("function").unwrap_or(t);
        let index = t.get("index").and_then(Value::as_u64).unwrap_or(default_index);
        let call = ToolCallRef {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            id: t.get("id").and_then(Value::as_str).map(str::to_owned),
            name: f.get("name").and_then(Value::as_str).map(str::to_owned),
        };
        (call, f.get("arguments").and_then(Value::as_str).unwrap_or("").to_owned())
    };
    match (delta.get("tool_calls"), delta.get("function_call")) {
        (Some(Value::Array(calls)), _) => calls.iter().enumerate().map(|(i, t)| one(t, i as u64)).collect(),
        (_, Some(f @ Value::Object(_))) => vec![one(f, 0)],
        _ => Vec::new(),
    }
}

/// Text of a `content` field: a string, or an array of `{type: "text", text}`
/// parts (some servers stream content parts).
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect()
        }
        _ => String::new(),
    }
}

fn parse_usage(v: &Value) -> Option<Usage> {
    let obj = v.as_object()?;
    let get = |k: &str| obj.get(k).and_then(Value::as_u64);
    let cached =
        obj.get("prompt_tokens_details").and_then(|d| d.get("cached_tokens")).and_then(Value::as_u64);
    Some(Usage {
        prompt_tokens: get("prompt_tokens"),
        completion_tokens: get("completion_tokens"),
        cached_tokens: cached,
        reasoning_tokens: obj
            .get("completion_tokens_details")
            .and_then(|d| d.get("reasoning_tokens"))
            .and_then(Value::as_u64),
    })
}

/// Recognises an error object in any of the shapes servers use:
/// `{"error": {"message", "type", "code"}}`, `{"error": "text"}`, or
/// `{"object": "error", "message": ...}`. Returns `None` for anything else.
pub fn api_error(v: &Value) -> Option<ApiError> {
    let obj = v.as_object()?;
    let from = |e: &serde_json::Map<String, Value>| ApiError {
        message: e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("the server reported an error without a message")
            .to_owned(),
        kind: e.get("type").and_then(Value::as_str).map(str::to_owned),
        code: e.get("code").filter(|c| !c.is_null()).map(|c| match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
    };
    match obj.get("error") {
        Some(Value::Object(e)) => Some(from(e)),
        Some(Value::String(s)) => Some(ApiError { message: s.clone(), ..ApiError::default() }),
        _ if obj.get("object").and_then(Value::as_str) == Some("error") => Some(from(obj)),
        _ => None,
    }
}

/// Reads an HTTP error body (JSON error object or plain text) into a message.
pub fn error_from_body(body: &str) -> Option<ApiError> {
    serde_json::from_str::<Value>(body).ok().as_ref().and_then(api_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(s: &str) -> ChunkData {
        match decode(s).unwrap() {
            StreamItem::Chunk(c) => c,
            other => panic!("expected chunk, got {other:?}"),
        }
    }

    #[test]
    fn role_only_first_chunk_has_no_text() {
        let c = chunk(
            r#"{"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
        );
        assert_eq!(c.role.as_deref(), Some("assistant"));
        assert!(!c.has_text() && !c.is_token());
        assert!(c.has_choice);
        assert_eq!(c.model.as_deref(), Some("m"));
    }

    #[test]
    fn content_reasoning_and_finish() {
        let c = chunk(r#"{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#);
        assert_eq!((c.content.as_str(), c.finish_reason.as_deref()), ("Hi", Some("stop")));
        let r = chunk(r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}"#);
        assert_eq!(r.reasoning, "think");
        let r2 = chunk(r#"{"choices":[{"delta":{"reasoning":"hmm","content":null}}]}"#);
        assert_eq!((r2.reasoning.as_str(), r2.content.as_str()), ("hmm", ""));
        let empty = chunk(r#"{"choices":[{"index":0,"delta":{}}]}"#);
        assert!(!empty.has_text() && !empty.is_token());
        let partial = chunk(r#"{"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}"#);
        assert!(!partial.has_text() && partial.is_token(), "half a character is still a token");
        let closing = chunk(r#"{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}"#);
        assert!(!closing.is_token());
    }

    #[test]
    fn completions_text_and_usage_chunk() {
        let c = chunk(r#"{"object":"text_completion","choices":[{"index":0,"text":" world"}]}"#);
        assert_eq!(c.content, " world");
        let u =
            chunk(r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}"#);
        assert!(!u.has_choice);
        assert_eq!(
            u.usage,
            Some(Usage { prompt_tokens: Some(12), completion_tokens: Some(34), ..Usage::default() })
        );
        let u = chunk(
            r#"{"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":32}}}"#,
        );
        assert_eq!(u.usage.unwrap().cached_tokens, Some(32));
    }

    #[test]
    fn only_choice_zero_is_read() {
        let c =
            chunk(r#"{"choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]}"#);
        assert_eq!(c.content, "A");
    }

    #[test]
    fn error_objects_in_all_shapes() {
        let e = decode(r#"{"error":{"message":"boom","type":"server_error","code":500}}"#).unwrap();
        let StreamItem::Error(e) = e else { panic!() };
        assert_eq!(e.to_string(), "boom (server_error, code 500)");
        let e = decode(r#"{"object":"error","message":"bad","type":"BadRequestError","code":400}"#).unwrap();
        assert!(matches!(e, StreamItem::Error(ApiError { ref message, .. }) if message == "bad"));
        assert!(matches!(decode(r#"{"error":"nope"}"#).unwrap(), StreamItem::Error(_)));
        assert_eq!(error_from_body("<html>502</html>"), None);
    }

    #[test]
    fn tool_call_fragments() {
        let first = chunk(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}"#,
        );
        assert_eq!(first.tool_calls.len(), 1);
        let (call, args) = &first.tool_calls[0];
        assert_eq!(
            (call.index, call.id.as_deref(), call.name.as_deref(), args.as_str()),
            (0, Some("call_1"), Some("get_weather"), "")
        );
        assert!(first.has_text() && first.is_token(), "a call's first fragment is a generated token");
        let two = chunk(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}},{"index":1,"function":{"arguments":"{}"}}]}}]}"#,
        );
        assert_eq!(
            two.tool_calls.iter().map(|(c, a)| (c.index, a.as_str())).collect::<Vec<_>>(),
            vec![(0, "{\"a\""), (1, "{}")]
        );
        let legacy =
            chunk(r#"{"choices":[{"index":0,"delta":{"function_call":{"name":"f","arguments":"{"}}}]}"#);
        assert_eq!(legacy.tool_calls[0].0.name.as_deref(), Some("f"));
    }

    #[test]
    fn done_and_malformed() {
        assert_eq!(decode("[DONE]").unwrap(), StreamItem::Done);
        assert_eq!(decode(" [DONE] ").unwrap(), StreamItem::Done);
        assert!(matches!(decode("{\"choices\":[{"), Err(DecodeError::Json { .. })));
        assert!(matches!(decode("42"), Err(DecodeError::NotAnObject { .. })));
        let long = "x".repeat(500);
        let DecodeError::Json { snippet, .. } = decode(&long).unwrap_err() else { panic!() };
        assert_eq!(snippet.chars().count(), SNIPPET_CHARS + 1);
    }
}
