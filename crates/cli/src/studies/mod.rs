//! The study server (`latency-lab serve`): researchers publish studies,
//! participants join them and send their answers, researchers read the
//! results. The rules ([`service`]) run over a store ([`store`]; SQLite or
//! PostgreSQL in [`sql`]); [`http`] puts them on routes, [`setup`] finds the
//! data directory, the database and the researcher token.

pub mod http;
pub mod service;
pub mod setup;
pub mod sql;
pub mod store;
