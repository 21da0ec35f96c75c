//! The recorder: turns one streamed HTTP response into a [`RequestTrace`],
//! fed with timestamps from outside (the browser's `performance.now()`, or a
//! test's virtual clock). Pure state machine: no I/O, no clock.
//!
//! Rules:
//! - Every SSE event whose payload carries text (content, reasoning or a
//!   tool-call fragment, one chunk per call it touches)
//!   becomes one chunk of 1 token, stamped with the time its bytes were read;
//!   so does an event with an empty content string that is neither the
//!   role-only opening nor the closing chunk (a token whose bytes do not yet
//!   form a character; see [`crate::stream::openai::ChunkData::is_token`]).
//!   Several events read at once share that time, as they arrived together.
//! - `usage` from the final chunk is kept; metrics prefer it for token counts.
//! - A payload that is not valid JSON marks the request as failed
//!   ([`FailureKind::Malformed`]) but the stream is still read to the end, so
//!   nothing already received is lost.
//! - An `error` object in the stream marks it failed ([`FailureKind::Server`]).
//! - The stream is complete when `[DONE]` arrived, or when it closed cleanly
//!   after a `finish_reason`. Otherwise it is [`FailureKind::Truncated`].

use std::ops::Range;

use crate::stream::frame::{Framed, Framer};
use crate::stream::openai::{self, ApiError};
use crate::stream::sse::SseEvent;
use crate::stream::wire::{Message, Wire, WireDecoder};
use crate::trace::{Chunk, Failure, FailureKind, RequestTrace};

/// Longest response body kept in a failure (8 KiB).
pub const MAX_ERROR_BODY: usize = 8 * 1024;

/// Repair notes kept per request (a stream damaged throughout would
/// otherwise grow one note per event).
pub const MAX_NOTES: usize = 20;

/// How a stream ended, as seen by the transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// The body closed normally.
    Closed,
    /// The user (or the lab) aborted it.
    Aborted,
    /// The connection failed mid-way, with the transport's message.
    Broken(String),
}

/// Records one request.
#[derive(Debug, Clone)]
pub struct Recorder {
    req: RequestTrace,
    framer: Framer,
    decoder: WireDecoder,
    sse_scratch: Vec<SseEvent>,
    scratch: Vec<Framed>,
    saw_end: bool,
    finish: Option<String>,
    server_aborted: bool,
    malformed: Option<String>,
    server_error: Option<ApiError>,
}

impl Recorder {
    /// Starts recording an OpenAI Chat Completions request sent at `sent_ms`.
    pub fn new(sent_ms: f64) -> Self {
        Self::with_wire(sent_ms, Wire::Chat)
    }

    /// Starts recording a request of `wire` sent at `sent_ms`.
    pub fn with_wire(sent_ms: f64, wire: Wire) -> Self {
        Self {
            req: RequestTrace { sent_ms, ..RequestTrace::default() },
            framer: Framer::new(wire.framing()),
            decoder: WireDecoder::new(wire),
            sse_scratch: Vec::new(),
            scratch: Vec::new(),
            saw_end: false,
            finish: None,
            server_aborted: false,
            malformed: None,
            server_error: None,
        }
    }

    /// The wire it reads.
    pub fn wire(&self) -> Wire {
        self.decoder.wire()
    }

    /// The last finish reason the stream gave, in its wire's words.
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish.as_deref()
    }

    /// The request so far.
    pub fn request(&self) -> &RequestTrace {
        &self.req
    }

    /// Sets the prompt token count when the client knows it.
    pub fn set_prompt_tokens(&mut self, tokens: Option<u64>) {
        self.req.prompt_tokens = tokens;
    }

    /// The response headers arrived.
    pub fn on_headers(&mut self, at_ms: f64, status: u16) {
        self.req.headers_ms = Some(at_ms.max(self.req.sent_ms));
        self.req.status = Some(status);
    }

    /// Bytes were read at `at_ms`; returns the indices of the new chunks.
    pub fn on_bytes(&mut self, at_ms: f64, bytes: &[u8]) -> Range<usize> {
        let at_ms = self.monotonic(at_ms);
        let start = self.req.chunks.len();
        let mut messages = std::mem::take(&mut self.scratch);
        self.framer.feed(bytes, &mut self.sse_scratch, &mut messages);
        for m in messages.drain(..) {
            self.on_message(at_ms, &m);
        }
        self.scratch = messages;
        start..self.req.chunks.len()
    }

    /// Times never run backwards within a request, whatever the caller's clock does.
    fn monotonic(&self, at_ms: f64) -> f64 {
        let floor =
            self.req.chunks.last().map(|c| c.arrived_ms).or(self.req.headers_ms).unwrap_or(self.req.sent_ms);
        if at_ms.is_finite() { at_ms.max(floor) } else { floor }
    }

    fn on_message(&mut self, at_ms: f64, framed: &Framed) {
        let position = self.framer.messages();
        let sse_error = framed.event.as_deref() == Some("error");
        let message = match self.decoder.decode(framed.event.as_deref(), &framed.data) {
            Ok(m) => m,
            Err(_) if sse_error => Message::default(),
            Err(e) => {
                self.malformed.get_or_insert(format!("event {position}: {e}"));
                return;
            }
        };
        let Message { deltas, usage, finish, end, error, aborted, notes, .. } = message;
        let error = error.or_else(|| {
            sse_error.then(|| {
                openai::error_from_body(&framed.data).unwrap_or_else(|| ApiError {
                    message: openai::snippet(&framed.data),
                    ..ApiError::default()
                })
            })
        });
        if let Some(e) = error {
            self.server_error.get_or_insert(e);
        }
        for note in notes {
            if self.req.notes.len() < MAX_NOTES {
                self.req.notes.push(format!("event {position}: {note}"));
            }
        }
        if finish.is_some() {
            self.finish = finish;
        }
        self.saw_end |= end;
        self.server_aborted |= aborted;
        if let Some(u) = usage {
            self.req.usage = Some(self.req.usage.unwrap_or_default().merged(u));
        }
        // A token whose text is still empty (half a character) is recorded
        // as an empty chunk: it counts, it shows nothing.
        for d in deltas {
            self.req.chunks.push(Chunk {
                arrived_ms: at_ms,
                text: d.text,
                tokens: 1,
                kind: d.kind,
                painted_ms: None,
                due_ms: None,
                tool: d.tool,
                chars: None,
            });
        }
    }

    /// Chunks `[.., upto)` are on screen as of the frame at `at_ms`; the ones
    /// not yet marked get `painted_ms = at_ms`.
    pub fn mark_painted(&mut self, upto: usize, at_ms: f64) {
        self.req.mark_painted(upto, at_ms);
    }

    /// Ends the request and returns its trace (the recorder is spent).
    pub fn finish(&mut self, at_ms: f64, end: StreamEnd) -> RequestTrace {
        let at_ms = self.monotonic(at_ms);
        self.req.end_ms = Some(at_ms);
        let wire = self.wire();
        let (unknown, first_unknown) = self.framer.unknown_lines();
        let first_unknown = first_unknown.map(str::to_owned);
        let rest = std::mem::replace(&mut self.framer, Framer::new(wire.framing())).finish();
        // Gemini may send an error object bare, without `data:` (as its SDK reads it).
        let bare_error =
            first_unknown.as_deref().is_some_and(|l| wire == Wire::Gemini && l.contains("\"error\""));
        if bare_error && let Some(l) = &first_unknown {
            self.server_error.get_or_insert(ApiError { message: l.clone(), ..ApiError::default() });
        }
        let malformed = self.malformed.take().or_else(|| {
            first_unknown
                .filter(|_| !bare_error)
                .map(|l| format!("{unknown} line(s) are not SSE fields, the first: {l:?}"))
        });
        let server_error = self.server_error.take();
        let complete = self.saw_end
            || (wire.finish_ends() && self.finish.is_some() && rest.clean)
            || (wire == Wire::Text && rest.clean);
        let received = self.req.chunks.len();
        let status = self.req.status;
        let failure = |kind, message| Some(Failure { kind, message, status, body: None });
        let transport = match end {
            StreamEnd::Aborted => {
                failure(FailureKind::Aborted, format!("Stopped by the user after {received} chunk(s)."))
            }
            StreamEnd::Broken(msg) => failure(
                FailureKind::Truncated,
                format!(
                    "The connection broke after {received} chunk(s): {msg}. The partial response is kept."
                ),
            ),
            StreamEnd::Closed => None,
        };
        self.req.failure = transport
            .or_else(|| {
                self.server_aborted.then(|| Failure {
                    kind: FailureKind::Aborted,
                    message: format!("The server stopped the answer (an abort part) after {received} chunk(s)."),
                    status,
                    body: None,
                })
            })
            .or_else(|| {
                server_error.map(|e| Failure {
                    kind: FailureKind::Server,
                    message: format!("The server reported an error in the stream: {e}"),
                    status,
                    body: None,
                })
            })
            .or_else(|| {
                malformed.map(|m| Failure {
                    kind: FailureKind::Malformed,
                    message: match wire {
                        Wire::Chat => format!(
                            "The stream is not valid OpenAI-style SSE ({m}). Is this an OpenAI-compatible streaming endpoint?"
                        ),
                        _ => format!("The stream is not a valid {} stream ({m}).", wire.name()),
                    },
                    status,
                    body: None,
                })
            })
            .or_else(|| {
                (!complete).then(|| Failure {
                    kind: FailureKind::Truncated,
                    message: format!(
                        "The {}stream ended without {} after {received} chunk(s){}: the response may be cut off.",
                        if wire == Wire::Chat { String::new() } else { format!("{} ", wire.name()) },
                        wire.ending(),
                        if rest.clean { "" } else { ", in the middle of an event" }
                    ),
                    status,
                    body: None,
                })
            })
            .or_else(|| {
                (received == 0).then(|| Failure {
                    kind: FailureKind::Empty,
                    message: "The stream completed but carried no generated text.".to_string(),
                    status,
                    body: None,
                })
            });
        std::mem::take(&mut self.req)
    }

    /// Ends the request as an HTTP error with the server's body.
    pub fn fail_http(
        &mut self,
        at_ms: f64,
        status: u16,
        body: &str,
        retry_after: Option<&str>,
    ) -> RequestTrace {
        self.req.end_ms = Some(self.monotonic(at_ms));
        self.req.status = Some(status);
        self.req.failure = Some(http_failure(status, body, retry_after));
        std::mem::take(&mut self.req)
    }

    /// Ends the request as a failure decided by the caller (network, CORS …).
    pub fn fail(&mut self, at_ms: f64, kind: FailureKind, message: String) -> RequestTrace {
        self.req.end_ms = Some(self.monotonic(at_ms));
        self.req.failure = Some(Failure { kind, message, status: self.req.status, body: None });
        std::mem::take(&mut self.req)
    }
}

/// A failure for a non-2xx response: a message a user can act on, and the
/// server's body (cut to [`MAX_ERROR_BODY`]).
pub fn http_failure(status: u16, body: &str, retry_after: Option<&str>) -> Failure {
    let server = openai::error_from_body(body).map(|e| e.to_string());
    let advice = match status {
        401 | 403 => {
            "The server refused the credentials: check the API key (and whether this endpoint needs one)."
                .to_string()
        }
        404 => "Not found: check the base URL (it usually ends in /v1), the API flavour and the model name."
            .to_string(),
        408 | 504 => "The server or a proxy timed out.".to_string(),
        413 => "The request is too large for the server (prompt or max tokens).".to_string(),
        422 | 400 => "The server rejected the request: check the model name and parameters.".to_string(),
        429 => match retry_after {
            Some(r) => format!("Rate limited: the server asks to retry after {r} s (quota or overload)."),
            None => "Rate limited: too many requests or quota used up; try again later or lower concurrency."
                .to_string(),
        },
        500..=599 => "The server failed while handling the request.".to_string(),
        _ => "The server answered with an error.".to_string(),
    };
    let mut message = format!("HTTP {status}. {advice}");
    if let Some(s) = server {
        message.push_str(&format!(" Server says: {s}"));
    }
    let body = (!body.is_empty()).then(|| {
        let mut b: String = body.chars().take(MAX_ERROR_BODY).collect();
        if b.len() < body.len() {
            b.push('…');
        }
        b
    });
    Failure { kind: FailureKind::Http, message, status: Some(status), body }
}

/// The message for a request that never got a response: the browser only
/// says "Failed to fetch", which means the server is unreachable *or* it
/// refused this page's origin (CORS); both are named, with what to do.
pub fn network_failure_message(url: &str, page_origin: &str, browser_says: &str, cors_hint: &str) -> String {
    format!(
        "Could not reach {url} (the browser says: {browser_says}). Either nothing is listening there, or the server does not allow requests from this page's origin {page_origin} (CORS). {} Or measure with the built-in replay endpoint.",
        cors_hint.replace("ORIGIN", page_origin)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLE: &str =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n";

    fn delta(s: &str) -> String {
        format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{s}\"}}}}]}}\n\n")
    }

    #[test]
    fn records_chunks_with_times_and_usage() {
        let mut r = Recorder::new(100.0);
        r.on_headers(110.0, 200);
        assert_eq!(r.on_bytes(120.0, ROLE.as_bytes()), 0..0);
        assert_eq!(r.on_bytes(150.0, delta("Hel").as_bytes()), 0..1);
        let both = format!("{}{}", delta("lo"), delta("!"));
        assert_eq!(r.on_bytes(170.0, both.as_bytes()), 1..3);
        r.mark_painted(3, 175.0);
        r.on_bytes(180.0, b"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
        r.on_bytes(181.0, b"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n");
        let t = r.finish(182.0, StreamEnd::Closed);
        assert_eq!(t.failure, None);
        assert_eq!(t.text(), "Hello!");
        assert_eq!(t.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [150.0, 170.0, 170.0]);
        assert!(t.chunks.iter().all(|c| c.painted_ms == Some(175.0)));
        assert_eq!(t.usage.unwrap().completion_tokens, Some(3));
        assert_eq!((t.headers_ms, t.end_ms), (Some(110.0), Some(182.0)));
    }

    #[test]
    fn empty_token_deltas_count_but_show_nothing() {
        let mut r = Recorder::new(0.0);
        r.on_bytes(1.0, ROLE.as_bytes());
        r.on_bytes(2.0, delta("T").as_bytes());
        r.on_bytes(3.0, delta("").as_bytes());
        r.on_bytes(4.0, delta("é").as_bytes());
        r.on_bytes(5.0, b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n");
        let t = r.finish(6.0, StreamEnd::Closed);
        assert_eq!(t.chunks.len(), 3);
        assert_eq!(t.text(), "Té");
        assert_eq!(t.chunks[1].text, "");
    }

    #[test]
    fn damaged_payloads_keep_their_text_and_say_what_was_repaired() {
        let mut r = Recorder::new(0.0);
        r.on_headers(1.0, 200);
        r.on_bytes(2.0, delta("A").as_bytes());
        // One JSON payload over two data: lines, cut inside the string.
        r.on_bytes(3.0, b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\ndata: lo\"}}]}\n\n");
        // An emoji cut between chunks: a lone high surrogate.
        r.on_bytes(4.0, delta("smile \\ud83d!").as_bytes());
        r.on_bytes(5.0, b"data: [DONE]\n\n");
        let t = r.finish(6.0, StreamEnd::Closed);
        assert_eq!(t.failure, None, "{:?}", t.failure);
        assert_eq!(t.text(), "AHellosmile \u{FFFD}!");
        assert_eq!(t.notes.len(), 2, "{:?}", t.notes);
        assert!(t.notes[0].contains("split over 2 data: lines"));
        assert!(t.notes[1].contains("\\ud83d"));
    }

    #[test]
    fn truncated_stream_keeps_partial_text() {
        let mut r = Recorder::new(0.0);
        r.on_headers(1.0, 200);
        r.on_bytes(5.0, delta("partial").as_bytes());
        r.on_bytes(6.0, b"data: {\"choices\":[{\"ind");
        let t = r.finish(7.0, StreamEnd::Closed);
        let f = t.failure.clone().unwrap();
        assert_eq!(f.kind, FailureKind::Truncated);
        assert!(f.message.contains("middle of an event"), "{}", f.message);
        assert_eq!(t.text(), "partial");
    }

    #[test]
    fn malformed_and_server_errors_are_failures() {
        let mut r = Recorder::new(0.0);
        r.on_bytes(1.0, b"data: not json\n\n");
        r.on_bytes(2.0, delta("after").as_bytes());
        r.on_bytes(3.0, b"data: [DONE]\n\n");
        let t = r.finish(4.0, StreamEnd::Closed);
        assert_eq!(t.failure.unwrap().kind, FailureKind::Malformed);
        assert_eq!(t.chunks.len(), 1, "text after the bad event is still recorded");

        let mut r = Recorder::new(0.0);
        r.on_bytes(1.0, b"data: {\"error\":{\"message\":\"out of memory\",\"code\":500}}\n\n");
        let f = r.finish(2.0, StreamEnd::Closed).failure.unwrap();
        assert_eq!(f.kind, FailureKind::Server);
        assert!(f.message.contains("out of memory"));
    }

    #[test]
    fn aborted_and_broken() {
        let mut r = Recorder::new(0.0);
        r.on_bytes(1.0, delta("a").as_bytes());
        assert_eq!(r.clone().finish(2.0, StreamEnd::Aborted).failure.unwrap().kind, FailureKind::Aborted);
        let t = r.finish(2.0, StreamEnd::Broken("reset".into()));
        assert!(
            network_failure_message(
                "http://h/v1",
                "http://o",
                "Failed to fetch",
                "use --allowed-origins '[\"ORIGIN\"]'"
            )
            .contains("--allowed-origins '[\"http://o\"]'")
        );
        assert!(t.failure.unwrap().message.contains("reset"));
    }

    #[test]
    fn http_errors_explain_and_keep_body() {
        let f = http_failure(401, "{\"error\":{\"message\":\"Incorrect API key\"}}", None);
        assert!(f.message.contains("API key") && f.message.contains("Incorrect API key"));
        assert_eq!(f.status, Some(401));
        let f = http_failure(429, "slow down", Some("7"));
        assert!(f.message.contains("after 7 s"));
        assert_eq!(f.body.as_deref(), Some("slow down"));
        let big = "x".repeat(MAX_ERROR_BODY * 2);
        assert!(http_failure(500, &big, None).body.unwrap().ends_with('…'));
    }

    #[test]
    fn clock_going_backwards_is_clamped() {
        let mut r = Recorder::new(10.0);
        r.on_bytes(20.0, delta("a").as_bytes());
        r.on_bytes(15.0, delta("b").as_bytes());
        let t = r.finish(f64::NAN, StreamEnd::Aborted);
        assert_eq!(t.chunks[1].arrived_ms, 20.0);
        assert_eq!(t.end_ms, Some(20.0));
    }
}
