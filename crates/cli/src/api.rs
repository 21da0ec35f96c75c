//! The OpenAI-compatible replay API: `/v1/models`, `/v1/chat/completions`,
//! `/v1/completions` (streamed or not) and `/v1/lab/requests/{id}` (ground
//! truth). Every body event goes out at its planned time via the [`Pacer`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lab_core::fault::{Fault, FaultyPlan};
use lab_core::openai::encode::{StreamWriter, error_body};
use lab_core::plan::{self, PlanRequest};
use lab_core::text;
use lab_core::trace::ApiFlavor;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::catalog::{Catalog, Source};
use crate::pacer::Pacer;
use crate::truth::{GroundTruth, SentChunk, TruthStore};

/// Header naming the source to play, overriding the model name.
pub const PROFILE_HEADER: &str = "x-latency-lab-profile";
/// Header adding faults (`lab_core::fault`) to a request.
pub const FAULT_HEADER: &str = "x-latency-lab-fault";
/// Response header carrying the ground-truth id.
pub const REQUEST_ID_HEADER: &str = "x-latency-lab-request-id";
/// Largest request body accepted (8 MiB: long RAG prompts fit).
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Shared state of the API.
pub struct Api {
    /// Sources.
    pub catalog: Catalog,
    /// Precise timer.
    pub pacer: Pacer,
    /// Ground truth.
    pub truth: TruthStore,
    /// Faults applied to every request (`--fault`).
    pub default_fault: Option<Fault>,
    next_id: AtomicU64,
}

impl Api {
    /// New API state.
    pub fn new(catalog: Catalog, pacer: Pacer, default_fault: Option<Fault>) -> Self {
        Self { catalog, pacer, truth: TruthStore::default(), default_fault, next_id: AtomicU64::new(1) }
    }
}

fn error(status: StatusCode, kind: &str, message: &str) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], error_body(message, kind, status.as_u16()))
        .into_response()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `GET /v1/models`.
pub async fn models(State(api): State<Arc<Api>>) -> Json<Value> {
    let data: Vec<Value> = api
        .catalog
        .model_ids()
        .into_iter()
        .map(|id| json!({"id": id, "object": "model", "created": 0, "owned_by": "latency-lab"}))
        .collect();
    Json(json!({"object": "list", "data": data}))
}

/// `GET /v1/lab/requests/{id}`.
pub async fn ground_truth(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Response {
    match api.truth.get(&id) {
        Some(t) => Json(t).into_response(),
        None => error(StatusCode::NOT_FOUND, "not_found", &format!("no ground truth for request \"{id}\"")),
    }
}

/// `POST /v1/chat/completions`.
pub async fn chat(State(api): State<Arc<Api>>, headers: HeaderMap, body: Bytes) -> Response {
    complete(api, headers, body, ApiFlavor::Chat).await
}

/// `POST /v1/completions`.
pub async fn completions(State(api): State<Arc<Api>>, headers: HeaderMap, body: Bytes) -> Response {
    complete(api, headers, body, ApiFlavor::Completions).await
}

/// The prompt text of a request (all message contents, or the prompt).
fn prompt_text(req: &Value, api: ApiFlavor) -> Result<String, String> {
    match api {
        ApiFlavor::Chat => {
            let messages = req
                .get("messages")
                .and_then(Value::as_array)
                .ok_or("\"messages\" must be an array of {role, content}")?;
            let mut out = String::new();
            for m in messages {
                match m.get("content") {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(Value::Array(parts)) => {
                        for p in parts {
                            out.push_str(p.get("text").and_then(Value::as_str).unwrap_or(""));
                        }
                    }
                    _ => {}
                }
                out.push('\n');
            }
            Ok(out)
        }
        ApiFlavor::Completions => match req.get("prompt") {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Array(a)) => Ok(a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")),
            _ => Err("\"prompt\" must be a string".into()),
        },
    }
}

async fn complete(api: Arc<Api>, headers: HeaderMap, body: Bytes, flavor: ApiFlavor) -> Response {
    let arrival = Instant::now();
    if body.len() > MAX_BODY_BYTES {
        return error(StatusCode::PAYLOAD_TOO_LARGE, "invalid_request_error", "request body over 8 MiB");
    }
    let req: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return error(StatusCode::BAD_REQUEST, "invalid_request_error", "the body must be a JSON object");
        }
    };
    let prompt = match prompt_text(&req, flavor) {
        Ok(p) => p,
        Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_request_error", &e),
    };
    let model = req.get("model").and_then(Value::as_str).unwrap_or("").to_string();
    let wanted = headers.get(PROFILE_HEADER).and_then(|h| h.to_str().ok()).map(str::to_owned);
    let (source, model_fault) = match api.catalog.resolve_with_fault(wanted.as_deref().unwrap_or(&model)) {
        Ok(s) => s,
        Err(e) => return error(StatusCode::NOT_FOUND, "model_not_found", &e.to_string()),
    };
    let header_fault = match headers.get(FAULT_HEADER).and_then(|h| h.to_str().ok()).map(str::parse::<Fault>)
    {
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => return error(StatusCode::BAD_REQUEST, "invalid_request_error", &e.to_string()),
        None => None,
    };
    let n = api.next_id.fetch_add(1, Ordering::Relaxed);
    let fault =
        header_fault.or(model_fault).or_else(|| api.default_fault.clone()).unwrap_or_default().for_request(n);
    if let Some(status) = fault.status {
        tokio::time::sleep(Duration::from_secs_f64(fault.headers_delay_ms / 1000.0)).await;
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let kind = match status {
            401 => "invalid_api_key",
            404 => "model_not_found",
            429 => "rate_limit_exceeded",
            _ if status >= 500 => "server_error",
            _ => "invalid_request_error",
        };
        let message =
            format!("injected fault: HTTP {status} ({})", code.canonical_reason().unwrap_or("error"));
        let mut resp = error(code, kind, &message);
        if let Some(s) = fault.retry_after
            && let Ok(v) = HeaderValue::from_str(&s.to_string())
        {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return resp;
    }
    let max_tokens = ["max_completion_tokens", "max_tokens"]
        .iter()
        .find_map(|k| req.get(*k).and_then(Value::as_u64))
        .map(|m| u32::try_from(m).unwrap_or(u32::MAX));
    let stream = req.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let include_usage =
        req.pointer("/stream_options/include_usage").and_then(Value::as_bool).unwrap_or(false);
    let id = format!("lab-{n}");
    let created = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let prompt_tokens = text::count_tokens(&prompt) as u64;
    let (plan, described) = {
        let writer = StreamWriter {
            id: format!("{}-{id}", if flavor == ApiFlavor::Chat { "chatcmpl" } else { "cmpl" }),
            model: if model.is_empty() { "latency-lab".into() } else { model.clone() },
            created,
            api: flavor,
        };
        let mut pr = PlanRequest { writer, prompt_tokens, max_tokens, include_usage, request_index: 0 };
        match source {
            Source::Profile(p, i) => {
                pr.request_index = i;
                (plan::from_profile(&p, &pr), format!("profile {p}"))
            }
            Source::Recorded(r) => {
                let name = r.id.clone().unwrap_or_else(|| "recorded request".into());
                (plan::from_recorded(&r, &pr), format!("recorded {name}"))
            }
        }
    };
    api.truth.insert(GroundTruth {
        id: id.clone(),
        model: model.clone(),
        source: described,
        prompt_tokens,
        completion_tokens: plan.completion_tokens,
        headers_due_ms: plan.headers_at_ms,
        headers_sent_ms: None,
        chunks: Vec::with_capacity(plan.events.len()),
        complete: false,
        client_disconnected: false,
    });
    let faulty = fault.apply(plan);
    let plan = faulty.plan.clone();
    api.pacer.until(arrival + Duration::from_secs_f64(plan.headers_at_ms / 1000.0)).await;
    if stream {
        let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(64);
        let task_api = Arc::clone(&api);
        let task_id = id.clone();
        api.truth.update(&id, |t| t.headers_sent_ms = Some(ms(arrival.elapsed())));
        tokio::spawn(async move { emit(task_api, task_id, arrival, faulty, tx).await });
        let mut resp = Response::new(Body::from_stream(ReceiverStream::new(rx)));
        let h = resp.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream; charset=utf-8"));
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        if let Ok(v) = HeaderValue::from_str(&id) {
            h.insert(REQUEST_ID_HEADER, v);
        }
        resp
    } else {
        let end = arrival + Duration::from_secs_f64(plan.last_token_ms() / 1000.0);
        api.pacer.until(end).await;
        let sent = ms(arrival.elapsed());
        api.truth.update(&id, |t| {
            t.headers_sent_ms = Some(sent);
            t.complete = true;
        });
        let writer = StreamWriter {
            id: format!("{}-{id}", if flavor == ApiFlavor::Chat { "chatcmpl" } else { "cmpl" }),
            model,
            created,
            api: flavor,
        };
        let body =
            writer.complete_body(&plan.text, plan.finish_reason, prompt_tokens, plan.completion_tokens);
        let mut resp = (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if let Ok(v) = HeaderValue::from_str(&id) {
            resp.headers_mut().insert(REQUEST_ID_HEADER, v);
        }
        resp
    }
}

/// Sends the plan's events at their times, recording when they went out;
/// injected raw bytes go out just before the event they precede, and an
/// aborted plan ends with a connection reset instead of a clean end.
async fn emit(
    api: Arc<Api>,
    id: String,
    arrival: Instant,
    faulty: FaultyPlan,
    tx: mpsc::Sender<Result<Bytes, std::io::Error>>,
) {
    let FaultyPlan { plan, raw, abort_connection } = faulty;
    let count = plan.events.len();
    for (i, e) in plan.events.into_iter().enumerate() {
        let due = arrival + Duration::from_secs_f64(e.at_ms / 1000.0);
        api.pacer.until(due).await;
        for (_, bytes) in raw.iter().filter(|(at, _)| *at == i) {
            let _ = tx.send(Ok(Bytes::from(bytes.clone()))).await;
        }
        if tx.send(Ok(Bytes::from(e.data))).await.is_err() {
            api.truth.update(&id, |t| t.client_disconnected = true);
            return;
        }
        if e.tokens > 0 {
            let sent_ms = ms(arrival.elapsed());
            api.truth
                .update(&id, |t| t.chunks.push(SentChunk { due_ms: e.at_ms, sent_ms, tokens: e.tokens }));
        }
    }
    for (_, bytes) in raw.iter().filter(|(at, _)| *at >= count) {
        let _ = tx.send(Ok(Bytes::from(bytes.clone()))).await;
    }
    if abort_connection {
        // Give the last bytes a moment to leave, then reset the connection.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let _ = tx.send(Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "injected drop"))).await;
        return;
    }
    api.truth.update(&id, |t| t.complete = true);
}
