//! # Measure: the figures users feel, and how they are scored
//!
//! Every definition the lab shows a user lives here, with its `//!` doc:
//!
//! - [`stats`]: numpy-identical mean, std, median and percentiles;
//!   [`student`]: Student's t distribution (intervals).
//! - [`metrics`]: TTFB, TTFT, TPOT, ITL, E2EL, paint lag, stalls (vLLM's
//!   definitions) per request and per run.
//! - [`registry`]: every latency row a table shows (id, label, definition,
//!   figure), rendered the same by the web table, reports and `analyze`.
//! - [`slo`]: service-level objectives and goodput.
//! - [`score`]: scenario scores (chat, code completion, agent/RAG, batch,
//!   long text) with explanations.
//! - [`analysis`]: all of the above for one run, as JSON or a text table.
//! - [`sweep`]: run shapes (one, N in a row, N at once, a concurrency
//!   sweep), load curves and the saturation point.
//! - [`prefill`]: TTFT against prompt length (fixed overhead, time per
//!   prompt token, prefill tokens/s).
//! - [`turns`]: conversations turn by turn, and what a stable prefix saves.
//! - [`rate`]: request-rate runs over time (offered rate, user vs system
//!   tokens/s, queueing, the client's own delay, the saturation point).
//! - [`groundtruth`]: the client's measurements against the server's clock.
//! - [`difference`]: how two endpoints differ at a percentile, with a 95%
//!   bootstrap interval and in words; [`compare`]: Live's comparison of
//!   2–4 endpoints (figures, scenario scores and their differences).
//! - [`run`]: a finished run measured once (analysis, load curve, ground
//!   truth), for every view that shows it.

pub mod analysis;
pub mod compare;
pub mod difference;
pub mod feel;
pub mod groundtruth;
pub mod metrics;
pub mod prefill;
pub mod rate;
pub mod registry;
pub mod run;
pub mod score;
pub mod slo;
pub mod stats;
pub mod student;
pub mod sweep;
pub mod turns;
pub mod weighted;
