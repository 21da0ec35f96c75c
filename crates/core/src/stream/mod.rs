//! # The stream: what travels on the wire, and what it looks like on screen
//!
//! A live request is an HTTP POST whose answer streams in one of the wires
//! chat products use (OpenAI Chat or Responses, Anthropic, Gemini, Ollama,
//! the AI SDK's streams, plain text). This room owns every step from the
//! request body to the recorded trace:
//!
//! - [`endpoint`]: what a live run sends (endpoint presets, URLs, the body).
//! - [`sse`]: the incremental Server-Sent Events parser.
//! - [`frame`]: a body cut into its wire's messages (SSE events, lines, or
//!   plain text's reads).
//! - [`wire`]: one decoder per wire, the list of wires, and detection.
//! - [`openai`]: OpenAI-compatible payloads: stream chunks decoded
//!   ([`openai::StreamItem`]), requests decoded as the replay endpoint reads
//!   them, and streams written as it sends them ([`openai::encode`]).
//! - [`record`]: the recorder, turning timed bytes into a request trace.
//! - [`live`]: the figures shown while a request (or a replay pane) streams.
//! - [`markdown`]: streaming, sanitized Markdown of the text that arrives.

pub mod endpoint;
pub mod frame;
pub mod live;
pub mod markdown;
pub mod openai;
pub mod record;
pub mod sse;
pub mod wire;
