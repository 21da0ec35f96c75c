//! A probe run with its load's own trace added: the file (a `latency-lab
//! run -o` trace, size-limited) is read and lined up with the run by core's
//! `workload::load_trace`; a file that does not line up says why and
//! changes nothing.

use lab_core::trace::Trace;
use lab_core::workload::load_trace::add_load_trace;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::files;

/// The probe run, and what adding a load trace to it said.
#[derive(Clone, Copy)]
pub struct UseLoadTrace {
    /// The probe run, with the load's windows filled once a trace was added.
    pub trace: RwSignal<Trace>,
    /// The last addition: the file's name and how many of its requests
    /// fell in a window, or why it was refused.
    pub said: RwSignal<Option<Result<(String, usize), String>>>,
}

/// The probe run `trace`, nothing added yet.
pub fn use_load_trace(trace: Trace) -> UseLoadTrace {
    UseLoadTrace { trace: RwSignal::new(trace), said: RwSignal::new(None) }
}

impl UseLoadTrace {
    /// Adds the first of `chosen`.
    pub fn add(&self, chosen: Vec<web_sys::File>) {
        let Some(file) = chosen.into_iter().next() else { return };
        let s = *self;
        spawn_local(async move {
            let said = match files::read_trace(&file).await {
                Ok(load) => {
                    let mut probe = s.trace.get_untracked();
                    match add_load_trace(&mut probe, &load) {
                        Ok(n) => {
                            s.trace.set(probe);
                            Ok((file.name(), n))
                        }
                        Err(e) => Err(format!("{}: {e}", file.name())),
                    }
                }
                Err(e) => Err(e.to_string()),
            };
            s.said.set(Some(said));
        });
    }
}
