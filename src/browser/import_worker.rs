//! The worker side of imports: receives `{ json, file? }` messages, reads
//! the file with `FileReaderSync` (workers may block), hands both to
//! `lab_core::import::service::ImportService` and posts its answers back as
//! `{ json }`. All logic is in the service; this is message glue. A
//! workload file is read a slice at a time instead ([`super::import_workload`]).

use std::cell::RefCell;
use std::rc::Rc;

use lab_core::import::service::{FromWorker, ImportService, ToWorker};
use lab_core::import::{ImportError, MAX_IMPORT_BYTES};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use super::files::js_message;

fn post(scope: &web_sys::DedicatedWorkerGlobalScope, msg: &FromWorker) {
    let json = serde_json::to_string(msg).unwrap_or_else(|e| {
        format!(r#"{{"failed":{{"job":null,"name":"","message":"could not encode an answer: {e}"}}}}"#)
    });
    let obj = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&obj, &"json".into(), &json.into());
    let _ = scope.post_message(&obj);
}

fn read(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let size = file.size() as usize;
    if size > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge { size, limit: MAX_IMPORT_BYTES }.to_string());
    }
    let reader = web_sys::FileReaderSync::new().map_err(|e| js_message(&e))?;
    let buf = reader
        .read_as_array_buffer(file)
        .map_err(|e| format!("the browser could not read it: {}", js_message(&e)))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Starts the worker's message loop and reports `Ready`.
pub fn run() {
    let Ok(scope) = js_sys::global().dyn_into::<web_sys::DedicatedWorkerGlobalScope>() else {
        return;
    };
    let service = Rc::new(RefCell::new(ImportService::new()));
    let post_scope = scope.clone();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        let data = ev.data();
        let json =
            js_sys::Reflect::get(&data, &"json".into()).ok().and_then(|j| j.as_string()).unwrap_or_default();
        let msg: ToWorker = match serde_json::from_str(&json) {
            Ok(m) => m,
            Err(e) => {
                let message = format!("the page sent a message the worker does not understand: {e}");
                post(&post_scope, &FromWorker::Failed { job: None, name: String::new(), message });
                return;
            }
        };
        let job = match &msg {
            ToWorker::Import { job, .. } => Some(*job),
            _ => None,
        };
        let started = post_scope.performance().map(|p| p.now());
        let file =
            js_sys::Reflect::get(&data, &"file".into()).ok().and_then(|f| f.dyn_into::<web_sys::File>().ok());
        if let (Some(f), Some(job)) = (&file, job)
            && let Some(format) = super::import_workload::workload_format(f)
        {
            let scope = post_scope.clone();
            let mut progress = move |fraction: f64| {
                let phase = format!("reading the {} workload", format.label());
                post(&scope, &FromWorker::Progress { job, phase, fraction });
            };
            let clock = post_scope.performance();
            let now = move || clock.as_ref().map_or(0.0, |p| p.now());
            post(&post_scope, &super::import_workload::summarize(f, job, format, &mut progress, &now));
            return;
        }
        let bytes = match (&file, job) {
            (Some(f), Some(job)) => {
                post(&post_scope, &FromWorker::Progress { job, phase: "reading".into(), fraction: 0.02 });
                match read(f) {
                    Ok(b) => Some(b),
                    Err(message) => {
                        post(&post_scope, &FromWorker::Failed { job: Some(job), name: f.name(), message });
                        return;
                    }
                }
            }
            _ => None,
        };
        let progress_scope = post_scope.clone();
        let mut progress = move |phase: &str, fraction: f64| {
            if let Some(job) = job {
                post(&progress_scope, &FromWorker::Progress { job, phase: phase.into(), fraction });
            }
        };
        let answers = service.borrow_mut().handle(msg, bytes.as_deref(), &mut progress);
        drop(bytes);
        let took = match (started, post_scope.performance()) {
            (Some(s), Some(p)) => p.now() - s,
            _ => 0.0,
        };
        for mut a in answers {
            if let FromWorker::Imported { took_ms, .. } = &mut a {
                *took_ms = took;
            }
            post(&post_scope, &a);
        }
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&scope, &FromWorker::Ready);
}
