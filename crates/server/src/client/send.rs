//! One request of a run: its body, sent over the shared client, its
//! stream recorded chunk by chunk on the run's clock
//! ([`lab_core::stream::record::Recorder`]). Every failure (refused
//! connection, an HTTP error with its body, a cut stream, a timeout) ends in
//! the request's record; none stops the run.

use std::time::{Duration, Instant};

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request as HttpRequest;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use lab_core::stream::endpoint::{EndpointConfig, Message};
use lab_core::stream::record::{Recorder, StreamEnd};
use lab_core::stream::wire::Wire;
use lab_core::trace::{ApiFlavor, FailureKind, RequestTrace};
use lab_core::workload::Request;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// The run's HTTP client (plain HTTP or HTTPS: [`super::tls`]).
pub type HttpClient = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// Largest error body kept (bytes).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// What every request of a run shares.
pub struct Target {
    /// The route of the run's wire (`…/v1/chat/completions`, `…/v1/messages` …).
    pub url: hyper::Uri,
    /// The wire it speaks (`--api`).
    pub wire: Wire,
    /// Chat or completions (OpenAI Chat's two routes).
    pub flavor: ApiFlavor,
    /// The `model` field.
    pub model: String,
    /// Send `min_tokens` and `ignore_eos` (vLLM, SGLang, llama.cpp) so the
    /// answer has its `output_length`.
    pub exact_output: bool,
    /// The key's headers as the wire wants them (`Authorization: Bearer`,
    /// `x-api-key`, `x-goog-api-key`), never recorded.
    pub auth: Vec<(&'static str, String)>,
    /// Longest a request may take.
    pub timeout: Duration,
}

/// The chat request body of workload row `r` (its prompt made by
/// `lab_core::workload::prompts`, or its conversation's messages).
pub fn body(target: &Target, r: &Request, prompt: impl FnOnce() -> String) -> String {
    if target.wire != Wire::Chat || target.flavor != ApiFlavor::Chat {
        return wire_body(target, r, prompt);
    }
    let messages = if r.messages.is_empty() {
        vec![json!({"role": "user", "content": prompt()})]
    } else {
        r.messages.iter().map(|t| json!({"role": t.role, "content": t.text})).collect()
    };
    let mut b = json!({
        "model": target.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
        "max_tokens": r.output_tokens.max(1),
    });
    if target.exact_output {
        b["min_tokens"] = json!(r.output_tokens);
        b["ignore_eos"] = json!(true);
    }
    b.to_string()
}

/// The body of another wire ([`EndpointConfig::body_with`]): the row's
/// messages, its output length as the wire's limit, and with
/// `--exact-output` the engines' `min_tokens` and `ignore_eos`.
fn wire_body(target: &Target, r: &Request, prompt: impl FnOnce() -> String) -> String {
    let messages: Vec<Message> = if r.messages.is_empty() {
        vec![Message::new("user", &prompt())]
    } else {
        r.messages.iter().map(|t| Message::new(&t.role, &t.text)).collect()
    };
    let extra = if target.exact_output {
        json!({"min_tokens": r.output_tokens, "ignore_eos": true}).to_string()
    } else {
        String::new()
    };
    let config = EndpointConfig {
        model: target.model.clone(),
        wire: target.wire,
        api: target.flavor,
        max_tokens: r.output_tokens.max(1),
        temperature: None,
        include_usage: true,
        extra_body: extra,
        ..EndpointConfig::default()
    };
    config.body_with(&messages).unwrap_or_default()
}

/// Sends `body` at once and records the answer; times are ms since `zero`.
pub async fn send(
    client: &HttpClient,
    target: &Target,
    body: String,
    zero: Instant,
    stop: &CancellationToken,
) -> (RequestTrace, Option<String>) {
    let ms = |t: Instant| t.duration_since(zero).as_secs_f64() * 1000.0;
    let mut rec = Recorder::with_wire(ms(Instant::now()), target.wire);
    let mut req = HttpRequest::post(target.url.clone()).header("content-type", "application/json");
    for (name, value) in &target.auth {
        req = req.header(*name, value);
    }
    let req = match req.body(Full::new(Bytes::from(body))) {
        Ok(r) => r,
        Err(e) => return (rec.fail(ms(Instant::now()), FailureKind::Network, e.to_string()), None),
    };
    enum Outcome {
        Done(Box<(RequestTrace, Option<String>)>),
        TimedOut,
        Stopped,
    }
    let rec_ref = &mut rec;
    let exchange = async move {
        let rec = rec_ref;
        let resp = match client.request(req).await {
            Ok(r) => r,
            Err(e) => {
                let why = format!("could not reach {}: {}", target.url, chain(&e));
                return (rec.fail(ms(Instant::now()), FailureKind::Network, why), None);
            }
        };
        let status = resp.status().as_u16();
        let id = resp
            .headers()
            .get(lab_core::serve::protocol::REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let retry = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
        rec.on_headers(ms(Instant::now()), status);
        let mut body = resp.into_body();
        if !(200..300).contains(&status) {
            let mut text = Vec::new();
            while let Some(Ok(frame)) = body.frame().await {
                if let Some(d) = frame.data_ref() {
                    text.extend_from_slice(
                        &d[..d.len().min(MAX_ERROR_BODY - text.len().min(MAX_ERROR_BODY))],
                    );
                }
            }
            let text = String::from_utf8_lossy(&text).into_owned();
            return (rec.fail_http(ms(Instant::now()), status, &text, retry.as_deref()), id);
        }
        let end = loop {
            match body.frame().await {
                None => break StreamEnd::Closed,
                Some(Ok(frame)) => {
                    if let Some(d) = frame.data_ref() {
                        rec.on_bytes(ms(Instant::now()), d);
                    }
                }
                Some(Err(e)) => break StreamEnd::Broken(chain(&e)),
            }
        };
        (rec.finish(ms(Instant::now()), end), id)
    };
    let outcome = {
        tokio::pin!(exchange);
        tokio::select! {
            done = &mut exchange => Outcome::Done(Box::new(done)),
            () = tokio::time::sleep(target.timeout) => Outcome::TimedOut,
            () = stop.cancelled() => Outcome::Stopped,
        }
    };
    // What arrived before a timeout or Ctrl-C is kept.
    match outcome {
        Outcome::Done(done) => *done,
        Outcome::TimedOut => {
            let why = format!("no end after {} s (run --timeout-s)", target.timeout.as_secs());
            (rec.fail(ms(Instant::now()), FailureKind::Truncated, why), None)
        }
        Outcome::Stopped => (rec.finish(ms(Instant::now()), StreamEnd::Aborted), None),
    }
}

/// An error with its causes, as one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}
