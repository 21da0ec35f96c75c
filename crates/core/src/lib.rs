//! # lab-core
//!
//! The pure heart of Latency Lab: everything that can be computed without a
//! browser, a network or a clock. Time always arrives as `f64` milliseconds
//! from the caller, so the same code runs in the WebAssembly app, in the
//! native `latency-lab` tool and in tests.
//!
//! ## The map
//!
//! The rooms follow the product's flow: a request is sent and streamed, its
//! timing recorded as a trace, measured and scored; traces and profiles are
//! replayed; results of other tools are imported; people take part in
//! studies; what is made is shared.
//!
//! | room (from the bottom up: a room imports only itself and the rooms above it in this table, `tests/architecture.rs`) | owns |
//! |---|---|
//! | [`trace`] | the versioned JSON trace every part exchanges: schema, loading, redaction |
//! | [`measure`] | statistics, metrics (TTFT, TPOT, ITL, E2EL…), SLOs and goodput, scenario scores, analysis, run shapes and load curves, ground truth |
//! | [`stream`] | the wire: request bodies, the SSE parser, OpenAI decoding and encoding, the recorder, live figures, streaming Markdown |
//! | [`replay`] | profiles, sample texts, seeded randomness, stories, the replay state machine and its fidelity |
//! | [`load`] | what a live run sends and when: prompt-length sweeps, conversations, arrival-rate schedules |
//! | [`serve`] | what the replay endpoint of `latency-lab serve` plays: emission plans and injected faults |
//! | [`workload`] | production workload files (Mooncake, Bailian, Azure, BurstGPT, ShareGPT, the lab's traces): reading them row by row, their summary, shaping a run |
//! | [`import`] | results of vLLM, guidellm, AIPerf, GenAI-Perf and LLMPerf, and the worker service that holds them |
//! | [`field`] | field data: OpenTelemetry GenAI spans (OTLP/JSON, Tempo, Jaeger) read as requests, never their text |
//! | [`study`] | UX studies: designs, trial plans, the participant flow, answers and their statistics |
//! | [`chart`] | chart scales and the data every chart draws |
//! | [`share`] | share links, the run library's records and bundles, HTML reports |
//! | [`fuzz`] | fuzz harnesses over every input surface |
//!
//! Where a new thing goes: a new metric in [`measure::metrics`] (and its
//! row in [`measure::registry`]); a new import format beside the others in
//! [`import`]; a new scenario in [`measure::score`]'s presets.

pub mod chart;
pub mod field;
pub mod fuzz;
pub mod import;
pub mod load;
pub mod measure;
pub mod replay;
pub mod serve;
pub mod share;
pub mod stream;
pub mod study;
pub mod trace;
pub mod workload;

pub use measure::analysis::{Analysis, AnalysisOptions};
pub use measure::metrics::{MetricsConfig, RequestMetrics, RunMetrics};
pub use measure::slo::SloSet;
pub use trace::Trace;
