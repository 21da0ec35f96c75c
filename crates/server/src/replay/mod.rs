//! The replay endpoint: every wire's routes ([`api`], and [`pages`] for
//! pages that do not `fetch`) play the profiles and traces of the
//! [`catalog`]; each body event leaves at its planned time ([`pacer`],
//! [`emit`]) and what was sent is kept as ground truth ([`truth`]); the
//! requests admitted are numbered ([`traffic`]) so a probe can read the
//! server's side of any window, and [`load`] is the built-in load that
//! loads it.

pub mod api;
pub mod catalog;
pub mod emit;
pub mod load;
pub mod pacer;
pub mod pages;
pub mod traffic;
pub mod truth;
