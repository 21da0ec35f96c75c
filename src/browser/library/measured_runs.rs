//! [`MeasuredRuns`]: the runs an on-demand module has measured, by library
//! entry, so each saved run is measured once in it whichever view asks
//! first (Live's results, [`super::use_page_runs`] for the comparisons).

use lab_core::measure::run::MeasuredRun;
use leptos::prelude::*;

use crate::browser::use_session_runs::MAX_SESSION_RUNS;

/// Runs measured in this module (the last [`MAX_SESSION_RUNS`] and then
/// some: a comparison's endpoints besides).
#[derive(Clone, Copy)]
pub struct MeasuredRuns {
    runs: StoredValue<Vec<(String, MeasuredRun)>, LocalStorage>,
}

/// The module's measured runs (one per module: `use_shared`).
pub fn use_measured_runs() -> MeasuredRuns {
    crate::browser::use_shared::use_shared(|| MeasuredRuns { runs: StoredValue::new_local(Vec::new()) })
}

impl MeasuredRuns {
    /// The run of entry `id`, when measured.
    pub fn get(&self, id: &str) -> Option<MeasuredRun> {
        self.runs.with_value(|r| r.iter().find(|(i, _)| i == id).map(|(_, m)| m.clone()))
    }

    /// Keeps the run of entry `id` (the oldest goes past twice
    /// [`MAX_SESSION_RUNS`]).
    pub fn put(&self, id: &str, run: MeasuredRun) {
        self.runs.update_value(|r| {
            r.retain(|(i, _)| i != id);
            r.push((id.to_string(), run));
            if r.len() > 2 * MAX_SESSION_RUNS {
                r.remove(0);
            }
        });
    }
}
