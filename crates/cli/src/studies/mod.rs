//! A study server's parts: the rules ([`service`]) over a store
//! ([`store`]). The HTTP routes, the researcher token and the SQLite /
//! PostgreSQL stores build on these (issue 18, in progress).
#![allow(dead_code)] // Not yet routed: the HTTP layer comes next.

#[cfg(test)]
pub mod pg_cluster;
pub mod service;
pub mod sql;
pub mod store;
