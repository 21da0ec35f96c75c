//! The replay API: `/v1/models`, OpenAI's `/v1/chat/completions` and
//! `/v1/completions`, and every other wire chat products stream in
//! ([`lab_core::stream::wire`]): OpenAI's `/v1/responses`, Anthropic's
//! `/v1/messages`, Gemini's `/v1beta/models/{model}:streamGenerateContent`
//! (and `:generateContent`), Ollama's `/api/chat` and `/api/generate`, and
//! what pages receive from their own backends: `/v1/lab/ui-stream`,
//! `/v1/lab/data-stream` and `/v1/lab/text-stream` (the AI SDK's streams and
//! plain text; `?model=` names the profile), and for pages that do not
//! `fetch`, `GET /v1/lab/event-stream` (an EventSource's) and `GET
//! /v1/lab/ws` (a WebSocket's: [`crate::replay::pages`]). All play the same profiles and
//! traces with the same ground truth at `/v1/lab/requests/{id}`. Every body
//! event goes out at its planned time via the [`Pacer`] (streamed bodies:
//! [`Emission`]); errors answer in the wire's own shape.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lab_core::replay::text;
use lab_core::serve::bounds::{self, Bounds};
use lab_core::serve::cache::{BLOCK_TOKENS, CAPACITY_BLOCKS, PrefixCache};
use lab_core::serve::capacity;
use lab_core::serve::fault::Fault;
use lab_core::serve::plan::{self, Plan, PlanRequest};
use lab_core::serve::protocol::{FAULT_HEADER, PROFILE_HEADER, REQUEST_ID_HEADER};
use lab_core::stream::openai::encode::StreamWriter;
use lab_core::stream::openai::request::CompletionRequest;
use lab_core::stream::wire::encode::{Finish, Totals, WireEncoder};
use lab_core::stream::wire::{self, Wire};
use lab_core::trace::ApiFlavor;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::error::ApiError;
use crate::ops::observe::ClientIp;
use crate::ops::streams::Streams;
use crate::replay::catalog::{Catalog, Source};
use crate::replay::emit::Emission;
use crate::replay::pacer::Pacer;
use crate::replay::truth::{GroundTruth, Record, TruthStore, lock};

/// Largest request body accepted (8 MiB: long RAG prompts fit).
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// What a body over [`MAX_BODY_BYTES`] is told.
const BODY_TOO_LARGE: &str = "request body over 8 MiB";

/// The API's state as one serving thread sees it: everything is shared
/// between the threads ([`Api::on_thread`]) except the pacer, which is the
/// thread's own (a firing is a local wake-up, see `pacer`).
#[derive(Clone)]
pub struct Api {
    /// Sources.
    pub catalog: Arc<Catalog>,
    /// Precise timer of this thread.
    pub pacer: Pacer,
    /// Ground truth.
    pub truth: Arc<TruthStore>,
    /// Every admission and its wait for a slot (`GET /v1/lab/traffic`).
    pub traffic: Arc<crate::replay::traffic::Traffic>,
    /// Faults applied to every request (`--fault`).
    pub default_fault: Option<Fault>,
    next_id: Arc<AtomicU64>,
    /// Prompt blocks seen (profiles that cache prefixes).
    cache: Arc<Mutex<PrefixCache>>,
    /// Decode slots per profile with `slots` (keyed by its spec).
    slots: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
    /// What a request may ask for, and who holds what.
    limits: Arc<Limits>,
}

/// What the endpoint promises and watches.
pub struct Limits {
    /// The longest wait and response a plan may ask for.
    pub bounds: Bounds,
    /// Responses in flight per client.
    pub streams: Arc<Streams>,
    /// Where each streamed chunk's lateness goes (`/metrics`).
    pub lateness: Option<Histogram>,
    /// Cancelled on shutdown: open streams end with a final event.
    pub shutdown: CancellationToken,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            bounds: bounds::DEFAULT,
            streams: Streams::new(0, Gauge::default()),
            lateness: None,
            shutdown: CancellationToken::new(),
        }
    }
}

impl Api {
    /// New API state.
    pub fn new(catalog: Catalog, pacer: Pacer, default_fault: Option<Fault>) -> Self {
        Self {
            catalog: Arc::new(catalog),
            pacer,
            truth: Arc::default(),
            traffic: Arc::default(),
            default_fault,
            next_id: Arc::new(AtomicU64::new(1)),
            cache: Arc::default(),
            slots: Arc::default(),
            limits: Arc::default(),
        }
    }

    /// The same API keeping `limits`.
    pub fn limited(self, limits: Limits) -> Self {
        Self { limits: Arc::new(limits), ..self }
    }

    /// The same state for another serving thread, with that thread's pacer.
    pub fn on_thread(&self, pacer: Pacer) -> Self {
        Self { pacer, ..self.clone() }
    }

    /// The slots of a profile with `n` of them (made on first use).
    fn slots_of(&self, spec: String, n: u32) -> Arc<Semaphore> {
        let mut all = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(all.entry(spec).or_insert_with(|| Arc::new(Semaphore::new(n as usize))))
    }
}

/// A refusal of the replay endpoint in OpenAI Chat's shape (the routes
/// that speak no other wire).
pub(crate) fn error(status: StatusCode, kind: &'static str, message: &str) -> Response {
    wire_error(Wire::Chat, status, kind, message)
}

/// A refusal in `wire`'s shape (its SDKs read the message from it).
fn wire_error(wire: Wire, status: StatusCode, kind: &'static str, message: &str) -> Response {
    ApiError::wire(wire, status, kind, message).into_response()
}

/// Which wire a route speaks, and what its path and query say.
#[derive(Debug, Clone, Default)]
pub struct Route {
    wire: Wire,
    flavor: ApiFlavor,
    /// The model the path or query names.
    model: Option<String>,
    /// Streaming, where the route decides it (Gemini's action).
    stream: Option<bool>,
    /// Ollama's `/api/generate`.
    generate: bool,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `GET /v1/models`: the models, each profile with its server model, and
/// the server model's constants (`latency_lab`).
pub async fn models(State(api): State<Arc<Api>>) -> Json<Value> {
    let data: Vec<Value> = api
        .catalog
        .model_ids()
        .into_iter()
        .map(|id| {
            let mut m = json!({"id": id, "object": "model", "created": 0, "owned_by": "latency-lab"});
            if let Some(p) = api.catalog.profile_named(&id) {
                m["latency_lab"] = server_model(&p);
            }
            m
        })
        .collect();
    let fallback =
        api.catalog.fallback().map(|p| json!({"profile": p.to_string(), "server": server_model(p)}));
    Json(json!({
        "object": "list",
        "data": data,
        "latency_lab": {
            "fallback": fallback,
            "prefix_cache": {"block_tokens": BLOCK_TOKENS, "capacity_blocks": CAPACITY_BLOCKS},
            "capacity": {"slowdown_per_request": capacity::SLOWDOWN_PER_REQUEST},
            "doc": "profile keys: prefill=MS per prompt token, cache=on|off (default on with prefill), slots=N (at most N decode at once, the rest queue; each extra decoding request adds slowdown_per_request to the time per token)",
        },
    }))
}

/// `GET /v1beta/models`: the models as Gemini lists them.
pub async fn gemini_models(State(api): State<Arc<Api>>) -> Json<Value> {
    let models: Vec<Value> = api
        .catalog
        .model_ids()
        .into_iter()
        .map(|id| {
            json!({"name": format!("models/{id}"), "displayName": id,
                "supportedGenerationMethods": ["generateContent", "streamGenerateContent"]})
        })
        .collect();
    Json(json!({ "models": models }))
}

/// `GET /api/tags`: the models as Ollama lists them.
pub async fn ollama_tags(State(api): State<Arc<Api>>) -> Json<Value> {
    let models: Vec<Value> = api
        .catalog
        .model_ids()
        .into_iter()
        .map(|id| json!({"name": id, "model": id, "modified_at": "1970-01-01T00:00:00Z", "size": 0, "digest": "", "details": {}}))
        .collect();
    Json(json!({ "models": models }))
}

/// What the replay endpoint models for a profile.
fn server_model(p: &lab_core::replay::profile::Profile) -> Value {
    json!({
        "profile": p.to_string(),
        "prefill_ms_per_token": p.prefill_ms_per_token,
        "prefix_cache": p.caches_prefixes(),
        "slots": p.slots,
    })
}

/// `GET /v1/lab/requests/{id}`.
pub async fn ground_truth(State(api): State<Arc<Api>>, Path(id): Path<String>) -> Response {
    match api.truth.get(&id) {
        Some(t) => Json(t).into_response(),
        None => error(StatusCode::NOT_FOUND, "not_found", &format!("no ground truth for request \"{id}\"")),
    }
}

type Client = Option<axum::Extension<ClientIp>>;

/// `POST /v1/chat/completions`.
pub async fn chat(
    State(api): State<Arc<Api>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    complete(api, client, headers, body, Route::default()).await
}

/// A request body of the replay endpoint, read up to [`MAX_BODY_BYTES`]
/// (the API router's limit); a refusal is answered in the route's wire.
pub type WireBody = Result<Bytes, axum::extract::rejection::BytesRejection>;

/// `POST /v1/completions`.
pub async fn completions(
    State(api): State<Arc<Api>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    complete(api, client, headers, body, Route { flavor: ApiFlavor::Completions, ..Route::default() }).await
}

/// `POST /v1/responses`.
pub async fn responses(
    State(api): State<Arc<Api>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    complete(api, client, headers, body, Route { wire: Wire::Responses, ..Route::default() }).await
}

/// `POST /v1/messages`.
pub async fn messages(
    State(api): State<Arc<Api>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    complete(api, client, headers, body, Route { wire: Wire::Anthropic, ..Route::default() }).await
}

/// `POST /v1beta/models/{model}:streamGenerateContent` and `:generateContent`
/// (and under `/v1/`, Gemini's stable version).
pub async fn gemini(
    State(api): State<Arc<Api>>,
    Path(model_action): Path<String>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    let stream = match model_action.rsplit_once(':') {
        Some((model, "streamGenerateContent")) => Some((model.to_owned(), true)),
        Some((model, "generateContent")) => Some((model.to_owned(), false)),
        _ => None,
    };
    let Some((model, stream)) = stream else {
        let message = format!(
            "unknown method \"{model_action}\": the lab answers MODEL:streamGenerateContent and MODEL:generateContent"
        );
        return wire_error(Wire::Gemini, StatusCode::NOT_FOUND, "not_found", &message);
    };
    let route = Route { wire: Wire::Gemini, model: Some(model), stream: Some(stream), ..Route::default() };
    complete(api, client, headers, body, route).await
}

/// `POST /api/chat` (Ollama).
pub async fn ollama_chat(
    State(api): State<Arc<Api>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    complete(api, client, headers, body, Route { wire: Wire::Ollama, ..Route::default() }).await
}

/// `POST /api/generate` (Ollama).
pub async fn ollama_generate(
    State(api): State<Arc<Api>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    complete(api, client, headers, body, Route { wire: Wire::Ollama, generate: true, ..Route::default() })
        .await
}

/// `POST /v1/lab/ui-stream`, `/v1/lab/data-stream`, `/v1/lab/text-stream`:
/// the AI SDK's streams and plain text, as a page's own backend sends them
/// (`?model=` names the profile when the body does not).
pub async fn page_stream(
    State(api): State<Arc<Api>>,
    Path(kind): Path<String>,
    axum::extract::Query(q): axum::extract::Query<HashMap<String, String>>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
) -> Response {
    let wire = match kind.as_str() {
        "ui-stream" => Wire::UiStream,
        "data-stream" => Wire::DataStream,
        "text-stream" => Wire::Text,
        _ => {
            let message = format!("no such stream \"{kind}\": ui-stream, data-stream or text-stream");
            return error(StatusCode::NOT_FOUND, "not_found", &message);
        }
    };
    complete(api, client, headers, body, Route { wire, model: q.get("model").cloned(), ..Route::default() })
        .await
}

/// A request parsed and planned, ready to play.
struct Prepared {
    id: String,
    model: String,
    created: u64,
    prompt_tokens: u64,
    stream: bool,
    record: Record,
    plan: Plan,
    fault: Fault,
    /// The profile's decode slots and their number, when it has any.
    slots: Option<(Arc<Semaphore>, u32)>,
}

/// Why a request is answered without playing a plan.
enum Early {
    /// A bad request: this response, at once.
    Reject(Box<Response>),
    /// An injected HTTP error (after its header delay).
    Injected(Box<Fault>),
}

fn reject(wire: Wire, status: StatusCode, kind: &'static str, message: &str) -> Early {
    Early::Reject(Box::new(wire_error(wire, status, kind, message)))
}

/// Parses, resolves and plans a request: the CPU-heavy part (JSON of up to
/// [`MAX_BODY_BYTES`], token counting, rendering every chunk), run on the
/// blocking pool so the thread driving the sockets and the pacer stays free.
fn prepare(api: &Api, headers: &HeaderMap, body: &[u8], route: &Route) -> Result<Prepared, Early> {
    let (w, flavor) = (route.wire, route.flavor);
    let reject = |status, kind: &'static str, message: &str| reject(w, status, kind, message);
    if body.len() > MAX_BODY_BYTES {
        return Err(reject(StatusCode::PAYLOAD_TOO_LARGE, "invalid_request_error", BODY_TOO_LARGE));
    }
    let req = match w {
        Wire::Chat => CompletionRequest::decode(body, flavor),
        _ => wire::request::decode(body, w, route.model.as_deref(), route.stream),
    }
    .map_err(|e| reject(StatusCode::BAD_REQUEST, "invalid_request_error", &e.to_string()))?;
    let model = req.model.clone();
    let wanted = headers.get(PROFILE_HEADER).and_then(|h| h.to_str().ok()).map(str::to_owned);
    let (source, model_fault) = api
        .catalog
        .resolve_with_fault(wanted.as_deref().unwrap_or(&model))
        .map_err(|e| reject(StatusCode::NOT_FOUND, "model_not_found", &e.to_string()))?;
    let header_fault = match headers.get(FAULT_HEADER).and_then(|h| h.to_str().ok()).map(str::parse::<Fault>)
    {
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => return Err(reject(StatusCode::BAD_REQUEST, "invalid_request_error", &e.to_string())),
        None => None,
    };
    let n = api.next_id.fetch_add(1, Ordering::Relaxed);
    let fault =
        header_fault.or(model_fault).or_else(|| api.default_fault.clone()).unwrap_or_default().for_request(n);
    if fault.status.is_some() {
        api.limits
            .bounds
            .check_fault(&fault)
            .map_err(|e| reject(StatusCode::BAD_REQUEST, "invalid_request_error", &e.to_string()))?;
        return Err(Early::Injected(Box::new(fault)));
    }
    let CompletionRequest { prompt, max_tokens, min_tokens, ignore_eos, stream, include_usage, .. } = req;
    let id = format!("lab-{n}");
    let created = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let pieces = text::pseudo_tokens(&prompt);
    let prompt_tokens = pieces.len() as u64;
    let mut slots = None;
    let mut cached_tokens = 0;
    let (plan, described) = {
        let writer = writer(route, &id, if model.is_empty() { "latency-lab" } else { &model }, created);
        let mut pr = PlanRequest {
            writer,
            wire: w,
            ollama_generate: route.generate,
            prompt_tokens,
            cached_tokens,
            max_tokens,
            min_tokens,
            ignore_eos,
            include_usage,
            request_index: 0,
        };
        match source {
            Source::Profile(p, i) => {
                pr.request_index = i;
                let spec = p.to_string();
                if p.caches_prefixes() {
                    let mut cache = api.cache.lock().unwrap_or_else(PoisonError::into_inner);
                    cached_tokens = cache.admit(&spec, &pieces);
                    pr.cached_tokens = cached_tokens;
                }
                slots = p.slots.map(|n| (api.slots_of(spec, n), n));
                (plan::from_profile(&p, &pr), format!("profile {p}"))
            }
            Source::Recorded(r) => {
                let name = r.id.clone().unwrap_or_else(|| "recorded request".into());
                (plan::from_recorded(&r, &pr), format!("recorded {name}"))
            }
        }
    };
    api.limits
        .bounds
        .check(&plan, &fault)
        .map_err(|e| reject(StatusCode::BAD_REQUEST, "invalid_request_error", &e.to_string()))?;
    let record = api.truth.insert(GroundTruth {
        id: id.clone(),
        model: model.clone(),
        source: described,
        prompt_tokens,
        cached_tokens,
        queued_ms: 0.0,
        active_at_admission: 1,
        completion_tokens: plan.completion_tokens,
        headers_due_ms: plan.headers_at_ms,
        headers_sent_ms: None,
        chunks: Vec::with_capacity(plan.events.len()),
        complete: false,
        client_disconnected: false,
        cut_by_shutdown: false,
    });
    Ok(Prepared { id, model, created, prompt_tokens, stream, record, plan, fault, slots })
}

fn writer(route: &Route, id: &str, model: &str, created: u64) -> StreamWriter {
    let prefix = match (route.wire, route.flavor) {
        (Wire::Chat, ApiFlavor::Chat) => "chatcmpl",
        (Wire::Chat, ApiFlavor::Completions) => "cmpl",
        (Wire::Responses, _) => "resp",
        (Wire::Anthropic, _) => "msg",
        _ => "lab",
    };
    StreamWriter { id: format!("{prefix}-{id}"), model: model.to_string(), created, api: route.flavor }
}

/// Takes a decode slot of `sem` (`n` in all), waiting in its queue when
/// all are taken, and times the plan from then ([`capacity::queued`]).
/// The wait counts only when there was one, so a free slot changes nothing.
async fn admit(
    sem: Arc<Semaphore>,
    n: u32,
    plan: Plan,
    arrival: Instant,
    record: &Record,
) -> (Option<OwnedSemaphorePermit>, Plan) {
    let (permit, wait_ms) = match Arc::clone(&sem).try_acquire_owned() {
        Ok(p) => (Some(p), 0.0),
        Err(_) => {
            let p = Arc::clone(&sem).acquire_owned().await.ok();
            (p, ms(arrival.elapsed()))
        }
    };
    let active = n.saturating_sub(u32::try_from(sem.available_permits()).unwrap_or(n)).max(1);
    {
        let mut t = lock(record);
        t.queued_ms = wait_ms;
        t.active_at_admission = active;
    }
    (permit, capacity::queued(plan, wait_ms, active))
}

/// The response of an injected HTTP error, after its header delay.
async fn injected(wire: Wire, fault: Fault) -> Response {
    let status = fault.status.unwrap_or(500);
    tokio::time::sleep(Duration::from_secs_f64(fault.headers_delay_ms / 1000.0)).await;
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let kind = match status {
        401 => "invalid_api_key",
        404 => "model_not_found",
        429 => "rate_limit_exceeded",
        _ if status >= 500 => "server_error",
        _ => "invalid_request_error",
    };
    let message = format!("injected fault: HTTP {status} ({})", code.canonical_reason().unwrap_or("error"));
    let mut resp = wire_error(wire, code, kind, &message);
    if let Some(s) = fault.retry_after
        && let Ok(v) = HeaderValue::from_str(&s.to_string())
    {
        resp.headers_mut().insert(header::RETRY_AFTER, v);
    }
    resp
}

async fn complete(
    api: Arc<Api>,
    client: Client,
    headers: HeaderMap,
    body: WireBody,
    route: Route,
) -> Response {
    let arrival = Instant::now();
    let w = route.wire;
    let body = match body {
        Ok(b) => b,
        Err(r) if r.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return wire_error(w, r.status(), "invalid_request_error", BODY_TOO_LARGE);
        }
        Err(r) => return wire_error(w, r.status(), "invalid_request_error", &crate::error::body_refused(&r)),
    };
    let client = client.map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |c| c.0.0);
    let guard = match api.limits.streams.enter(client) {
        Ok(g) => g,
        Err(n) => {
            let message = format!(
                "this address already has {n} responses open, the most this server allows at once (serve --max-streams-per-client); wait for one to end"
            );
            return wire_error(w, StatusCode::TOO_MANY_REQUESTS, "rate_limit_exceeded", &message);
        }
    };
    let planner = Arc::clone(&api);
    let r = route.clone();
    let prepared = tokio::task::spawn_blocking(move || prepare(&planner, &headers, &body, &r)).await;
    let Prepared { id, model, created, prompt_tokens, stream, record, plan, fault, slots } = match prepared {
        Ok(Ok(p)) => p,
        Ok(Err(Early::Reject(resp))) => return *resp,
        Ok(Err(Early::Injected(fault))) => return injected(w, *fault).await,
        Err(e) => {
            let message = format!("planning the response failed: {e}");
            return wire_error(w, StatusCode::INTERNAL_SERVER_ERROR, "server_error", &message);
        }
    };
    let (plan, slot) = match slots {
        Some((sem, n)) => {
            let (permit, plan) = admit(sem, n, plan, arrival, &record).await;
            (plan, permit)
        }
        None => (plan, None),
    };
    api.traffic.admit(lock(&record).queued_ms);
    let faulty = fault.apply(plan);
    api.pacer.until(arrival + Duration::from_secs_f64(faulty.plan.headers_at_ms / 1000.0)).await;
    if stream {
        lock(&record).headers_sent_ms = Some(ms(arrival.elapsed()));
        let body = Emission::new(api.pacer.clone(), record, arrival, faulty)
            .holding(slot, guard)
            .measured(api.limits.lateness.clone())
            .stopping_on(&api.limits.shutdown);
        let mut resp = Response::new(Body::from_stream(body));
        let h = resp.headers_mut();
        let e = WireEncoder::new(w, &id, &model, created);
        let content_type =
            if w == Wire::Chat { "text/event-stream; charset=utf-8" } else { e.content_type() };
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        for (name, value) in e.headers() {
            h.insert(*name, HeaderValue::from_static(value));
        }
        if let Ok(v) = HeaderValue::from_str(&id) {
            h.insert(REQUEST_ID_HEADER, v);
        }
        resp
    } else {
        let plan = faulty.plan;
        let end = arrival + Duration::from_secs_f64(plan.last_token_ms() / 1000.0);
        api.pacer.until(end).await;
        let sent = ms(arrival.elapsed());
        {
            let mut t = lock(&record);
            t.headers_sent_ms = Some(sent);
            t.complete = true;
        }
        drop((slot, guard));
        let writer = writer(&route, &id, &model, created);
        let finish = match plan.finish_reason {
            "length" => Finish::Length,
            "tool_calls" => Finish::ToolCalls,
            _ => Finish::Stop,
        };
        let totals = Totals {
            prompt: prompt_tokens,
            cached: lock(&record).cached_tokens,
            completion: plan.completion_tokens,
            reasoning: 0,
            first_ms: plan.headers_at_ms,
            last_ms: plan.last_token_ms(),
        };
        let encoder = WireEncoder::new(w, &writer.id, &writer.model, created);
        let encoder = if route.generate { encoder.generating() } else { encoder };
        let body = match encoder.whole(&plan.text, finish, totals) {
            Some(b) => b,
            None => {
                writer.complete_body(&plan.text, plan.finish_reason, prompt_tokens, plan.completion_tokens)
            }
        };
        let mut resp = (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if let Ok(v) = HeaderValue::from_str(&id) {
            resp.headers_mut().insert(REQUEST_ID_HEADER, v);
        }
        resp
    }
}
