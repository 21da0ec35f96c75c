//! The only code that touches `web-sys` / `js-sys`: clock, files, streams.
//! Everything here is a thin adapter from browser APIs to plain Rust values,
//! so the UI renders and `lab_core` computes.

pub mod chart_export;
pub mod clock;
pub mod files;
pub mod idb;
pub mod import_worker;
pub mod importer;
pub mod library;
pub mod live;
pub mod paint;
pub mod release_clock;
pub mod render;
pub mod resource;
pub mod runner;
pub mod scheduler;
pub mod share;
pub mod sink;
pub mod storage;
pub mod stream;
pub mod study_store;
pub mod theme;
