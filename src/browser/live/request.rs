//! One live request, from `fetch` to its trace. The request's [`Recorder`]
//! has one owner, the future below: it stamps each piece of the body as it
//! is read and, for the request on screen, each animation frame that shows
//! new text, so every arrival and every paint is stamped once, in one place.
//!
//! Stamps: `sent` just before `fetch` is called (the request is built
//! first); `headers` when the `fetch` promise resolves; each chunk when the
//! reader hands its bytes over; a chunk's paint in the first animation frame
//! after its text was put on the page (see [`crate::browser::paint`]).
//!
//! Never fails: every problem becomes a [`lab_core::trace::Failure`] in the
//! trace, which keeps whatever arrived before it.

use futures_util::{FutureExt, pin_mut, select_biased};

use lab_core::stream::live::LiveStats;
use lab_core::stream::record::{Recorder, StreamEnd, network_failure_message};
use lab_core::trace::{ChunkKind, FailureKind, RequestTrace};
use web_sys::{RequestCache, RequestCredentials, RequestMode};

use super::Abort;
use super::answer::Answer;
use super::screen::{OnScreen, prepare, waiting};
use crate::browser::clock::now_ms;
use crate::browser::fetch::{header, headers, send, text_of};
use crate::browser::files::js_message;
use crate::browser::page;
use crate::browser::paint::{next_frame, settled};
use crate::browser::render::{append_text, append_tool_call, follow_bottom};
use crate::browser::stream::{Piece, StreamReader};
use wasm_bindgen::JsValue;

/// How often the partial trace of the request on screen is published, so
/// a tab closed mid-run loses at most this much.
pub const CHECKPOINT_MS: f64 = 1000.0;

/// Frames a smoothed answer may still take after its stream ended (10
/// minutes at 60 Hz): a backlog is shown to the end, like a chat front end
/// would, and each piece gets its paint time.
pub const MAX_DRAIN_FRAMES: usize = 36_000;

/// What to send.
#[derive(Debug, Clone)]
pub struct LiveRequest {
    /// Completion URL.
    pub url: String,
    /// JSON body.
    pub body: String,
    /// The wire the answer streams in.
    pub wire: lab_core::stream::wire::Wire,
    /// The key's headers, as the wire wants them
    /// ([`lab_core::stream::endpoint::EndpointConfig::auth_headers`]); the
    /// key goes nowhere else.
    pub auth: Vec<(&'static str, String)>,
    /// CORS advice for this kind of server (with `ORIGIN` placeholders).
    pub cors_hint: String,
    /// Let the page settle (frames, its own work) before sending, so none
    /// of it runs between the stamp and the request leaving; off when the
    /// request must leave on a schedule.
    pub settle: bool,
}

fn build_init(req: &LiveRequest, abort: &Abort) -> Result<web_sys::RequestInit, JsValue> {
    let mut pairs: Vec<(&str, &str)> =
        vec![("Content-Type", "application/json"), ("Accept", "text/event-stream")];
    pairs.extend(req.auth.iter().map(|(n, v)| (*n, v.as_str())));
    let headers = headers(&pairs, None)?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&req.body));
    init.set_signal(Some(&abort.signal()));
    init.set_mode(RequestMode::Cors);
    init.set_credentials(RequestCredentials::Omit);
    init.set_cache(RequestCache::NoStore);
    Ok(init)
}

/// Streams one completion; the id of the server's ground-truth record
/// comes back beside the trace (from `latency-lab serve`).
pub async fn stream_completion(
    req: &LiveRequest,
    abort: &Abort,
    screen: Option<OnScreen<'_>>,
) -> (RequestTrace, Option<String>) {
    let init = match build_init(req, abort) {
        Ok(i) => i,
        Err(e) => {
            let at = now_ms();
            return (Recorder::with_wire(at, req.wire).fail(at, FailureKind::Network, js_message(&e)), None);
        }
    };
    // The view is made ready for the answer before the request leaves: in
    // Firefox a body that sends nothing before its first token (Gemini,
    // Ollama, plain text) resolves `fetch` only with that token, so work
    // done on the headers would sit between the token and its read.
    let answer = screen.as_ref().map(prepare);
    // The page's own work (the view of the run so far, saving it) is done
    // first, so none of it runs between the stamp and the request leaving.
    if req.settle {
        settled().await;
    }
    let mut rec = Recorder::with_wire(now_ms(), req.wire);
    let sent = send(&req.url, &init);
    let (response, last_stats) = match &screen {
        Some(s) => waiting(sent, &rec, s).await,
        None => (sent.await, f64::NEG_INFINITY),
    };
    let response = match response {
        Ok(r) => r,
        Err(e) => {
            let at = now_ms();
            let t = if abort.aborted() {
                rec.finish(at, StreamEnd::Aborted)
            } else {
                let msg = network_failure_message(&req.url, &page::origin(), &e.to_string(), &req.cors_hint);
                rec.fail(at, FailureKind::Network, msg)
            };
            return (t, None);
        }
    };
    rec.on_headers(now_ms(), response.status());
    let ground_truth = header(&response, lab_core::serve::protocol::REQUEST_ID_HEADER);
    let trace = match body_of(&response, &mut rec).await {
        Err(t) => t,
        Ok(body) => {
            let reader = StreamReader::new(&body);
            match screen.zip(answer) {
                Some((s, answer)) => read_on_screen(rec, &reader, abort, s, answer, last_stats).await,
                None => read_off_screen(rec, &reader, abort).await,
            }
        }
    };
    (trace, ground_truth)
}

/// The event-stream body, or the finished trace that says why there is none.
async fn body_of(
    response: &web_sys::Response,
    rec: &mut Recorder,
) -> Result<web_sys::ReadableStream, RequestTrace> {
    if !response.ok() {
        let body = text_of(response).await;
        let retry = header(response, "retry-after");
        return Err(rec.fail_http(now_ms(), response.status(), &body, retry.as_deref()));
    }
    let content_type = header(response, "content-type").unwrap_or_default();
    let Some(body) = response.body() else {
        return Err(rec.fail(now_ms(), FailureKind::Empty, "The response has no body.".into()));
    };
    let wire = rec.wire();
    if wire.streams_as(&content_type) {
        return Ok(body);
    }
    // Not a stream: read it whole, then explain (an error JSON, or a server
    // that ignored "stream": true).
    let mut bytes = Vec::new();
    let _ = crate::browser::stream::read_stream(body, |_, b| bytes.extend_from_slice(b)).await;
    let text = String::from_utf8_lossy(&bytes);
    let message = match lab_core::stream::openai::error_from_body(&text) {
        Some(e) => format!("The server answered with an error instead of a stream: {e}"),
        None => format!(
            "The server answered with \"{}\" instead of {} stream ({}); it may not support streaming. Body: {}",
            if content_type.is_empty() { "no content type" } else { &content_type },
            if wire == lab_core::stream::wire::Wire::Chat {
                "an event".to_string()
            } else {
                format!("a {}", wire.name())
            },
            wire.content_type(),
            lab_core::stream::openai::snippet(&text)
        ),
    };
    Err(rec.fail(now_ms(), FailureKind::Malformed, message))
}

fn end_of(failed: Option<String>, abort: &Abort) -> StreamEnd {
    match failed {
        None => StreamEnd::Closed,
        Some(_) if abort.aborted() => StreamEnd::Aborted,
        Some(m) => StreamEnd::Broken(m),
    }
}

async fn read_off_screen(mut rec: Recorder, reader: &StreamReader, abort: &Abort) -> RequestTrace {
    let failed = loop {
        match reader.read().await {
            Piece::Bytes(at, b) => {
                rec.on_bytes(at, &b);
            }
            Piece::End => break None,
            Piece::Failed(m) => break Some(m),
        }
    };
    rec.finish(now_ms(), end_of(failed, abort))
}

/// Reads the body and runs the frames of the request on screen, in one
/// loop: a read waits beside the next frame, and neither is dropped.
async fn read_on_screen(
    mut rec: Recorder,
    reader: &StreamReader,
    abort: &Abort,
    s: OnScreen<'_>,
    mut answer: Answer,
    mut last_stats: f64,
) -> RequestTrace {
    let (mut committed, mut painted) = (0usize, 0usize);
    let mut last_checkpoint = now_ms();
    let read = reader.read().fuse();
    let frame = next_frame(1000).fuse();
    pin_mut!(read, frame);
    let failed = loop {
        select_biased! {
            piece = read => match piece {
                Piece::Bytes(at, b) => {
                    let range = rec.on_bytes(at, &b);
                    for (i, c) in rec.request().chunks[range.clone()].iter().enumerate() {
                        match c.kind {
                            ChunkKind::Reasoning => append_text(&s.reasoning, &c.text),
                            ChunkKind::ToolCall => append_tool_call(&s.tools, c),
                            ChunkKind::Content => answer.push(range.start + i, c),
                        }
                    }
                    committed = range.end.max(committed);
                    read.set(reader.read().fuse());
                }
                Piece::End => break None,
                Piece::Failed(m) => break Some(m),
            },
            at = frame => {
                answer.frame(at.unwrap_or_else(now_ms));
                if let Some(t) = at {
                    let upto = rec.request().arrived_by(answer.shown_upto(committed), t);
                    if painted < upto {
                        rec.mark_painted(upto, t);
                        painted = upto;
                        follow_bottom(&s.content);
                    }
                }
                let now = now_ms();
                s.stats_at(&rec, &mut last_stats, now);
                if now - last_checkpoint >= CHECKPOINT_MS {
                    last_checkpoint = now;
                    (s.on_checkpoint)(rec.request());
                }
                frame.set(next_frame(1000).fuse());
            },
        }
    };
    let mut trace = rec.finish(now_ms(), end_of(failed, abort));
    // A smoothed answer is still being shown: its frames go on (at most
    // MAX_DRAIN_FRAMES), each marking what it showed.
    answer.end();
    for _ in 0..MAX_DRAIN_FRAMES {
        if answer.drained() {
            break;
        }
        let Some(t) = next_frame(100).await else { break };
        answer.frame(t);
        let upto = trace.arrived_by(answer.shown_upto(committed), t);
        if upto > painted {
            trace.mark_painted(upto, t);
            painted = upto;
        }
    }
    answer.finish();
    (s.on_cadence)(answer.cadence(&trace.chunks));
    if committed > painted
        && let Some(t) = next_frame(100).await
    {
        trace.mark_painted(committed, t);
    }
    (s.on_stats)(LiveStats::of(&trace, trace.end_ms.unwrap_or_else(now_ms)));
    trace
}
