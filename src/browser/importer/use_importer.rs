//! [`use_importer`]: the importer hook (starts the import worker on first use).

use super::*;

/// Starts the import worker and returns its handle.
pub fn use_importer() -> Importer {
    let importer = Importer {
        inner: StoredValue::new_local(Rc::new(RefCell::new(Inner {
            worker: None,
            ready: false,
            queue: Vec::new(),
            next_job: 0,
            next_purpose: 0,
            pending: Rc::new(RefCell::new(HashMap::new())),
            _handler: None,
            _on_error: None,
        }))),
        files: RwSignal::new(Vec::new()),
        runs: RwSignal::new(Vec::new()),
        workloads: RwSignal::new(Vec::new()),
        slos: RwSignal::new(lab_core::measure::slo::SloSet::standard().to_string()),
        notice: RwSignal::new(None),
        unloaded: RwSignal::new(None),
    };
    on_cleanup(move || {
        if let Some(rc) = importer.inner.try_get_value()
            && let Some(w) = rc.borrow_mut().worker.take()
        {
            w.terminate();
        }
    });
    importer
}
