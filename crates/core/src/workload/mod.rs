//! # Workload: the production traffic serving teams replay
//!
//! A **workload** is a list of requests with their send times and sizes, as
//! serving teams publish them and as vLLM's `bench serve`, guidellm, AIPerf
//! and SGLang replay them. The lab reads six kinds ([`Format`]), detected by
//! content like imports, one row at a time, so a file of 1,000,000 rows is
//! read with bounded memory:
//!
//! | format | file | send time | input tokens | output tokens | prefix blocks | sessions |
//! |---|---|---|---|---|---|---|
//! | Mooncake (FAST'25) | JSONL | `timestamp` (ms from start) | `input_length` | `output_length` | `hash_ids`, 512 tokens a block | – |
//! | Alibaba Bailian | JSONL | `timestamp` (s) | `input_length` | `output_length` | `hash_ids`, 16 tokens a block | `chat_id`, `parent_chat_id` (−1 at a root), `turn`; `type` kept |
//! | Azure LLM inference 2023 / 2024 | CSV | `TIMESTAMP` (date and time, UTC) | `ContextTokens` | `GeneratedTokens` | – | – |
//! | BurstGPT | CSV | `Timestamp` (s) | `Request tokens` | `Response tokens` | – | – (`Model`, `Log Type` kept; `Total tokens` checked) |
//! | ShareGPT | JSON | none: one after another | the human turns' text, counted | the reply's text, counted | – | each conversation, its turns in order |
//! | the lab's own trace | JSON | each request's send time | usage (or the prompt's pseudo tokens) | usage (or the chunks' tokens) | – | – |
//!
//! Send times are kept as the file gives them (ms, [`Request::at_ms`]); a
//! workload starts at its first row ([`summary::Summary::start_ms`]). Rows
//! out of time order are read as they come (the runner sends by time).
//!
//! - [`format`]: one file per format (its layout, whether it is timed, how
//!   it is detected, how a row is read) and the one list of them,
//!   [`Format::spec`].
//! - [`read`]: detection and the readers ([`read::LineReader`] for the
//!   line formats, [`read::sharegpt`] and [`read::lab_trace`] for the two
//!   JSON documents); a bad row is named by its line and what was expected
//!   ([`WorkloadError`]).
//! - [`summary`]: what a workload holds, accumulated row by row: request
//!   rate over time, input and output length distributions, sessions and
//!   turns, and prefix reuse.
//! - [`shape`]: a window of the trace, a speed factor, a seeded resample to a
//!   target rate that keeps its burstiness, a request cap.
//! - [`prompts`]: each `hash_ids` block as deterministic words, so shared
//!   ids are a shared token prefix on a real engine.
//! - [`probe`]: a probe run read back window by window beside the load it
//!   was sent with, and the speed sweep's breaking point.
//! - [`command`]: the `latency-lab run` command that sends a workload file
//!   as it is.
//! - [`cache`]: the cached tokens the replay endpoint will report for each
//!   request, predicted from the `hash_ids` alone.

pub mod cache;
pub mod command;
pub mod format;
pub mod load_trace;
pub mod probe;
pub mod prompts;
pub mod read;
pub mod shape;
pub mod summary;

pub use format::Format;

/// Tokens of a Mooncake `hash_ids` block.
pub const MOONCAKE_BLOCK_TOKENS: u32 = format::mooncake::BLOCK_TOKENS;
/// Tokens of a Bailian `hash_ids` block.
pub const BAILIAN_BLOCK_TOKENS: u32 = format::bailian::BLOCK_TOKENS;

/// One turn of a conversation's text (ShareGPT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// `user` or `assistant` (ShareGPT's `human`/`gpt`), `system`.
    pub role: String,
    /// Its text.
    pub text: String,
}

/// One request of a workload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    /// Send time (ms, on the file's own clock; see the module's table).
    pub at_ms: f64,
    /// Prompt tokens.
    pub input_tokens: u32,
    /// Tokens the answer should have.
    pub output_tokens: u32,
    /// Prefix blocks: equal ids are equal blocks of
    /// [`Format::block_tokens`] tokens, in prompt order.
    pub hash_ids: Vec<u64>,
    /// The conversation it belongs to (Bailian: the root chat's id;
    /// ShareGPT: the conversation's index).
    pub session: Option<u64>,
    /// Its turn in the conversation (1 = the first).
    pub turn: Option<u32>,
    /// Bailian `type`, BurstGPT `Log Type`.
    pub kind: Option<String>,
    /// BurstGPT `Model`.
    pub model: Option<String>,
    /// The conversation so far, ending with the prompt's turn (ShareGPT).
    pub messages: Vec<Turn>,
    /// Whether the token counts are approximations (ShareGPT counted without
    /// the model's tokenizer).
    pub approximate: bool,
    /// The file's line (1-based) the row came from.
    pub line: usize,
}

/// Why a workload row or file could not be read: the line and what was
/// expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadError {
    /// A row is not what its format says.
    #[error("line {line}: {expected}")]
    Row {
        /// 1-based line.
        line: usize,
        /// What was expected, in plain words.
        expected: String,
    },
    /// The file is none of the formats.
    #[error("not a workload file: {0}")]
    Unknown(String),
    /// The file holds no request.
    #[error("the workload holds no request")]
    Empty,
}

impl WorkloadError {
    /// A row error.
    pub fn row(line: usize, expected: impl Into<String>) -> Self {
        WorkloadError::Row { line, expected: expected.into() }
    }
}
