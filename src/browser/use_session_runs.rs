//! The session's runs: every finished live run and replay of this page, in
//! memory, as sources for replay panes. (What is kept across reloads is the
//! library's job: [`super::library`]; the modules that compare runs read
//! them from there, [`super::library::use_page_runs`], and measure them.)

use lab_core::trace::Trace;
use leptos::prelude::*;

/// Runs kept in memory for the session: a long load test must not grow the
/// page without bound (the library still has every run).
pub const MAX_SESSION_RUNS: usize = 12;

/// A run kept in the session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRun {
    /// Position in the session (1-based).
    pub id: usize,
    /// Its requests.
    pub trace: Trace,
}

/// The session's runs (provided as context by the app).
#[derive(Clone, Copy)]
pub struct SessionRuns {
    /// Runs, oldest first.
    pub runs: RwSignal<Vec<SessionRun>>,
}

/// An empty list of session runs.
pub fn use_session_runs() -> SessionRuns {
    SessionRuns { runs: RwSignal::new(Vec::new()) }
}

impl SessionRuns {
    /// Keeps a finished run (the oldest goes beyond [`MAX_SESSION_RUNS`]).
    pub fn add(&self, trace: Trace) {
        self.runs.update(|r| {
            let id = r.last().map_or(1, |l| l.id + 1);
            r.push(SessionRun { id, trace });
            if r.len() > MAX_SESSION_RUNS {
                r.remove(0);
            }
        });
    }
}
