//! [`use_page_runs`]: the session's runs as a module other than the main one
//! sees them: the library's runs saved since this page was opened, measured.
//!
//! The main module keeps its finished live runs and replays in memory
//! ([`crate::browser::use_session_runs`]) and saves each to the library; an
//! on-demand module shares no memory with it, so it reads the same runs
//! back from the library (and follows it as runs are saved), measuring
//! each once ([`super::MeasuredRuns`]).

use lab_core::measure::run::MeasuredRun;
use lab_core::share::library::runs_since;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{Library, use_measured_runs};
use crate::browser::page;
use crate::browser::use_session_runs::MAX_SESSION_RUNS;

/// A run of this page, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRun {
    /// Position among them (1-based).
    pub id: usize,
    /// The run.
    pub run: MeasuredRun,
}

/// The page's runs (provided as context by the views that compare runs).
#[derive(Clone, Copy)]
pub struct PageRuns {
    /// Runs, oldest first.
    pub runs: RwSignal<Vec<PageRun>>,
}

/// The session's runs, read from `lib`.
pub fn use_page_runs(lib: Library) -> PageRuns {
    let runs = PageRuns { runs: RwSignal::new(Vec::new()) };
    let measured = use_measured_runs();
    let opened = page::opened_ms();
    let ids = Memo::new(move |_| {
        lib.entries.with(|l| {
            runs_since(l, opened, MAX_SESSION_RUNS).into_iter().map(|e| e.id.clone()).collect::<Vec<_>>()
        })
    });
    Effect::new(move |_| {
        let ids = ids.get();
        spawn_local(async move {
            let mut out = Vec::new();
            for id in &ids {
                let run = match measured.get(id) {
                    Some(r) => r,
                    // A run that cannot be read back is left out, as the
                    // library view says why when it is opened.
                    None => match lib.trace(id).await {
                        Ok(t) => {
                            let run = MeasuredRun::of(t, &[]);
                            measured.put(id, run.clone());
                            run
                        }
                        Err(_) => continue,
                    },
                };
                out.push(PageRun { id: out.len() + 1, run });
            }
            let _ = runs.runs.try_set(out);
        });
    });
    runs
}
