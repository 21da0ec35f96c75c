//! [`use_finished_run`]: Live's last finished run as another module than
//! the main one sees it: heard on `lab_core::share::command::RUN_EVENT`
//! ([`super::use_run_announcer`]) by its library entries, read back from
//! the library and measured here, the one time it is measured (with the
//! same `MeasuredRun::of` every view uses; a comparison of endpoints with
//! `lab_core::measure::compare`). A run that cannot be handed over is said.

use lab_core::measure::compare::Comparison;
use lab_core::measure::run::MeasuredRun;
use lab_core::share::command::{Command, FinishedRun, RUN_EVENT};
use lab_core::trace::Trace;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::library::{Library, use_measured_runs};
use super::use_commands;

/// A finished run, measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
    /// A run of one endpoint.
    Run(Box<MeasuredRun>),
    /// A comparison of endpoints: the table and each endpoint's trace.
    Compare(Comparison, Vec<Trace>),
    /// It could not be handed over: why.
    Failed(String),
}

/// The last finished run (`None` until one is announced), and why the
/// library could not keep it, when it could not.
pub struct UseFinishedRun {
    /// The run.
    pub run: ReadSignal<Option<Finished>>,
    /// The library's error, when the run was not saved.
    pub unsaved: ReadSignal<Option<String>>,
}

/// Follows Live's announcements; `lib` holds the runs announced.
pub fn use_finished_run(lib: Library) -> UseFinishedRun {
    let (run, set) = signal(None);
    let (unsaved, set_unsaved) = signal(None);
    let measured = use_measured_runs();
    let listener = window_event_listener_untyped(RUN_EVENT, move |ev: web_sys::Event| {
        let json = ev.dyn_ref::<web_sys::CustomEvent>().and_then(|e| e.detail().as_string());
        let announced = match json.as_deref().map(FinishedRun::from_json) {
            Some(Ok(a)) => a,
            Some(Err(e)) => {
                return set.set(Some(Finished::Failed(format!("its announcement cannot be read: {e}"))));
            }
            None => return set.set(Some(Finished::Failed("its announcement holds no text".into()))),
        };
        spawn_local(async move {
            set_unsaved.set(announced.unsaved.as_ref().map(|u| u.error.clone()));
            let _ = set.try_set(Some(receive(lib, measured, announced).await));
        });
    });
    on_cleanup(move || listener.remove());
    // It may have been announced before this module was loaded.
    use_commands::send(&Command::AnnounceRun);
    UseFinishedRun { run, unsaved }
}

/// The announced run, read and measured (or found measured).
async fn receive(lib: Library, measured: super::library::MeasuredRuns, a: FinishedRun) -> Finished {
    let one = a.entries.first().filter(|_| !a.compare && a.unsaved.is_none());
    // Measured already (by the comparisons' reading of the library), unless
    // the run has levels, which that reading does not know of.
    if let Some(m) = one.filter(|_| a.levels.is_empty()).and_then(|id| measured.get(id)) {
        return Finished::Run(Box::new(m));
    }
    let traces = match a.unsaved {
        Some(u) => u.traces,
        None => {
            let mut out = Vec::with_capacity(a.entries.len());
            for id in &a.entries {
                match lib.trace(id).await {
                    Ok(t) => out.push(t),
                    Err(e) => {
                        return Finished::Failed(format!("it cannot be read back from the library: {e}"));
                    }
                }
            }
            out
        }
    };
    if a.compare {
        return Finished::Compare(Comparison::of(&traces), traces);
    }
    let Some(trace) = traces.into_iter().next() else {
        return Finished::Failed("the announcement names no run".into());
    };
    let run = MeasuredRun::of(trace.clone(), &FinishedRun::levels_of(&trace, &a.levels));
    if let Some(id) = one {
        measured.put(id, run.clone());
    }
    Finished::Run(Box::new(run))
}
