//! # Serve: what the replay endpoint of `latency-lab serve` plays
//!
//! The native server only waits and writes; what it sends, and when, is
//! decided here so the same rules are tested natively:
//!
//! - [`plan`]: the emission plan of one response (bytes and due times) from
//!   a profile or a recorded request.
//! - [`fault`]: faults the endpoint can inject (HTTP errors, stalls, drops,
//!   garbage, slow headers).
//! - [`cache`]: the prefix cache (prompt blocks shared with a recent
//!   prompt cost no prefill).
//! - [`capacity`]: the capacity model (at most `slots` requests decode at
//!   once, the rest queue; decode slows as more run together).
//! - [`bounds`]: the longest wait and response a request may ask for (a
//!   public instance cannot be held open by `ttft=1e12`).
//! - [`limit`]: token-bucket rate limits for write APIs (study answers).
//! - [`token`]: the researcher token (made, written, compared in constant
//!   time).
//! - [`protocol`]: the endpoint's additions to the OpenAI API (the request
//!   id header, the ground-truth records), named once for server and app.

pub mod bounds;
pub mod cache;
pub mod capacity;
pub mod fault;
pub mod limit;
pub mod plan;
pub mod protocol;
pub mod token;
