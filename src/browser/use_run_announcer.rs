//! [`use_run_announcer`]: Live's last finished run, announced to the view
//! that shows its results, which lives in an on-demand module
//! (`lab_core::share::command::RUN_EVENT`; that view asks again with
//! `Command::AnnounceRun` when it is mounted after the announcement).

use lab_core::share::command::{FinishedRun, RUN_EVENT};
use leptos::prelude::*;

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
    /// Announces `run`, and keeps it for [`RunAnnouncer::again`].
    pub fn announce(&self, run: &FinishedRun) {
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
