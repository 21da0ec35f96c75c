//! [`use_page_runs`]: the session's runs as a module other than the main one
//! sees them: the library's runs saved since this page was opened.
//!
//! The main module keeps its finished live runs and replays in memory
//! ([`crate::browser::use_session_runs`]) and saves each to the library; an
//! on-demand module shares no memory with it, so it reads the same runs
//! back from the library (and follows it as runs are saved).

use lab_core::measure::run::MeasuredRun;
use lab_core::share::library::runs_since;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Library;
use crate::browser::page;
use crate::browser::use_session_runs::{MAX_SESSION_RUNS, SessionRun, SessionRuns};

/// The session's runs, read from `lib`.
pub fn use_page_runs(lib: Library) -> SessionRuns {
    let runs = SessionRuns { runs: RwSignal::new(Vec::new()) };
    let opened = page::opened_ms();
    let ids = Memo::new(move |_| {
        lib.entries.with(|l| {
            runs_since(l, opened, MAX_SESSION_RUNS).into_iter().map(|e| e.id.clone()).collect::<Vec<_>>()
        })
    });
    // Loaded runs by entry id, kept across changes of the list.
    let loaded = StoredValue::new_local(Vec::<(String, MeasuredRun)>::new());
    Effect::new(move |_| {
        let ids = ids.get();
        spawn_local(async move {
            let mut out = Vec::new();
            for id in &ids {
                let known = loaded.with_value(|l| l.iter().find(|(i, _)| i == id).map(|(_, r)| r.clone()));
                let run = match known {
                    Some(r) => r,
                    // A run that cannot be read back is left out, as the
                    // library view says why when it is opened.
                    None => match lib.trace(id).await {
                        Ok(t) => MeasuredRun::of(t, &[]),
                        Err(_) => continue,
                    },
                };
                out.push((id.clone(), run));
            }
            let list = out
                .iter()
                .enumerate()
                .map(|(i, (_, run))| SessionRun { id: i + 1, run: run.clone() })
                .collect();
            loaded.set_value(out);
            let _ = runs.runs.try_set(list);
        });
    });
    runs
}
