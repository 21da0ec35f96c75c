//! The page side of imports: a leptos-use-style hook around the import
//! worker (`import_worker` binary). Files go to the worker by reference; the
//! page gets back progress, small run digests and single requests, so even a
//! 216 MB result file never blocks the page.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use lab_core::import::service::{FromWorker, RunKey, ToWorker};
use lab_core::trace::RequestTrace;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use super::files::js_message;

mod error;
mod jobs;
mod messages;
mod replay;
mod use_importer;
mod worker;

pub use error::ImporterError;
pub use jobs::{FileJob, FileStatus, LoadedRun, LoadedWorkload};
pub use replay::{Pick, replay_pair};
pub use use_importer::use_importer;

/// The worker's loader (`public/import-worker.js`): it loads wasm-bindgen's
/// script and the wasm, and reports a part that does not load.
pub const WORKER_URL: &str = "./public/import-worker.js";
/// A file's state while the import module has not loaded.
const LOAD_WAIT: &str = "waiting for the import module";
/// The files of the import module, prefetched in idle time after the
/// landing replay has played.
pub const MODULE_FILES: [&str; 3] = [WORKER_URL, "./import_worker.js", "./import_worker_bg.wasm"];

type Pending = Rc<RefCell<HashMap<String, Box<dyn FnOnce(Result<RequestTrace, ImporterError>)>>>>;

struct Inner {
    worker: Option<web_sys::Worker>,
    ready: bool,
    queue: Vec<js_sys::Object>,
    next_job: u32,
    next_purpose: u64,
    pending: Pending,
    _handler: Option<Closure<dyn FnMut(web_sys::MessageEvent)>>,
    _on_error: Option<Closure<dyn FnMut(web_sys::Event)>>,
}

/// The importer handle (copyable; provided as context by the app).
#[derive(Clone, Copy)]
pub struct Importer {
    inner: StoredValue<Rc<RefCell<Inner>>, LocalStorage>,
    /// Files, newest last.
    pub files: RwSignal<Vec<FileJob>>,
    /// Runs, in load order.
    pub runs: RwSignal<Vec<LoadedRun>>,
    /// Workload files summarised, in load order.
    pub workloads: RwSignal<Vec<LoadedWorkload>>,
    /// SLOs for goodput (`ttft:200,tpot:15,e2el:3000`).
    pub slos: RwSignal<String>,
    /// A problem not tied to one file (worker could not start, bad SLOs).
    pub notice: RwSignal<Option<String>>,
    /// Why the import module did not load ([`Importer::retry`] loads it again).
    pub unloaded: RwSignal<Option<ImporterError>>,
}

fn message(msg: &ToWorker, file: Option<&web_sys::File>) -> js_sys::Object {
    let obj = js_sys::Object::new();
    let json = serde_json::to_string(msg).unwrap_or_default();
    let _ = js_sys::Reflect::set(&obj, &"json".into(), &json.into());
    if let Some(f) = file {
        let _ = js_sys::Reflect::set(&obj, &"file".into(), f);
    }
    obj
}

impl Importer {
    fn rc(&self) -> Rc<RefCell<Inner>> {
        self.inner.get_value()
    }

    fn send(&self, obj: js_sys::Object) {
        self.start();
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        match (&inner.worker, inner.ready) {
            (Some(w), true) => {
                if let Err(e) = w.post_message(&obj) {
                    self.notice.set(Some(ImporterError::Unreachable(js_message(&e)).to_string()));
                }
            }
            _ => inner.queue.push(obj),
        }
    }

    fn slos_now(&self) -> Option<String> {
        Some(self.slos.get_untracked()).filter(|s| !s.trim().is_empty())
    }

    /// Hands a batch of files to the worker; the failures of earlier
    /// batches are cleared (they stay beside the files they came with).
    pub fn import(&self, files: Vec<web_sys::File>) {
        if files.is_empty() {
            return;
        }
        self.files.update(|f| f.retain(|j| !matches!(j.status, FileStatus::Failed(_))));
        self.notice.set(None);
        for file in files {
            self.import_one(file);
        }
    }

    fn import_one(&self, file: web_sys::File) {
        let job = {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            inner.next_job += 1;
            inner.next_job
        };
        let name = file.name();
        self.files.update(|f| {
            f.push(FileJob {
                job,
                name: name.clone(),
                size: file.size(),
                status: FileStatus::Working("queued".into(), 0.0),
                started_ms: crate::browser::clock::now_ms(),
                finished_ms: None,
            })
        });
        let msg = ToWorker::Import { job, name, slos: self.slos_now() };
        self.send(message(&msg, Some(&file)));
    }

    /// Takes SLOs typed by a person (empty: no SLOs, no goodput) and
    /// re-analyses every run under them; a typo is shown and changes nothing.
    pub fn apply_slos(&self, text: &str) {
        let text = text.trim().to_string();
        match (text.is_empty(), text.parse::<lab_core::measure::slo::SloSet>()) {
            (false, Err(e)) => self.notice.set(Some(ImporterError::Slos(e.to_string()).to_string())),
            _ => {
                self.notice.set(None);
                self.slos.set(text);
                self.reanalyze();
            }
        }
    }

    /// Scores imports with these custom scenarios too (beside the
    /// presets), and re-analyses the runs held.
    /// Before the first import the message only waits in the queue: the
    /// worker still starts on first use.
    pub fn set_scenarios(&self, custom: Vec<lab_core::measure::score::Scenario>) {
        let msg = message(&ToWorker::Scenarios { custom }, None);
        if self.rc().borrow().worker.is_some() {
            self.send(msg);
            self.reanalyze();
        } else {
            self.rc().borrow_mut().queue.push(msg);
        }
    }

    /// Recomputes every run's analysis under the current SLOs.
    pub fn reanalyze(&self) {
        let slos = self.slos_now();
        for key in self.runs.with_untracked(|r| r.iter().map(|r| r.key).collect::<Vec<_>>()) {
            self.send(message(&ToWorker::Analyze { key, slos: slos.clone() }, None));
        }
    }

    /// Forgets a run.
    pub fn remove(&self, key: RunKey) {
        self.runs.update(|r| r.retain(|x| x.key != key));
        self.send(message(&ToWorker::Remove { key }, None));
    }

    /// Fetches one request in full; `done` receives it (or why not).
    pub fn request(
        &self,
        key: RunKey,
        index: usize,
        done: impl FnOnce(Result<RequestTrace, ImporterError>) + 'static,
    ) {
        let purpose = {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            inner.next_purpose += 1;
            let p = format!("r{}", inner.next_purpose);
            inner.pending.borrow_mut().insert(p.clone(), Box::new(done));
            p
        };
        self.send(message(&ToWorker::Request { key, index, purpose }, None));
    }

    fn set_status(&self, job: u32, status: FileStatus) {
        let now = crate::browser::clock::now_ms();
        self.files.update(|f| {
            if let Some(j) = f.iter_mut().find(|j| j.job == job) {
                if !matches!(status, FileStatus::Working(..)) {
                    j.finished_ms = Some(now);
                }
                j.status = status;
            }
        });
    }
}
