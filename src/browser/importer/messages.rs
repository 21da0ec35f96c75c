//! What the import worker says, and what the page does with it.

use lab_core::import::service::FromWorker;
use leptos::prelude::*;

use super::{FileStatus, Importer, ImporterError, LoadedRun, LoadedWorkload};

impl Importer {
    pub(super) fn on_message(&self, msg: FromWorker) {
        match msg {
            FromWorker::Ready => {
                let rc = self.rc();
                let mut inner = rc.borrow_mut();
                inner.ready = true;
                let queue = std::mem::take(&mut inner.queue);
                if let Some(w) = &inner.worker {
                    for m in queue {
                        let _ = w.post_message(&m);
                    }
                }
            }
            FromWorker::Progress { job, phase, fraction } => {
                self.set_status(job, FileStatus::Working(phase, fraction))
            }
            FromWorker::Imported { job, name, runs, took_ms } => {
                let n = runs.len();
                self.runs.update(|all| {
                    all.extend(runs.into_iter().map(|(key, digest)| LoadedRun {
                        key,
                        file: name.clone(),
                        digest,
                    }))
                });
                self.set_status(job, FileStatus::Done(n, took_ms));
            }
            FromWorker::Workload { job, name, digest, took_ms, memory_bytes } => {
                let n = digest.requests;
                self.workloads.update(|all| all.push(LoadedWorkload { file: name, digest: *digest }));
                self.set_status(job, FileStatus::Summarized(n, took_ms, memory_bytes));
            }
            FromWorker::Updated { key, digest } => self.runs.update(|all| {
                if let Some(r) = all.iter_mut().find(|r| r.key == key) {
                    r.digest = *digest;
                }
            }),
            FromWorker::Waiting { job, message, .. } => self.set_status(job, FileStatus::Waiting(message)),
            FromWorker::Request { purpose, trace, .. } => {
                let done = self.rc().borrow().pending.borrow_mut().remove(&purpose);
                if let Some(done) = done {
                    done(Ok(*trace));
                }
            }
            FromWorker::RequestFailed { purpose, message } => {
                let done = self.rc().borrow().pending.borrow_mut().remove(&purpose);
                if let Some(done) = done {
                    done(Err(ImporterError::Request(message)));
                }
            }
            FromWorker::Failed { job: Some(job), message, .. } => {
                self.set_status(job, FileStatus::Failed(message))
            }
            FromWorker::Failed { job: None, name, message } => {
                self.notice.set(Some(if name.is_empty() { message } else { format!("{name}: {message}") }))
            }
        }
    }
}
