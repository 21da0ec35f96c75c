//! A trace file opened for analysis: read (size-limited), checked,
//! measured once; a bad file says why and leaves what was open before.

use lab_core::measure::run::MeasuredRun;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::files;

/// The open trace and the state of reading one.
#[derive(Clone, Copy)]
pub struct UseTraceFile {
    /// The file's name and its run, measured.
    pub loaded: RwSignal<Option<(String, MeasuredRun)>>,
    /// Why the last file could not be opened.
    pub error: RwSignal<Option<String>>,
    /// A file is being read.
    pub busy: RwSignal<bool>,
}

/// Nothing open yet.
pub fn use_trace_file() -> UseTraceFile {
    UseTraceFile { loaded: RwSignal::new(None), error: RwSignal::new(None), busy: RwSignal::new(false) }
}

impl UseTraceFile {
    /// Opens the first of `chosen`.
    pub fn open(&self, chosen: Vec<web_sys::File>) {
        let Some(file) = chosen.into_iter().next() else { return };
        let s = *self;
        s.busy.set(true);
        spawn_local(async move {
            let name = file.name();
            let read = files::read_trace(&file).await;
            match read {
                Ok(trace) => {
                    s.loaded.set(Some((name, MeasuredRun::of(trace, &[]))));
                    s.error.set(None);
                }
                Err(e) => s.error.set(Some(e.to_string())),
            }
            s.busy.set(false);
        });
    }
}
