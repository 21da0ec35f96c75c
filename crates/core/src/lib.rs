//! # lab-core
//!
//! The pure heart of Latency Lab: everything that can be computed without a
//! browser, a network or a clock. Time always arrives as `f64` milliseconds
//! from the caller, so the same code runs in the WebAssembly app, in the
//! native `latency-lab` tool and in tests.
//!
//! - [`trace`]: the versioned JSON trace of a run.
//! - [`sse`]: incremental Server-Sent Events parser.
//! - [`openai`]: OpenAI-compatible stream chunk decoding.
//! - [`record`]: a stream recorder turning timed bytes into a trace.
//! - [`stats`]: numpy-identical mean/std/median/percentiles.
//! - [`metrics`]: TTFT, TPOT, ITL, E2EL, jitter, stalls (vLLM definitions).
//! - [`slo`]: SLOs and goodput.
//! - [`score`]: scenario scores with explanations.
//! - [`analysis`]: all of the above for one run, as JSON or a text table.
//! - [`chart`]: chart scales and ticks.
//! - [`study`], [`inference`]: blind perception studies and their statistics.
//! - [`import`]: results of vLLM, guidellm, AIPerf, GenAI-Perf and LLMPerf.

pub mod analysis;
pub mod chart;
pub mod endpoint;
pub mod fault;
pub mod fuzz;
pub mod groundtruth;
pub mod import;
pub mod inference;
pub mod library;
pub mod live;
pub mod markdown;
pub mod metrics;
pub mod openai;
pub mod plan;
pub mod plot;
pub mod profile;
pub mod record;
pub mod replay;
pub mod report;
pub mod rng;
pub mod score;
pub mod share;
pub mod slo;
pub mod sse;
pub mod stats;
pub mod story;
pub mod study;
pub mod sweep;
pub mod text;
pub mod trace;

pub use analysis::{Analysis, AnalysisOptions};
pub use metrics::{MetricsConfig, RequestMetrics, RunMetrics};
pub use slo::SloSet;
pub use trace::Trace;
