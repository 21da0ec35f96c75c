//! Latency Lab's test helpers, for `crates/cli`'s and `crates/server`'s tests, unit tests and
//! examples (a dev-dependency only; nothing in the product links it):
//!
//! - [`pg_cluster`]: a throwaway PostgreSQL cluster, started by the tests;
//! - [`serve_process`]: `latency-lab serve` as a child process;
//! - [`http`]: a tiny blocking HTTP/1.1 client over `TcpStream`;
//! - [`study_client`]: a participant of a study, over that client;
//! - [`reference_page`]: a book page made from the code, checked or written.

pub mod http;
pub mod pg_cluster;
pub mod reference_page;
pub mod serve_process;
pub mod study_client;
