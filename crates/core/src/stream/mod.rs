//! # The stream: what travels on the wire, and what it looks like on screen
//!
//! A live request is an HTTP POST whose answer is a Server-Sent Events
//! stream of OpenAI-compatible chunks. This room owns every step from the
//! request body to the recorded trace:
//!
//! - [`endpoint`]: what a live run sends (endpoint presets, URLs, the body).
//! - [`sse`]: the incremental Server-Sent Events parser.
//! - [`openai`]: OpenAI-compatible payloads: stream chunks decoded
//!   ([`openai::StreamItem`]), requests decoded as the replay endpoint reads
//!   them, and streams written as it sends them ([`openai::encode`]).
//! - [`record`]: the recorder, turning timed bytes into a request trace.
//! - [`live`]: the figures shown while a request (or a replay pane) streams.
//! - [`markdown`]: streaming, sanitized Markdown of the text that arrives.

pub mod endpoint;
pub mod live;
pub mod markdown;
pub mod openai;
pub mod record;
pub mod sse;
