//! One live request: `fetch` POST, the response body read incrementally
//! through a `ReadableStream` reader into a [`Recorder`], stamped with
//! `performance.now()`; stoppable through an `AbortController`.
//!
//! Stamps: `sent` just before `fetch` is called; `headers` when the `fetch`
//! promise resolves; each chunk when the reader hands its bytes over.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use lab_core::stream::record::{Recorder, StreamEnd, network_failure_message};
use lab_core::trace::{FailureKind, RequestTrace};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::clock::now_ms;
use super::files::js_message;
use super::stream::read_stream;

/// Response header naming the replay endpoint's ground-truth record.
pub const GROUND_TRUTH_HEADER: &str = "x-latency-lab-request-id";

/// What to send.
#[derive(Debug, Clone)]
pub struct LiveRequest {
    /// Completion URL.
    pub url: String,
    /// JSON body.
    pub body: String,
    /// Bearer key (sent only in the Authorization header).
    pub api_key: Option<String>,
    /// CORS advice for this kind of server (with `ORIGIN` placeholders).
    pub cors_hint: String,
}

/// How a request ended, besides its trace.
#[derive(Debug, Clone, Default)]
pub struct LiveOutcome {
    /// Ground-truth id from `latency-lab serve`.
    pub ground_truth_id: Option<String>,
}

/// A stop button for one or more requests.
#[derive(Clone)]
pub struct Abort(web_sys::AbortController);

impl Abort {
    /// A fresh controller.
    pub fn new() -> Option<Self> {
        web_sys::AbortController::new().ok().map(Self)
    }
    /// Aborts every request using it.
    pub fn abort(&self) {
        self.0.abort();
    }
    /// True once aborted.
    pub fn aborted(&self) -> bool {
        self.0.signal().aborted()
    }
    fn signal(&self) -> web_sys::AbortSignal {
        self.0.signal()
    }
}

fn origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

fn build_init(req: &LiveRequest, abort: &Abort) -> Result<web_sys::RequestInit, JsValue> {
    let headers = web_sys::Headers::new()?;
    headers.set("Content-Type", "application/json")?;
    headers.set("Accept", "text/event-stream")?;
    if let Some(key) = req.api_key.as_deref().filter(|k| !k.trim().is_empty()) {
        headers.set("Authorization", &format!("Bearer {}", key.trim()))?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&req.body));
    init.set_signal(Some(&abort.signal()));
    init.set_mode(web_sys::RequestMode::Cors);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    init.set_cache(web_sys::RequestCache::NoStore);
    Ok(init)
}

/// Streams one completion, recording into `rec` (replaced by a fresh
/// recorder stamped with the send time), calling `on_chunks` with the
/// indices of new chunks as they arrive. Returns the finished trace; never fails: every
/// problem becomes a [`lab_core::trace::Failure`] in the trace, which keeps
/// whatever arrived before it.
pub async fn stream_completion(
    req: &LiveRequest,
    abort: &Abort,
    rec: &Rc<RefCell<Recorder>>,
    mut on_chunks: impl FnMut(Range<usize>),
) -> (RequestTrace, LiveOutcome) {
    let mut outcome = LiveOutcome::default();
    let Some(window) = web_sys::window() else {
        let t = rec.borrow_mut().fail(now_ms(), FailureKind::Network, "no browser window".into());
        return (t, outcome);
    };
    let init = match build_init(req, abort) {
        Ok(i) => i,
        Err(e) => {
            let t = rec.borrow_mut().fail(now_ms(), FailureKind::Network, js_message(&e));
            return (t, outcome);
        }
    };
    *rec.borrow_mut() = Recorder::new(now_ms());
    let response = match JsFuture::from(window.fetch_with_str_and_init(&req.url, &init)).await {
        Ok(r) => r.unchecked_into::<web_sys::Response>(),
        Err(e) => {
            let at = now_ms();
            let t = if abort.aborted() {
                rec.borrow_mut().finish(at, StreamEnd::Aborted)
            } else {
                let msg = network_failure_message(&req.url, &origin(), &js_message(&e), &req.cors_hint);
                rec.borrow_mut().fail(at, FailureKind::Network, msg)
            };
            return (t, outcome);
        }
    };
    let headers_at = now_ms();
    let status = response.status();
    rec.borrow_mut().on_headers(headers_at, status);
    let header = |name: &str| response.headers().get(name).ok().flatten();
    outcome.ground_truth_id = header(GROUND_TRUTH_HEADER);
    if !response.ok() {
        let body = match response.text() {
            Ok(p) => JsFuture::from(p).await.ok().and_then(|v| v.as_string()).unwrap_or_default(),
            Err(_) => String::new(),
        };
        let retry = header("retry-after");
        let t = rec.borrow_mut().fail_http(now_ms(), status, &body, retry.as_deref());
        return (t, outcome);
    }
    let content_type = header("content-type").unwrap_or_default();
    let Some(body) = response.body() else {
        let t = rec.borrow_mut().fail(now_ms(), FailureKind::Empty, "The response has no body.".into());
        return (t, outcome);
    };
    if !content_type.contains("text/event-stream") {
        // Not a stream: read it whole, then explain (error JSON, or a server
        // that ignored "stream": true).
        let mut bytes = Vec::new();
        let _ = read_stream(body, |_, b| bytes.extend_from_slice(b)).await;
        let text = String::from_utf8_lossy(&bytes);
        let message = match lab_core::stream::openai::error_from_body(&text) {
            Some(e) => format!("The server answered with an error instead of a stream: {e}"),
            None => format!(
                "The server answered with \"{}\" instead of an event stream (text/event-stream); it may not support streaming. Body: {}",
                if content_type.is_empty() { "no content type" } else { &content_type },
                lab_core::stream::openai::snippet(&text)
            ),
        };
        let t = rec.borrow_mut().fail(now_ms(), FailureKind::Malformed, message);
        return (t, outcome);
    }
    let read = read_stream(body, |at, bytes| {
        let range = rec.borrow_mut().on_bytes(at, bytes);
        if !range.is_empty() {
            on_chunks(range);
        }
    })
    .await;
    let end = match read {
        Ok(()) => StreamEnd::Closed,
        Err(_) if abort.aborted() => StreamEnd::Aborted,
        Err(msg) => StreamEnd::Broken(msg),
    };
    let t = rec.borrow_mut().finish(now_ms(), end);
    (t, outcome)
}

/// Fetches a JSON document with GET (model lists, ground truth). Returns the
/// body text, or a message.
pub async fn get_text(url: &str, api_key: Option<&str>) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let headers = web_sys::Headers::new().map_err(|e| js_message(&e))?;
    if let Some(key) = api_key.filter(|k| !k.trim().is_empty()) {
        headers.set("Authorization", &format!("Bearer {}", key.trim())).map_err(|e| js_message(&e))?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("GET");
    init.set_headers(&headers);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .map_err(|e| js_message(&e))?
        .unchecked_into();
    let text = JsFuture::from(resp.text().map_err(|e| js_message(&e))?)
        .await
        .map_err(|e| js_message(&e))?
        .as_string()
        .unwrap_or_default();
    if resp.ok() {
        Ok(text)
    } else {
        Err(format!("HTTP {}: {}", resp.status(), lab_core::stream::openai::snippet(&text)))
    }
}
