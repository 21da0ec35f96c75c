//! [`use_run_announcer`]: Live's last finished run, handed to the view that
//! shows its results, which lives in an on-demand module: saved to the
//! library, then announced by entry (`lab_core::share::command::RUN_EVENT`;
//! that view asks again with `Command::AnnounceRun` when it is mounted
//! after the announcement) and measured there, once.

use lab_core::share::command::{FinishedRun, RUN_EVENT, Unsaved};
use lab_core::trace::Trace;
use leptos::prelude::*;

use super::library::Library;
use super::page;

/// The announcer (provided as context by the app).
#[derive(Clone, Copy)]
pub struct RunAnnouncer {
    /// The last announcement's JSON.
    last: StoredValue<Option<String>>,
}

/// An announcer with nothing announced yet.
pub fn use_run_announcer() -> RunAnnouncer {
    RunAnnouncer { last: StoredValue::new(None) }
}

impl RunAnnouncer {
    /// Saves `traces` (a run's, or each compared endpoint's, the baseline
    /// first) to `library` as complete, then announces them by entry. When
    /// the library cannot keep them (it answers within about 10 s, opened or
    /// not: `Library::opened`), the announcement carries the traces and
    /// says why, so the view still shows them.
    pub async fn hand_over(&self, library: Library, traces: Vec<Trace>, levels: Vec<(u32, usize)>) {
        // Asked again while saving, the last run is not this one: nothing.
        self.last.set_value(None);
        let compare = traces.iter().any(|t| t.meta.compare.is_some());
        let mut entries = Vec::with_capacity(traces.len());
        let mut unsaved = None;
        for t in &traces {
            match library.saved_trace(t, true).await {
                Ok(id) => entries.push(id),
                Err(e) => {
                    unsaved = Some(Unsaved { error: e.to_string(), traces: traces.clone() });
                    entries.clear();
                    break;
                }
            }
        }
        self.announce(&FinishedRun { entries, levels, compare, unsaved });
    }

    /// Announces `run`, and keeps it for [`RunAnnouncer::again`].
    fn announce(&self, run: &FinishedRun) {
        let json = run.to_json();
        page::dispatch(RUN_EVENT, &json);
        self.last.set_value(Some(json));
    }

    /// Announces the last run again (nothing before the first).
    pub fn again(&self) {
        self.last.with_value(|j| {
            if let Some(j) = j {
                page::dispatch(RUN_EVENT, j);
            }
        });
    }
}
