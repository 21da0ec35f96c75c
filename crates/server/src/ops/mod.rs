//! Running `latency-lab serve` as a service others reach, the parts every
//! route uses (they depend on nothing of the study server or the replay
//! endpoint):
//!
//! - [`address`]: the public URL links are built from, the pages whose
//!   writes are taken, the client's address behind a trusted proxy;
//! - [`observe`]: one log line and one count per request;
//! - [`metrics`]: the counters behind `GET /metrics` (Prometheus text);
//! - [`streams`]: the replay endpoint's responses in flight per client;
//! - [`shutdown`]: SIGTERM stops the server without losing a write.
//!
//! The routes that read them, with the study database, are in
//! [`crate::health`].

pub mod address;
pub mod metrics;
pub mod observe;
pub mod shutdown;
pub mod streams;
