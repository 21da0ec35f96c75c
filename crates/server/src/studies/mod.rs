//! The study server (`latency-lab serve`): researchers publish studies,
//! participants join them and send their answers, researchers read the
//! results. The rules ([`service`]) run over a store ([`store`]; on the
//! server's database in [`sql`]); [`http`] puts them on routes.

pub mod http;
pub mod service;
pub mod sql;
pub mod store;
