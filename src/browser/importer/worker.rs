//! Starting the import worker on first use, a module that does not load
//! (the files wait, Retry loads it again), and a worker that stops.

use super::*;

impl Importer {
    /// Starts the worker on first use (its 400 kB of wasm load only when a
    /// file is imported).
    pub(super) fn start(self) {
        if self.rc().borrow().worker.is_some() {
            return;
        }
        let opts = web_sys::WorkerOptions::new();
        let worker = match web_sys::Worker::new_with_options(WORKER_URL, &opts) {
            Ok(w) => w,
            Err(e) => {
                let why = ImporterError::NoWorker(js_message(&e)).to_string();
                self.files.update(|f| {
                    for j in f.iter_mut().filter(|j| matches!(j.status, FileStatus::Working(..))) {
                        j.status = FileStatus::Failed(why.clone());
                    }
                });
                self.notice.set(Some(why));
                return;
            }
        };
        let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let failed =
                js_sys::Reflect::get(&ev.data(), &"loadFailed".into()).ok().and_then(|j| j.as_string());
            if let Some(why) = failed {
                return self.not_loaded(why);
            }
            let json = js_sys::Reflect::get(&ev.data(), &"json".into()).ok().and_then(|j| j.as_string());
            match json.as_deref().map(serde_json::from_str::<FromWorker>) {
                Some(Ok(msg)) => self.on_message(msg),
                _ => self.notice.set(Some(ImporterError::Garbled.to_string())),
            }
        });
        worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            // A script that fails to load fires a plain `Event`, an uncaught
            // error an `ErrorEvent` with its message.
            let said = ev.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message());
            if !self.rc().borrow().ready {
                return self.not_loaded(said.unwrap_or_else(|| "its loader did not load".into()));
            }
            let said = said.unwrap_or_default();
            let e = ImporterError::Crashed(said.clone());
            self.notice.set(Some(e.to_string()));
            self.files.update(|f| {
                for j in f.iter_mut().filter(|j| matches!(j.status, FileStatus::Working(..))) {
                    j.status = FileStatus::Failed(format!("the import worker stopped: {said}"));
                }
            });
            // Requests waiting for it hear why they will not come.
            let waiting: Vec<_> = self.rc().borrow().pending.borrow_mut().drain().collect();
            for (_, done) in waiting {
                done(Err(e.clone()));
            }
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        inner.worker = Some(worker);
        inner._handler = Some(handler);
        inner._on_error = Some(on_error);
    }

    /// The module did not load: the files wait (their messages stay
    /// queued) and the view offers Retry.
    pub(super) fn not_loaded(&self, why: String) {
        let e = ImporterError::NotLoaded(why);
        self.files.update(|f| {
            for j in f.iter_mut().filter(|j| matches!(j.status, FileStatus::Working(..))) {
                j.status = FileStatus::Waiting(LOAD_WAIT.into());
            }
        });
        self.unloaded.set(Some(e));
    }

    /// Loads the import module again after it failed to load; the files
    /// waiting for it go on.
    pub fn retry(&self) {
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            if let Some(w) = inner.worker.take() {
                w.terminate();
            }
            inner.ready = false;
            inner._handler = None;
            inner._on_error = None;
        }
        self.unloaded.set(None);
        self.files.update(|f| {
            for j in f.iter_mut().filter(|j| matches!(&j.status, FileStatus::Waiting(m) if m == LOAD_WAIT)) {
                j.status = FileStatus::Working("queued".into(), 0.0);
            }
        });
        self.start();
    }
}
