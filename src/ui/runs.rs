//! The session's runs: every finished live run and replay of this page, in
//! memory, as sources for replay panes and run comparisons. (What is kept
//! across reloads is the library's job: [`crate::browser::library`].)

use leptos::prelude::*;

use crate::browser::runner::RunOutput;

/// Runs kept in memory for the session (replay sources, comparisons): a
/// long load test must not grow the page without bound.
pub const MAX_SESSION_RUNS: usize = 12;

/// A run kept in the session.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedRun {
    /// Position in the session (1-based).
    pub id: usize,
    /// The run.
    pub output: RunOutput,
}

/// The session's runs (provided as context by the app).
#[derive(Clone, Copy)]
pub struct RunLog {
    /// Runs, oldest first.
    pub runs: RwSignal<Vec<SavedRun>>,
}

impl RunLog {
    /// An empty log.
    pub fn new() -> Self {
        Self { runs: RwSignal::new(Vec::new()) }
    }

    /// Keeps a finished run (the oldest goes beyond [`MAX_SESSION_RUNS`];
    /// the library still has it).
    pub fn add(&self, output: RunOutput) {
        self.runs.update(|r| {
            let id = r.last().map_or(1, |l| l.id + 1);
            r.push(SavedRun { id, output });
            if r.len() > MAX_SESSION_RUNS {
                r.remove(0);
            }
        });
    }
}

impl Default for RunLog {
    fn default() -> Self {
        Self::new()
    }
}
