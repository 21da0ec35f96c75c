//! HTTP through the browser's own `fetch`, called with web-sys.
//!
//! gloo-net (named in the design card) was tried and measured: it adds
//! 3.4 kB gzip to the page's wasm (BENCHMARKS.md, "What a dependency
//! costs") for two calls the lab makes: a streamed POST and a small GET.
//! Those calls are short here, and the live path keeps one promise hop per
//! read (no wrapper futures between the reader and the clock).

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, RequestCredentials, RequestInit, Response};

use super::files::js_message;

/// Why an HTTP call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The request could not be made (no window, a header the browser refuses).
    #[error("the request could not be made: {0}")]
    Request(String),
    /// No response: the network, the server or CORS (the browser does not
    /// say which), or the request was aborted. The browser's message.
    #[error("{0}")]
    Network(String),
    /// An HTTP error, with the start of the server's answer.
    #[error("HTTP {status}: {body}")]
    Http {
        /// Status code.
        status: u16,
        /// The start of the body ([`lab_core::stream::openai::snippet`]).
        body: String,
    },
}

/// Headers for a request: `pairs` in order, then the API key (trimmed, if
/// not blank) as a bearer token. The key goes nowhere else.
pub fn headers(pairs: &[(&str, &str)], api_key: Option<&str>) -> Result<Headers, JsValue> {
    let headers = Headers::new()?;
    for (name, value) in pairs {
        headers.set(name, value)?;
    }
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.set("Authorization", &format!("Bearer {key}"))?;
    }
    Ok(headers)
}

/// Sends a request; the error is what the browser said ("Failed to
/// fetch", "The operation was aborted."), without the error's type.
pub async fn send(url: &str, init: &RequestInit) -> Result<Response, FetchError> {
    let window = web_sys::window().ok_or_else(|| FetchError::Request("this page has no window".into()))?;
    let response = JsFuture::from(window.fetch_with_str_and_init(url, init))
        .await
        .map_err(|e| FetchError::Network(js_message(&e)))?;
    response.dyn_into::<Response>().map_err(|e| FetchError::Network(js_message(&e)))
}

/// The body as text; empty when it cannot be read (the status still says
/// what happened).
pub async fn text_of(response: &Response) -> String {
    match response.text() {
        Ok(p) => JsFuture::from(p).await.ok().and_then(|v| v.as_string()).unwrap_or_default(),
        Err(_) => String::new(),
    }
}

/// A response header, if present.
pub fn header(response: &Response, name: &str) -> Option<String> {
    response.headers().get(name).ok().flatten()
}

/// Fetches a document with GET (no cookies; the key, if any, only in the
/// Authorization header). Returns the body text, or a message that says
/// what went wrong (with the server's answer for an HTTP error).
pub async fn get_text(url: &str, api_key: Option<&str>) -> Result<String, FetchError> {
    call_text("GET", url, None, api_key).await
}

/// Fetches a document with GET and these headers (a wire's auth headers:
/// [`lab_core::stream::endpoint::EndpointConfig::auth_headers`]); the
/// answer as [`get_text`] gives it.
pub async fn get_text_with(url: &str, auth: &[(&'static str, String)]) -> Result<String, FetchError> {
    let init = RequestInit::new();
    init.set_method("GET");
    let pairs: Vec<(&str, &str)> = auth.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let headers = headers(&pairs, None).map_err(|e| FetchError::Request(js_message(&e)))?;
    init.set_headers(&headers);
    text_answer(url, &init).await
}

/// Sends `init` (no cookies) and reads the answer as text: the body, or
/// the HTTP error with the start of the server's answer.
async fn text_answer(url: &str, init: &RequestInit) -> Result<String, FetchError> {
    init.set_credentials(RequestCredentials::Omit);
    let response = send(url, init).await?;
    let text = text_of(&response).await;
    if response.ok() {
        Ok(text)
    } else {
        Err(FetchError::Http { status: response.status(), body: lab_core::stream::openai::snippet(&text) })
    }
}

/// Calls `url` with `method` and, if any, a JSON `body`; the answer as
/// [`get_text`] gives it.
pub async fn call_text(
    method: &str,
    url: &str,
    body: Option<&str>,
    api_key: Option<&str>,
) -> Result<String, FetchError> {
    let init = RequestInit::new();
    init.set_method(method);
    let pairs: &[(&str, &str)] = if body.is_some() { &[("Content-Type", "application/json")] } else { &[] };
    let headers = headers(pairs, api_key).map_err(|e| FetchError::Request(js_message(&e)))?;
    init.set_headers(&headers);
    if let Some(b) = body {
        init.set_body(&JsValue::from_str(b));
    }
    text_answer(url, &init).await
}
