//! `lab-server`: everything `latency-lab serve` serves, as a library. The
//! `latency-lab` binary (`crates/cli`) parses the command line into a
//! [`serve::Config`] and calls [`serve::run`]; tests build the same routes
//! in process with [`serve::router::router`].
//!
//! The rooms, from the bottom up (a room imports only itself and the rooms
//! before it; `crates/core/tests/architecture.rs` checks it):
//!
//! | room | holds |
//! |---|---|
//! | [`error`] | [`error::ApiError`], how every route refuses a request |
//! | [`ops`] | public address and allowed origins, request logs, metrics, streams per client, shutdown |
//! | [`db`] | the database (SQLite or PostgreSQL), its migrations, the data directory and the researcher token |
//! | [`site`] | the built app's files, their caching and the page's headers |
//! | [`client`] | one request sent and its stream recorded (the built-in load's and `latency-lab run`'s) |
//! | [`replay`] | the replay endpoint: every wire's routes, the pacer, ground truth, traffic, the built-in load |
//! | [`studies`] | the study server on [`db`] |
//! | [`field`] | the field collector on [`db`] |
//! | [`health`] | `/healthz`, `/readyz`, `/metrics` |
//! | [`serve`] | the whole router and the serving threads |

pub mod error;

pub mod ops;

pub mod db;

pub mod site;

pub mod client;

pub mod replay;

pub mod studies;

pub mod field;

pub mod health;

pub mod serve;
