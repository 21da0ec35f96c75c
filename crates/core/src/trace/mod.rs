//! The trace: a versioned JSON record of one run (one or many requests).
//!
//! A trace file is what every part of the lab exchanges: the browser records
//! one for each live run or replay, importers build them from other tools'
//! results, `latency-lab analyze` reads them.
//!
//! Definitions:
//! - All times are **milliseconds on one monotonic clock per trace**
//!   (`performance.now()` in the browser). Only differences are meaningful;
//!   the origin is arbitrary. Requests of one run share the clock, so
//!   system-wide throughput can be computed across them.
//! - `sent_ms`: the request left the client (just before `fetch`).
//! - `headers_ms`: the response headers arrived (the `fetch` promise resolved).
//! - per **chunk** (one SSE event that carried generated text):
//!   `arrived_ms` when its bytes were read from the stream, its text `delta`,
//!   the number of `tokens` it carried (1 unless known otherwise), and
//!   `painted_ms`, the first animation frame after the text was in the DOM,
//!   when the client measured it.
//! - `end_ms`: the stream ended (`[DONE]`, close, error or abort).
//!
//! Compatibility: files carry `schema_version`. Loading ignores fields it does
//! not know, so files written by a newer lab still load when their additions
//! are optional; a file whose version is newer *and* does not fit is refused
//! with [`TraceError::TooNew`]. Secrets never enter a trace: endpoints are
//! stored through [`redact_endpoint`].

pub mod client;
pub mod dates;
pub mod json_error;
mod load;
pub mod merge;
mod redact;
pub mod series;
pub mod shard;
pub mod stamps;
pub mod tool;

pub use client::ClientInfo;

pub use load::TraceError;
pub use redact::redact_endpoint;
pub use stamps::{EarlyStamps, Released};
pub use tool::{ToolCall, ToolCallRef, tool_calls};

use serde::{Deserialize, Serialize};

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = 1;

/// The value of the `format` field that marks a lab trace.
pub const FORMAT: &str = "latency-lab/trace";

/// Largest trace file the loaders accept (256 MiB): bigger files are refused
/// with a message instead of exhausting memory.
pub const MAX_TRACE_BYTES: usize = 256 * 1024 * 1024;

/// One recorded run: metadata and its requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Schema version of the file ([`SCHEMA_VERSION`] when written by this build).
    pub schema_version: u32,
    /// Always [`FORMAT`]; lets loaders tell a trace from other JSON.
    #[serde(default = "default_format")]
    pub format: String,
    /// Where and how the run was recorded.
    #[serde(default)]
    pub meta: TraceMeta,
    /// The requests of the run, in the order they were sent.
    #[serde(default)]
    pub requests: Vec<RequestTrace>,
}

fn default_format() -> String {
    FORMAT.to_string()
}

impl Default for Trace {
    fn default() -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            format: default_format(),
            meta: TraceMeta::default(),
            requests: Vec::new(),
        }
    }
}

/// What produced a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// Streamed live from an endpoint.
    #[default]
    Live,
    /// A replay of a profile or trace in the lab.
    Replay,
    /// Generated from a synthetic profile without playing it.
    Synthetic,
    /// Built from another benchmark tool's result file.
    Import,
}

/// Which OpenAI-compatible API a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiFlavor {
    /// `POST /v1/chat/completions`.
    #[default]
    Chat,
    /// `POST /v1/completions`.
    Completions,
}

/// Metadata of a trace. Every field is optional so that partial knowledge
/// (for example an import) still makes a valid trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceMeta {
    /// Human label of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// ISO 8601 wall-clock time the run started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    /// What produced the trace.
    #[serde(default)]
    pub source: SourceKind,
    /// The endpoint URL, redacted (no credentials, no key-like query values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// API used by the requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiFlavor>,
    /// The wire the answers streamed in, by id (`responses`, `anthropic`,
    /// … : `crate::stream::wire::Wire::id`); absent for OpenAI Chat and
    /// traces written before wires were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<String>,
    /// Model name as sent to / reported by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The tool and version that wrote the original data (imports), or the
    /// lab version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Requests in flight at once when the run was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Wall time of the whole run in ms when known from the source (imports);
    /// otherwise derived from the requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// The measuring client.
    #[serde(default)]
    pub client: ClientInfo,
    /// Unix time (ms) at 0 on the trace's clock, when the client knew it
    /// (the browser's `performance.timeOrigin`, the runner's start): lines
    /// up two traces of one moment, a probe run and the load beside it
    /// ([`crate::workload::load_trace`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_epoch_ms: Option<f64>,
    /// Unix time (ms) the run was asked to put its 0 at (`latency-lab run
    /// --start-at`); `clock_epoch_ms` says where it is, later when the run
    /// started late ([`shard`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at_ms: Option<f64>,
    /// Which shard of a run this is (`latency-lab run --shard I/N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<shard::ShardId>,
    /// The endpoint comparison the run was one side of (Live's "Compare
    /// endpoints": every endpoint's requests are a trace of their own, and
    /// the traces of one comparison share its group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<CompareInfo>,
    /// How a replay was played (replays only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayInfo>,
    /// The load the requests were sent beside, window by window (a probe
    /// run: `workload::probe`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load: Vec<LoadWindow>,
    /// What the source could not say, for people (field data whose spans
    /// carry no chunks or paints, a read that stopped at its limit…): every
    /// run card and analysis of the trace shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One window of the load a probe run was sent beside, as the server saw
/// it: what was offered, what arrived, how long requests waited for a slot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadWindow {
    /// What the window is (`1.5×`, `0–10 s`).
    pub label: String,
    /// The workload's speed factor in the window, when the lab drove it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// Start, on the trace's clock (ms).
    pub from_ms: f64,
    /// End, on the trace's clock (ms).
    pub to_ms: f64,
    /// Requests a second the load's schedule offered, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_per_s: Option<f64>,
    /// Requests the server admitted in the window (every sender's,
    /// the probes' included).
    #[serde(default)]
    pub admitted: u64,
    /// Each admitted request's wait for a decode slot (ms; 0 when one was free).
    #[serde(default)]
    pub queued_ms: Vec<f64>,
    /// The load's requests that failed in the window, when known.
    #[serde(default)]
    pub failed: u64,
    /// TTFT of the load's own requests sent in the window (ms), when the
    /// load's trace was added ([`crate::workload::load_trace`]): on an
    /// engine that does not report its queue, what queueing did to them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_ttft_ms: Vec<f64>,
    /// Why the load's requests of the window failed, when its trace was
    /// added: each distinct reason once, the most frequent first, with its
    /// count (`3× HTTP 429: …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_failures: Vec<String>,
}

/// One endpoint of a comparison (Live's "Compare endpoints"): the same
/// prompt sent to 2–4 endpoints in turn, each endpoint's requests a trace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompareInfo {
    /// The comparison (every endpoint's trace of one comparison has it).
    pub group: String,
    /// This endpoint's place among them (0 is the baseline the others are
    /// compared with).
    pub position: u32,
    /// How many endpoints were compared.
    pub of: u32,
    /// Rounds: each sent the prompt once to every endpoint, in turn.
    pub rounds: u32,
}

/// How a replay was played, and how well the browser kept up.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplayInfo {
    /// `precise` (the lab's scheduler) or `naive` (chained `setTimeout`).
    pub scheduler: String,
    /// Which path released the chunks, counted ([`stamps`]).
    #[serde(default)]
    pub released_by: Released,
    /// Why the precise scheduler released on the page's main thread (the
    /// workers did not start, failed, or were still calibrating).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// How the release-clock workers slept until each due time
    /// ([`stamps::CLOCK_ATOMICS`] or [`stamps::CLOCK_TIMERS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_sleep: Option<String>,
    /// Playback speed.
    pub speed: f64,
    /// Frames that came later than 1.5 refresh intervals during playback.
    #[serde(default)]
    pub late_frames: u32,
    /// Frames seen during playback.
    #[serde(default)]
    pub frames: u32,
    /// Time spent putting text on the page, per token (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_us_per_token: Option<f64>,
    /// Rendering mode: `text` or `markdown`.
    #[serde(default)]
    pub render: String,
    /// The playback the pane was part of (every pane of one playback has
    /// the same id), so the library keeps them together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playback: Option<String>,
    /// The pane's place in its playback (0 is the left-most), so the
    /// library lists the panes in the order they were shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane: Option<u32>,
}

/// Kind of a generated chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkKind {
    /// Answer text (`delta.content` / `text`).
    #[default]
    Content,
    /// Reasoning text (`delta.reasoning_content` / `delta.reasoning`).
    Reasoning,
    /// A tool-call fragment (`delta.tool_calls`): its text is a piece of
    /// the call's arguments; [`Chunk::tool`] says which call ([`tool`]).
    ToolCall,
}

fn one() -> u32 {
    1
}

fn is_content(kind: &ChunkKind) -> bool {
    *kind == ChunkKind::Content
}

/// One SSE event that carried generated text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// When the event's bytes were read from the stream (ms).
    pub arrived_ms: f64,
    /// The generated text of the event.
    #[serde(default)]
    pub text: String,
    /// Tokens carried by the event (1 unless the source knows better).
    #[serde(default = "one")]
    pub tokens: u32,
    /// Content or reasoning.
    #[serde(default, skip_serializing_if = "is_content")]
    pub kind: ChunkKind,
    /// First animation frame after the text was committed to the DOM (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub painted_ms: Option<f64>,
    /// For replays: when the scheduler meant to emit it (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_ms: Option<f64>,
    /// For tool-call fragments: the call it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolCallRef>,
    /// Characters the event added, where its text is not kept: field data
    /// records how much text arrived, never the text. A replay shows the
    /// lab's sample text in these lengths ([`crate::replay::pane`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chars: Option<u32>,
}

impl Chunk {
    /// A content chunk of `text` and `tokens` arrived at `arrived_ms`.
    pub fn content(arrived_ms: f64, text: &str, tokens: u32) -> Self {
        Self {
            arrived_ms,
            text: text.to_string(),
            tokens,
            kind: ChunkKind::Content,
            painted_ms: None,
            due_ms: None,
            tool: None,
            chars: None,
        }
    }
}

/// Token counts reported by the server (`usage`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Generated tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    /// Prompt tokens the server took from its prefix cache
    /// (`usage.prompt_tokens_details.cached_tokens`), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// Generated tokens spent reasoning, counted in `completion_tokens`
    /// (`completion_tokens_details.reasoning_tokens`, Responses'
    /// `output_tokens_details`, Gemini's `thoughtsTokenCount`), when the
    /// server says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// `self` with every count `later` reports replacing its own (wires
    /// that report usage in parts: Anthropic's `message_start`, then
    /// `message_delta`).
    pub fn merged(self, later: Usage) -> Usage {
        Usage {
            prompt_tokens: later.prompt_tokens.or(self.prompt_tokens),
            completion_tokens: later.completion_tokens.or(self.completion_tokens),
            cached_tokens: later.cached_tokens.or(self.cached_tokens),
            reasoning_tokens: later.reasoning_tokens.or(self.reasoning_tokens),
        }
    }
}

/// Why a request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The server answered with a non-2xx status.
    Http,
    /// The connection could not be made or was refused (including CORS).
    Network,
    /// The stream broke off before it was complete.
    Truncated,
    /// The stream carried bytes that are not valid SSE / JSON.
    Malformed,
    /// The server sent an `error` object in the stream.
    Server,
    /// The user stopped it.
    Aborted,
    /// Nothing was generated (no content chunk at all).
    Empty,
    /// The source tool reported the failure (imports).
    Reported,
}

/// A failed request: what happened, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Category of failure.
    pub kind: FailureKind,
    /// Message for people.
    pub message: String,
    /// HTTP status, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The server's response body (truncated), when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// One request of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestTrace {
    /// Identifier (free form; unique within the trace when set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Prompt length in tokens, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Request sent (ms).
    pub sent_ms: f64,
    /// When a request-rate run meant to send it (ms, the clock of
    /// `sent_ms`): `sent_ms − scheduled_ms` is the client's own delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_ms: Option<f64>,
    /// Turn of a conversation run (0 = the first message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// The series a request belongs to in a run with several (a
    /// conversation's "stable prefix" or "changed prefix").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Response headers received (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_ms: Option<f64>,
    /// HTTP status of the response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Generated chunks in arrival order.
    #[serde(default)]
    pub chunks: Vec<Chunk>,
    /// Stream ended (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<f64>,
    /// Token counts from the server, when it sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Set when the request failed; a failed request keeps what it received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// What the server says it did (replay endpoint ground truth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerTiming>,
    /// Browser Resource Timing of the request, when available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkTiming>,
    /// What the lab had to repair or leave out to read the stream (a
    /// payload split over lines, a lone surrogate…), for people.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The server's own record of a response (from `latency-lab serve`'s
/// ground-truth endpoint). Times are ms after the request reached the server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerTiming {
    /// The server's request id.
    pub request_id: String,
    /// Response headers handed to the HTTP writer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_sent_ms: Option<f64>,
    /// Each text chunk handed to the HTTP writer, in order.
    #[serde(default)]
    pub chunks_sent_ms: Vec<f64>,
    /// When each chunk was planned (the profile's or trace's due time).
    #[serde(default)]
    pub chunks_due_ms: Vec<f64>,
}

/// Browsers open at most this many HTTP/1.1 connections per host; a
/// request beyond them waits inside the browser for one
/// ([`NetworkTiming::queued_ms`]).
pub const HTTP1_CONNECTIONS_PER_HOST: u32 = 6;

/// Browser Resource Timing of one request (`PerformanceResourceTiming`),
/// on the trace's clock (ms).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkTiming {
    /// `nextHopProtocol`: `http/1.1`, `h2`, `h3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// `startTime` (the fetch started).
    pub start_ms: f64,
    /// `connectEnd − connectStart` (0 when a kept-alive connection was reused).
    #[serde(default)]
    pub connect_ms: f64,
    /// `requestStart`: the request was written to the connection. A gap after
    /// `start_ms` means the browser queued it (e.g. 6 connections per host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_start_ms: Option<f64>,
    /// `responseStart`: first response byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_start_ms: Option<f64>,
    /// `responseEnd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_end_ms: Option<f64>,
}

impl NetworkTiming {
    /// Time the browser held the request before writing it (ms), as
    /// measured: the browser coarsens these stamps, so a request written at
    /// once may show a few µs below 0 (kept, not clamped).
    pub fn queued_ms(&self) -> Option<f64> {
        self.request_start_ms.map(|r| r - self.start_ms - self.connect_ms)
    }
}

impl RequestTrace {
    /// The full generated text (content and reasoning, in order).
    pub fn text(&self) -> String {
        self.chunks.iter().filter(|c| c.kind != ChunkKind::ToolCall).map(|c| c.text.as_str()).collect()
    }

    /// How many of the first `upto` chunks had arrived by `at_ms`: what a
    /// frame whose callbacks began at `at_ms` is credited with showing. A
    /// chunk read after the frame began (its read resolved while the
    /// frame's callbacks ran) may or may not be in that frame's picture, so
    /// it is credited to the next frame: at most one frame late, never
    /// before its arrival.
    pub fn arrived_by(&self, upto: usize, at_ms: f64) -> usize {
        let upto = upto.min(self.chunks.len());
        self.chunks[..upto].partition_point(|c| c.arrived_ms <= at_ms)
    }

    /// Chunks before `upto` that have no paint time yet were on screen by
    /// the frame at `at_ms`. The stamp is kept as measured: one earlier than
    /// a chunk's arrival is flagged by every reader ([`EarlyStamps`]), not
    /// moved.
    pub fn mark_painted(&mut self, upto: usize, at_ms: f64) {
        let upto = upto.min(self.chunks.len());
        for c in self.chunks[..upto].iter_mut().rev() {
            if c.painted_ms.is_some() {
                break;
            }
            c.painted_ms = Some(at_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Trace {
        Trace {
            meta: TraceMeta {
                label: Some("t".into()),
                model: Some("m".into()),
                endpoint: Some("http://127.0.0.1:8000/v1/chat/completions".into()),
                ..TraceMeta::default()
            },
            requests: vec![RequestTrace {
                sent_ms: 10.0,
                headers_ms: Some(20.0),
                status: Some(200),
                chunks: vec![
                    Chunk {
                        arrived_ms: 110.0,
                        text: "Hello".into(),
                        tokens: 1,
                        kind: ChunkKind::Content,
                        painted_ms: Some(116.0),
                        due_ms: None,
                        tool: None,
                        chars: None,
                    },
                    Chunk {
                        arrived_ms: 130.0,
                        text: " world".into(),
                        tokens: 2,
                        kind: ChunkKind::Content,
                        painted_ms: None,
                        due_ms: None,
                        tool: None,
                        chars: None,
                    },
                ],
                end_ms: Some(131.0),
                ..RequestTrace::default()
            }],
            ..Trace::default()
        }
    }

    #[test]
    fn a_traces_file_is_named_by_its_label_and_time_in_safe_characters() {
        let mut t = Trace::default();
        assert_eq!(t.file_name(".trace.json"), "latency-lab-run-.trace.json");
        t.meta.label = Some("Chat / GPT 4.1".into());
        t.meta.created_at = Some("2026-12-05T10:00:00.000Z".into());
        assert_eq!(
            t.file_name(".report.html"),
            "latency-lab-chat---gpt-4-1-2026-12-05T10-00-00-000Z.report.html"
        );
    }

    #[test]
    fn round_trips_through_json() {
        let t = sample();
        let back = Trace::from_json(&t.to_json()).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.requests[0].text(), "Hello world");
    }

    #[test]
    fn a_paint_stamp_earlier_than_arrival_is_kept_and_flagged() {
        let mut r = sample().requests.remove(0);
        r.chunks[1].painted_ms = None;
        r.mark_painted(2, 125.0);
        assert_eq!(r.chunks[1].painted_ms, Some(125.0), "not moved to the arrival at 130");
        assert_eq!(r.chunks[0].painted_ms, Some(116.0), "an earlier paint is kept");
        assert_eq!(EarlyStamps::of_request(&r).paints, 1);
    }

    #[test]
    fn a_frame_is_credited_with_what_arrived_before_it_began() {
        let r = sample().requests.remove(0);
        let arrivals: Vec<f64> = r.chunks.iter().map(|c| c.arrived_ms).collect();
        assert_eq!(r.arrived_by(2, arrivals[1]), 2, "arrived at the frame's start: shown");
        assert_eq!(r.arrived_by(2, arrivals[1] - 0.02), 1, "arrived 20 µs after it began: next frame");
        assert_eq!(r.arrived_by(9, f64::INFINITY), r.chunks.len());
        assert_eq!(r.arrived_by(0, f64::INFINITY), 0);
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let text = r#"{"schema_version": 1, "future": {"x": 1},
            "requests": [{"sent_ms": 0, "new_thing": true,
              "chunks": [{"arrived_ms": 5, "text": "a", "glyphs": 3}]}]}"#;
        let t = Trace::from_json(text).unwrap();
        assert_eq!(t.requests[0].chunks[0].tokens, 1);
    }

    #[test]
    fn newer_version_loads_when_it_fits_and_is_refused_when_not() {
        let fits = r#"{"schema_version": 7, "requests": [], "extra": 1}"#;
        assert!(Trace::from_json(fits).is_ok());
        let misfit = r#"{"schema_version": 7, "requests": {"changed": true}}"#;
        assert!(matches!(Trace::from_json(misfit), Err(TraceError::TooNew { found: 7, .. })));
    }

    #[test]
    fn clear_errors_for_bad_files() {
        assert!(matches!(Trace::from_json("{\"schema"), Err(TraceError::Json { line: 1, .. })));
        assert!(matches!(Trace::from_json("[1,2]"), Err(TraceError::NotATrace { .. })));
        assert!(matches!(Trace::from_json("{\"a\":1}"), Err(TraceError::NotATrace { .. })));
        let wrong = r#"{"schema_version":1,"requests":[{"sent_ms":"soon"}]}"#;
        let e = Trace::from_json(wrong).unwrap_err();
        assert!(matches!(e, TraceError::Shape { .. }), "{e}");
        let backwards = r#"{"schema_version":1,"requests":[{"sent_ms":10,
            "chunks":[{"arrived_ms":30},{"arrived_ms":20}]}]}"#;
        let e = Trace::from_json(backwards).unwrap_err();
        assert!(e.to_string().contains("chunk 1"), "{e}");
        let foreign = r#"{"schema_version":1,"format":"other","requests":[]}"#;
        assert!(Trace::from_json(foreign).unwrap_err().to_string().contains("other"));
    }
}
