//! # Load: what a live run sends, and when
//!
//! The run shapes that show where latency comes from (the article's
//! engineering half), beside the concurrency levels of
//! [`crate::measure::sweep`]:
//!
//! - [`prompts`]: prompts of chosen lengths for a **prompt-length sweep**
//!   (prefill), and the messages of a **conversation** whose context grows
//!   turn by turn, with a stable or a changed first message (prefix
//!   caching).
//! - [`shape`]: the shape of a live run, levels or one of these.
//! - [`probing`]: a **probe run**'s plan — probes sent every few seconds
//!   while a workload loads the server, a speed sweep or windows of time.
//! - [`arrivals`]: the send times of a **request-rate** run (Poisson or
//!   gamma arrivals with vLLM's burstiness, optional linear ramp).
//!
//! What the results mean is measured in [`crate::measure::prefill`],
//! [`crate::measure::turns`] and [`crate::measure::rate`].

pub mod arrivals;
pub mod probing;
pub mod prompts;
pub mod shape;
