//! The run library hook: every live run, replay and imported file saved in
//! IndexedDB ([`super::idb`]), listed as `lab_core::share::library::Entry`s.
//! Writes are queued in order and each waits for its commit; failures (a
//! full disk included) land in [`Library::error`] with the reason.

mod bundle;
mod measured_runs;
mod sync;
mod use_library;
mod use_page_runs;

pub use measured_runs::{MeasuredRuns, use_measured_runs};
pub use use_library::{Library, use_library};
pub use use_page_runs::{PageRun, PageRuns, use_page_runs};
