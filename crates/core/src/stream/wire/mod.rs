//! # Wires: every way a chat answer streams
//!
//! Products stream answers in more shapes than OpenAI's chat chunks. Each
//! wire the lab reads has one file here, and [`WIRES`] lists them all:
//!
//! | wire | framing | text | reasoning | tool calls | usage | the end |
//! |---|---|---|---|---|---|---|
//! | OpenAI Chat Completions ([`chat`]) | SSE `data:` | `choices[0].delta.content` | `delta.reasoning_content` / `reasoning` | `delta.tool_calls[]` | last chunk's `usage` | `[DONE]` |
//! | OpenAI Responses ([`responses`]) | SSE, typed events | `response.output_text.delta` | `response.reasoning_summary_text.delta`, `response.reasoning_text.delta` | `response.function_call_arguments.delta` | `response.completed`'s `usage` | `response.completed` / `.incomplete` |
//! | Anthropic Messages ([`anthropic`]) | SSE, typed events | `text_delta` | `thinking_delta` | `tool_use` blocks, `input_json_delta` | `message_start` + `message_delta` | `message_stop` |
//! | Google Gemini ([`gemini`]) | SSE `data:` (`alt=sse`) | `parts[].text` | parts with `thought: true` | `parts[].functionCall` (whole) | `usageMetadata` | a `finishReason`, then the close |
//! | Ollama ([`ollama`]) | NDJSON lines | `message.content` / `response` | `message.thinking` / `thinking` | `message.tool_calls` (whole) | `prompt_eval_count`, `eval_count` | `"done": true` |
//! | Vercel AI SDK UI message stream ([`ui_stream`]) | SSE `data:` parts | `text-delta` | `reasoning-delta` | `tool-input-start` / `-delta` / `-available` | — | `finish`, then `[DONE]` |
//! | Vercel AI SDK data stream ([`data_stream`]) | `code:JSON` lines | `0:` | `g:` | `b:` / `c:` / `9:` | `e:` / `d:` | `d:`, or a finish reason, then the close |
//! | Plain text ([`WireDecoder::text`]) | raw bytes | every read | — | — | — | the close |
//!
//! Each framed message becomes a [`Message`]: the [`Delta`]s it carries
//! (one generated token each, as the lab counts tokens from a stream:
//! [`crate::stream::record`]), usage (input, cached, output, reasoning),
//! the finish reason, the wire's own end marker and error events. How a
//! stream ended (complete, cut, malformed) is the recorder's to say, from
//! these.
//!
//! **Which wire.** Named by the caller, or [`detect`]ed from the response:
//! the AI SDK's headers first (`x-vercel-ai-ui-message-stream: v1`,
//! `x-vercel-ai-data-stream: v1`), then the content type (NDJSON is
//! Ollama's; `text/plain` is plain text unless its first line is a data
//! stream part), then the first event of an event stream (its `event:`
//! name or its `type`, `candidates` for Gemini, `choices` for OpenAI Chat).

pub mod anthropic;
pub mod chat;
pub mod data_stream;
mod detect;
pub mod encode;
pub mod gemini;
pub mod ollama;
pub mod request;
pub mod responses;
pub mod ui_stream;

pub use detect::detect;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::stream::openai::{ApiError, DecodeError, snippet};
use crate::trace::{ChunkKind, ToolCallRef, Usage};

/// The wires the lab reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI Chat Completions (and legacy Completions) chunks.
    #[default]
    Chat,
    /// OpenAI Responses API events.
    Responses,
    /// Anthropic Messages events.
    Anthropic,
    /// Google Gemini `streamGenerateContent?alt=sse`.
    Gemini,
    /// Ollama's native `/api/chat` and `/api/generate` (NDJSON).
    Ollama,
    /// The Vercel AI SDK UI message stream (SSE parts).
    UiStream,
    /// The Vercel AI SDK data stream (`code:JSON` lines).
    DataStream,
    /// Plain text, streamed as it is written.
    Text,
}

/// Every wire, in the order lists show them.
pub const WIRES: [Wire; 8] = [
    Wire::Chat,
    Wire::Responses,
    Wire::Anthropic,
    Wire::Gemini,
    Wire::Ollama,
    Wire::UiStream,
    Wire::DataStream,
    Wire::Text,
];

/// How a wire cuts its bytes into messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-Sent Events ([`crate::stream::sse`]).
    Sse,
    /// One message per line (NDJSON, the data stream's `code:JSON`).
    Lines,
    /// No messages: every read is text.
    Raw,
}

impl Wire {
    /// Its name for people.
    pub fn name(self) -> &'static str {
        match self {
            Self::Chat => "OpenAI Chat Completions",
            Self::Responses => "OpenAI Responses",
            Self::Anthropic => "Anthropic Messages",
            Self::Gemini => "Google Gemini",
            Self::Ollama => "Ollama",
            Self::UiStream => "AI SDK UI message stream",
            Self::DataStream => "AI SDK data stream",
            Self::Text => "plain text",
        }
    }

    /// Its id in files, flags and URLs (`responses`, `ui_stream` …).
    pub fn id(self) -> &'static str {
        match self {
            Self::Chat => "chat",
            Self::Responses => "responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Ollama => "ollama",
            Self::UiStream => "ui_stream",
            Self::DataStream => "data_stream",
            Self::Text => "text",
        }
    }

    /// The wire named `id` ([`Wire::id`]).
    pub fn from_id(id: &str) -> Option<Self> {
        WIRES.into_iter().find(|w| w.id() == id)
    }

    /// How its bytes are cut into messages.
    pub fn framing(self) -> Framing {
        match self {
            Self::Ollama | Self::DataStream => Framing::Lines,
            Self::Text => Framing::Raw,
            _ => Framing::Sse,
        }
    }

    /// True when the wire sends a tool call whole (Gemini, Ollama): a
    /// writer joins a call's fragments into one piece, sent when its last
    /// fragment is due.
    pub fn whole_calls(self) -> bool {
        matches!(self, Self::Gemini | Self::Ollama)
    }

    /// The content type a streamed answer of this wire comes with.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Ollama => "application/x-ndjson",
            Self::DataStream | Self::Text => "text/plain",
            _ => "text/event-stream",
        }
    }

    /// True when a response of `content_type` is this wire's stream (not,
    /// say, a JSON error body): an event stream for the SSE wires; NDJSON
    /// (or Ollama's older `application/json`) for Ollama; text for the data
    /// stream and plain text.
    pub fn streams_as(self, content_type: &str) -> bool {
        let ct = content_type.to_ascii_lowercase();
        match self.framing() {
            Framing::Sse => ct.contains("text/event-stream"),
            Framing::Lines if self == Self::Ollama => {
                ct.contains("ndjson") || ct.contains("application/json")
            }
            _ => ct.is_empty() || ct.starts_with("text/"),
        }
    }

    /// True when a finish reason and a clean close make a complete stream
    /// (wires whose end marker is optional, or which have none).
    pub fn finish_ends(self) -> bool {
        matches!(self, Self::Chat | Self::Gemini | Self::UiStream | Self::DataStream)
    }

    /// What a complete stream of this wire ends with, for messages about
    /// one that did not.
    pub fn ending(self) -> &'static str {
        match self {
            Self::Chat => "[DONE] or a finish_reason",
            Self::Responses => "response.completed",
            Self::Anthropic => "message_stop",
            Self::Gemini => "a finishReason",
            Self::Ollama => "a line with \"done\": true",
            Self::UiStream => "a finish part or [DONE]",
            Self::DataStream => "a finish part (d: or e:)",
            Self::Text => "the end of the body",
        }
    }
}

/// One generated token's worth of a message: text of one kind (empty for a
/// token whose bytes do not yet form a character), and for a tool-call
/// fragment, which call.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// Answer, reasoning or tool-call fragment.
    pub kind: ChunkKind,
    /// The text it adds.
    pub text: String,
    /// The call a tool-call fragment belongs to.
    pub tool: Option<ToolCallRef>,
}

impl Delta {
    /// Answer text.
    pub fn answer(text: impl Into<String>) -> Self {
        Self { kind: ChunkKind::Content, text: text.into(), tool: None }
    }

    /// Reasoning text.
    pub fn reasoning(text: impl Into<String>) -> Self {
        Self { kind: ChunkKind::Reasoning, text: text.into(), tool: None }
    }

    /// A piece of a tool call's arguments.
    pub fn tool(call: ToolCallRef, args: impl Into<String>) -> Self {
        Self { kind: ChunkKind::ToolCall, text: args.into(), tool: Some(call) }
    }
}

/// What one framed message says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Message {
    /// Generated text, one token each.
    pub deltas: Vec<Delta>,
    /// Token counts it reports (fields it leaves `None` keep earlier values).
    pub usage: Option<Usage>,
    /// Why generation ended, in the wire's words.
    pub finish: Option<String>,
    /// The model that answered, where the wire names it.
    pub model: Option<String>,
    /// The wire's explicit end of a complete answer.
    pub end: bool,
    /// An error the server reported in the stream.
    pub error: Option<ApiError>,
    /// The stream says the answer was aborted (the AI SDK's `abort` part).
    pub aborted: bool,
    /// What had to be repaired to read it.
    pub notes: Vec<String>,
}

/// Reads one stream's messages, keeping what a wire spreads over several
/// (which block or item is a tool call, and its index).
#[derive(Debug, Clone, Default)]
pub struct WireDecoder {
    wire: Wire,
    /// Tool calls by the wire's own key (item id, block index, call id), in
    /// order of appearance: their position is the call's index.
    calls: Vec<(String, Option<String>)>,
}

impl WireDecoder {
    /// A decoder for `wire`.
    pub fn new(wire: Wire) -> Self {
        Self { wire, ..Self::default() }
    }

    /// The wire it reads.
    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// Decodes one framed message: an SSE event (`event` is its `event:`
    /// name) or a line; plain text is read by [`Self::text`].
    pub fn decode(&mut self, event: Option<&str>, data: &str) -> Result<Message, DecodeError> {
        match self.wire {
            Wire::Chat => chat::decode(data),
            Wire::Responses => responses::decode(self, event, data),
            Wire::Anthropic => anthropic::decode(self, event, data),
            Wire::Gemini => gemini::decode(self, data),
            Wire::Ollama => ollama::decode(self, data),
            Wire::UiStream => ui_stream::decode(self, data),
            Wire::DataStream => data_stream::decode(self, data),
            Wire::Text => Ok(Self::text(data)),
        }
    }

    /// A read of a plain-text stream: its text is one token's worth.
    pub fn text(text: &str) -> Message {
        let deltas = if text.is_empty() { Vec::new() } else { vec![Delta::answer(text)] };
        Message { deltas, ..Message::default() }
    }

    /// The call keyed `key` (opened by [`Self::open_call`], or opened now
    /// without a name): a reference naming it on its first fragment only.
    fn call(&mut self, key: &str) -> ToolCallRef {
        self.open_call(key, None, None)
    }

    /// Opens (or finds) the call keyed `key`; `id` and `name` are said on
    /// the reference the first time the call is seen.
    fn open_call(&mut self, key: &str, id: Option<&str>, name: Option<&str>) -> ToolCallRef {
        let index = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        if let Some(i) = self.calls.iter().position(|(k, _)| k == key) {
            return ToolCallRef { index: index(i), id: None, name: None };
        }
        self.calls.push((key.to_owned(), name.map(str::to_owned)));
        ToolCallRef {
            index: index(self.calls.len() - 1),
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
        }
    }

    fn is_call(&self, key: &str) -> bool {
        self.calls.iter().any(|(k, _)| k == key)
    }
}

/// Parses a message's JSON object, naming the wire when it is not one.
fn object(data: &str) -> Result<serde_json::Map<String, Value>, DecodeError> {
    let trimmed = data.trim();
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(DecodeError::NotAnObject { snippet: snippet(trimmed) }),
        Err(e) => {
            Err(DecodeError::Json { message: crate::trace::json_error::plain(&e), snippet: snippet(trimmed) })
        }
    }
}

/// `v[key]` as a string.
fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `v[key]` as a count.
fn count(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// Usage with every field `None`.
fn no_usage() -> Usage {
    Usage::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_told_from_an_error_body_by_its_content_type() {
        for w in WIRES {
            assert!(w.streams_as(w.content_type()), "{}", w.name());
            assert!(!w.streams_as("text/html") || matches!(w, Wire::DataStream | Wire::Text), "{}", w.name());
        }
        assert!(!Wire::Chat.streams_as("application/json"), "an error body");
        assert!(Wire::Ollama.streams_as("application/json; charset=utf-8"), "older Ollama");
        assert!(!Wire::Text.streams_as("application/json"));
    }

    #[test]
    fn every_wire_has_one_id_and_back() {
        for w in WIRES {
            assert_eq!(Wire::from_id(w.id()), Some(w));
            assert_eq!(serde_json::to_value(w).unwrap(), Value::from(w.id()));
        }
    }
}
