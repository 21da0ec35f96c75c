//! [`use_finished_run`]: Live's last finished run as another module than
//! the main one sees it: heard on `lab_core::share::command::RUN_EVENT`
//! ([`super::use_run_announcer`]) and measured here, with the same
//! `MeasuredRun::of` Live uses, so both show the same figures (a
//! comparison of endpoints with `lab_core::measure::compare`).

use lab_core::measure::compare::Comparison;
use lab_core::measure::run::MeasuredRun;
use lab_core::share::command::{Command, FinishedRun, RUN_EVENT};
use lab_core::trace::Trace;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::use_commands;

/// A finished run, measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
    /// A run of one endpoint.
    Run(Box<MeasuredRun>),
    /// A comparison of endpoints: the table and each endpoint's trace.
    Compare(Comparison, Vec<Trace>),
}

impl Finished {
    fn of(r: FinishedRun) -> Self {
        if r.compare.is_empty() {
            Self::Run(Box::new(MeasuredRun::of(r.trace, &r.levels)))
        } else {
            Self::Compare(Comparison::of(&r.compare), r.compare)
        }
    }
}

/// The last finished run (`None` until one is announced).
pub fn use_finished_run() -> ReadSignal<Option<Finished>> {
    let (run, set) = signal(None);
    let listener = window_event_listener_untyped(RUN_EVENT, move |ev: web_sys::Event| {
        let json = ev.dyn_ref::<web_sys::CustomEvent>().and_then(|e| e.detail().as_string());
        if let Some(r) = json.as_deref().and_then(FinishedRun::from_json) {
            set.set(Some(Finished::of(r)));
        }
    });
    on_cleanup(move || listener.remove());
    // It may have been announced before this module was loaded.
    use_commands::send(&Command::AnnounceRun);
    run
}
