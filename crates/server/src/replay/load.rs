//! The built-in load: a sample workload sent open loop against this very
//! server's replay endpoint at a chosen speed, so the app can probe while
//! the server is loaded without any other tool (`POST /v1/lab/load`), and
//! the server's side of every window whoever loads it
//! (`GET /v1/lab/traffic`, [`crate::replay::traffic`]).
//!
//! - `POST /v1/lab/load` `{"model", "speed", "duration_s", "from_s", "continues"}` sends
//!   the sample (a Mooncake-format trace of 200 requests over 37.6 s, looped)
//!   from `from_s` into it at ×speed for `duration_s`, each request at its time whatever earlier ones are
//!   doing, with `min_tokens`/`ignore_eos` so answers have the rows' lengths.
//!   A new load replaces the running one (which stops sending; its requests
//!   in flight end as they would). Answers `{offered_per_s, rows, …}`: the
//!   requests a second this stretch of the sample offers (its first seconds
//!   are burstier than its mean).
//! - `GET /v1/lab/load`: the current load's counts; `DELETE` stops it,
//!   ends the requests in flight of every load since the sweep began, and
//!   answers once they have ended (at most [`DRAIN`]) with what each load
//!   of the sweep did (`loads`: each a `LoadWindow` labelled `load N`, N
//!   as its POST answered, with its requests' TTFT, failures and why by
//!   `lab_core::workload::load_trace::OwnRequests`).
//! - `GET /v1/lab/load/requests`: every request the loads have sent since
//!   the sweep began (a load from the sample's start, `from_s` 0, without
//!   `continues`, or the first after a DELETE, begins one), as a lab trace on one clock
//!   (`meta.clock_epoch_ms`): when each was due and sent, its first chunk
//!   (text dropped: enough for TTFT) and, when it failed, why. At most
//!   [`MAX_RECORDS`]; past them the trace's notes say how many were left
//!   out. Each request's `group` names its load (`load 2`).
//! - `GET /v1/lab/traffic[?after=N]`: the waits for a slot of every request
//!   admitted after N (none: the cursor to ask from).
//!
//! Only on a serve on loopback (a public instance answers 403: load is
//! made with `latency-lab run` there) and only from the lab's own pages
//! (a foreign `Origin` gets 403), so no web page can load one's machine.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lab_core::measure::metrics::MetricsConfig;
use lab_core::serve::protocol::{LOAD_PATH, LOAD_REQUESTS_PATH, TRAFFIC_PATH};
use lab_core::trace::{LoadWindow, RequestTrace, Trace, TraceMeta};
use lab_core::workload::load_trace::OwnRequests;
use lab_core::workload::read::LineReader;
use lab_core::workload::{Format, Request};
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::client::send::{self, HttpClient, Target};
use crate::error::WholeBody;
use crate::ops::address::Origins;
use crate::replay::api::error;
use crate::replay::traffic::Traffic;

/// The sample workload (written by `tests/fixtures/workload/make_workloads.py`).
const SAMPLE: &str = include_str!("../../../../tests/fixtures/workload/mooncake_trace.jsonl");
/// Fastest speed factor taken.
pub const MAX_SPEED: f64 = 50.0;
/// Longest load taken (s).
pub const MAX_DURATION_S: f64 = 600.0;
/// Longest a load request may take (s).
const REQUEST_TIMEOUT_S: u64 = 120;
/// Requests a sweep's record keeps (about 200 bytes each, their text
/// dropped); a 600 s load at ×50 sends about 160,000.
pub const MAX_RECORDS: usize = 100_000;
/// Longest DELETE waits for the requests it ends.
pub const DRAIN: Duration = Duration::from_secs(2);

/// The load routes' state.
pub struct LoadApi {
    traffic: Arc<Traffic>,
    target_url: hyper::Uri,
    origins: Origins,
    public: bool,
    rows: Vec<Request>,
    /// The sample's length at ×1 (ms), one mean gap added so the loop keeps its rate.
    period_ms: f64,
    client: HttpClient,
    current: Mutex<Option<Running>>,
    sweep: Mutex<Arc<Sweep>>,
}

/// The loads since a sweep began: one clock, one way to end them all, and
/// what their requests did.
struct Sweep {
    zero: Instant,
    /// Unix time of `zero` (ms).
    epoch_ms: f64,
    /// Ends every request in flight of the sweep's loads.
    abort: CancellationToken,
    /// Loads started in the sweep.
    loads: AtomicU64,
    in_flight: AtomicU64,
    /// Each request with the number of its load.
    records: Mutex<Vec<(u64, RequestTrace)>>,
    left_out: AtomicU64,
}

impl Sweep {
    fn new() -> Self {
        let epoch_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
        Self {
            zero: Instant::now(),
            epoch_ms,
            abort: CancellationToken::new(),
            loads: AtomicU64::new(0),
            in_flight: AtomicU64::new(0),
            records: Mutex::default(),
            left_out: AtomicU64::new(0),
        }
    }

    /// Keeps `t`, of load number `load`, without its text: the first
    /// chunk stays for TTFT.
    fn record(&self, load: u64, mut t: RequestTrace) {
        t.chunks.truncate(1);
        t.chunks.iter_mut().for_each(|c| c.text.clear());
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        if records.len() < MAX_RECORDS {
            records.push((load, t));
        } else {
            self.left_out.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The sweep's requests as a trace, in the order they were due.
    fn trace(&self) -> Trace {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let mut requests: Vec<RequestTrace> = records
            .iter()
            .map(|(k, r)| RequestTrace { group: Some(format!("load {k}")), ..r.clone() })
            .collect();
        drop(records);
        requests.sort_by(|a, b| {
            a.scheduled_ms.unwrap_or(a.sent_ms).total_cmp(&b.scheduled_ms.unwrap_or(b.sent_ms))
        });
        let mut notes =
            vec!["The built-in load's requests keep their first chunk only, its text dropped: enough for TTFT and failures.".to_string()];
        let left_out = self.left_out.load(Ordering::Relaxed);
        if left_out > 0 {
            notes.push(format!("{left_out} later requests are left out (at most {MAX_RECORDS} are kept)."));
        }
        let meta = TraceMeta {
            label: Some("latency-lab serve's built-in load".into()),
            clock_epoch_ms: Some(self.epoch_ms),
            notes,
            ..TraceMeta::default()
        };
        Trace { meta, requests, ..Trace::default() }
    }

    /// What each load of the sweep did, in their order, each as a load
    /// window labelled `load N` (the trace's own shape: the page reads it
    /// as it reads a trace).
    fn loads(&self) -> Vec<LoadWindow> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let cfg = MetricsConfig::default();
        (1..=self.loads.load(Ordering::Relaxed))
            .map(|k| {
                let own = OwnRequests::of(records.iter().filter(|(l, _)| *l == k).map(|(_, r)| r), &cfg);
                LoadWindow {
                    label: format!("load {k}"),
                    failed: own.failed,
                    load_ttft_ms: own.ttft_ms,
                    load_failures: own.failures,
                    ..LoadWindow::default()
                }
            })
            .collect()
    }
}

/// A load under way.
struct Running {
    stop_sending: CancellationToken,
    speed: f64,
    offered_per_s: f64,
    counts: Arc<Counts>,
}

#[derive(Default)]
struct Counts {
    sent: AtomicU64,
    finished: AtomicU64,
    failed: AtomicU64,
}

#[derive(Deserialize)]
struct Start {
    model: String,
    speed: f64,
    duration_s: f64,
    /// Where in the sample to start (s at ×1, looped).
    #[serde(default)]
    from_s: f64,
    /// The next window of the running sweep (kept in its record even when
    /// it starts at the sample's start, as the lab's speed sweep does: each
    /// speed plays the sample from its start, so a faster window offers
    /// the same requests sooner, and more of them).
    #[serde(default)]
    continues: bool,
}

#[derive(Deserialize)]
struct After {
    after: Option<u64>,
}

impl LoadApi {
    /// The load of a server listening on `port`, sent over `client`;
    /// `public` refuses it.
    pub fn new(traffic: Arc<Traffic>, port: u16, origins: Origins, public: bool, client: HttpClient) -> Self {
        let mut reader = LineReader::new(Format::Mooncake);
        let rows: Vec<Request> = SAMPLE.lines().filter_map(|l| reader.line(l).ok().flatten()).collect();
        let t0 = rows.first().map_or(0.0, |r| r.at_ms);
        let span = rows.last().map_or(0.0, |r| r.at_ms - t0);
        let period_ms = span + span / rows.len().max(1) as f64;
        let target_url = format!("http://127.0.0.1:{port}/v1/chat/completions")
            .parse()
            .unwrap_or_else(|_| hyper::Uri::from_static("http://127.0.0.1/v1/chat/completions"));
        let (current, sweep) = (Mutex::new(None), Mutex::new(Arc::new(Sweep::new())));
        Self { traffic, target_url, origins, public, rows, period_ms, client, current, sweep }
    }

    /// When each request of a load at ×`speed` for `duration_s` is due
    /// (ms from its start), with its row: the sample from its start, looped.
    fn schedule(&self, speed: f64, duration_s: f64, from_s: f64) -> Vec<(f64, usize)> {
        let t0 = self.rows.first().map_or(0.0, |r| r.at_ms);
        let mut out = Vec::new();
        if self.period_ms <= 0.0 {
            return out;
        }
        let from_ms = (from_s * 1000.0).rem_euclid(self.period_ms);
        let end_ms = from_ms + duration_s * 1000.0 * speed;
        'cycles: for cycle in 0u32.. {
            for (i, r) in self.rows.iter().enumerate() {
                let at = f64::from(cycle) * self.period_ms + r.at_ms - t0;
                if at >= end_ms {
                    break 'cycles;
                }
                if at >= from_ms {
                    out.push(((at - from_ms) / speed, i));
                }
            }
        }
        out
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<Running>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn sweep(&self) -> std::sync::MutexGuard<'_, Arc<Sweep>> {
        self.sweep.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The routes.
pub fn router(api: Arc<LoadApi>) -> Router {
    Router::new()
        .route(LOAD_PATH, get(status).post(start).delete(stop))
        .route(LOAD_REQUESTS_PATH, get(requests))
        .route(TRAFFIC_PATH, get(traffic))
        .with_state(api)
}

/// 403 on a public instance or from a foreign page.
fn refused(api: &LoadApi, headers: &HeaderMap) -> Option<Response> {
    if api.public {
        return Some(error(
            StatusCode::FORBIDDEN,
            "permission_error",
            "the built-in load and traffic are for a serve on 127.0.0.1; load a public server with latency-lab run",
        ));
    }
    let foreign = !api.origins.allows_request(headers);
    foreign.then(|| {
        error(StatusCode::FORBIDDEN, "permission_error", "the load is started only from the lab's own pages")
    })
}

async fn start(State(api): State<Arc<LoadApi>>, headers: HeaderMap, WholeBody(body): WholeBody) -> Response {
    if let Some(r) = refused(&api, &headers) {
        return r;
    }
    let bad = |m: String| error(StatusCode::BAD_REQUEST, "invalid_request_error", &m);
    let s: Start = match serde_json::from_slice(&body) {
        Ok(s) => s,
        Err(e) => return bad(format!("expected {{\"model\", \"speed\", \"duration_s\"}}: {e}")),
    };
    if !(s.speed > 0.0 && s.speed <= MAX_SPEED) {
        return bad(format!("speed {} is outside (0, {MAX_SPEED}]", s.speed));
    }
    if !(s.duration_s > 0.0 && s.duration_s <= MAX_DURATION_S) {
        return bad(format!("duration_s {} is outside (0, {MAX_DURATION_S}]", s.duration_s));
    }
    if !(s.from_s.is_finite() && s.from_s >= 0.0) {
        return bad(format!("from_s {} must be 0 or more", s.from_s));
    }
    if s.model.trim().is_empty() || s.model.len() > 4096 {
        return bad("model: give the model the load asks for (up to 4096 bytes)".into());
    }
    // What this window of the sample offers (its first seconds are burstier
    // than its mean).
    let schedule = api.schedule(s.speed, s.duration_s, s.from_s);
    let schedule_len = schedule.len();
    let offered_per_s = schedule_len as f64 / s.duration_s;
    let sweep = {
        let mut sweep = api.sweep();
        if (s.from_s == 0.0 && !s.continues) || api.current().is_none() {
            *sweep = Arc::new(Sweep::new());
        }
        Arc::clone(&sweep)
    };
    let number = sweep.loads.fetch_add(1, Ordering::Relaxed) + 1;
    let running = Running {
        stop_sending: CancellationToken::new(),
        speed: s.speed,
        offered_per_s,
        counts: Arc::default(),
    };
    let (stop_sending, counts) = (running.stop_sending.clone(), Arc::clone(&running.counts));
    if let Some(old) = api.current().replace(running) {
        old.stop_sending.cancel();
    }
    let target = Arc::new(Target {
        url: api.target_url.clone(),
        wire: lab_core::stream::wire::Wire::Chat,
        flavor: lab_core::trace::ApiFlavor::Chat,
        model: s.model,
        exact_output: true,
        auth: Vec::new(),
        timeout: Duration::from_secs(REQUEST_TIMEOUT_S),
    });
    tokio::spawn(send_loop(Arc::clone(&api), target, schedule, stop_sending, counts, (sweep, number)));
    axum::Json(json!({
        "speed": s.speed,
        "duration_s": s.duration_s,
        "offered_per_s": offered_per_s,
        "rows": api.rows.len(),
        "requests": schedule_len,
        "load": number,
        "workload": "sample (Mooncake format, looped)",
    }))
    .into_response()
}

/// Sends the sample's rows on `schedule` (ms from now, row).
async fn send_loop(
    api: Arc<LoadApi>,
    target: Arc<Target>,
    schedule: Vec<(f64, usize)>,
    stop_sending: CancellationToken,
    counts: Arc<Counts>,
    (sweep, number): (Arc<Sweep>, u64),
) {
    let zero = Instant::now();
    // Where this load starts on the sweep's clock (ms).
    let offset_ms = zero.duration_since(sweep.zero).as_secs_f64() * 1000.0;
    let block = Format::Mooncake.block_tokens().unwrap_or(512);
    for (due_ms, i) in schedule {
        let due = zero + Duration::from_secs_f64(due_ms / 1000.0);
        tokio::select! {
            () = tokio::time::sleep_until(due.into()) => {}
            () = stop_sending.cancelled() => break,
        }
        let r = &api.rows[i];
        let body = send::body(&target, r, || lab_core::workload::prompts::prompt(r, block));
        let (client, target, counts, sweep) =
            (api.client.clone(), Arc::clone(&target), Arc::clone(&counts), Arc::clone(&sweep));
        counts.sent.fetch_add(1, Ordering::Relaxed);
        sweep.in_flight.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let (mut trace, _) = send::send(&client, &target, body, sweep.zero, &sweep.abort).await;
            let counter = if trace.failure.is_some() { &counts.failed } else { &counts.finished };
            counter.fetch_add(1, Ordering::Relaxed);
            trace.scheduled_ms = Some(offset_ms + due_ms);
            sweep.record(number, trace);
            sweep.in_flight.fetch_sub(1, Ordering::Relaxed);
        });
    }
    stop_sending.cancel();
}

async fn status(State(api): State<Arc<LoadApi>>, headers: HeaderMap) -> Response {
    if let Some(r) = refused(&api, &headers) {
        return r;
    }
    let g = api.current();
    let body = match &*g {
        None => json!({"running": false}),
        Some(r) => json!({
            "running": !r.stop_sending.is_cancelled(),
            "speed": r.speed,
            "offered_per_s": r.offered_per_s,
            "sent": r.counts.sent.load(Ordering::Relaxed),
            "finished": r.counts.finished.load(Ordering::Relaxed),
            "failed": r.counts.failed.load(Ordering::Relaxed),
        }),
    };
    axum::Json(body).into_response()
}

async fn stop(State(api): State<Arc<LoadApi>>, headers: HeaderMap) -> Response {
    if let Some(r) = refused(&api, &headers) {
        return r;
    }
    let was = api.current().take();
    if let Some(r) = &was {
        r.stop_sending.cancel();
    }
    // Every load of the sweep: a replaced one's requests may still stream.
    let sweep = Arc::clone(&api.sweep());
    sweep.abort.cancel();
    let until = Instant::now() + DRAIN;
    while sweep.in_flight.load(Ordering::Relaxed) > 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let in_flight = sweep.in_flight.load(Ordering::Relaxed);
    axum::Json(json!({"stopped": was.is_some(), "in_flight": in_flight, "loads": sweep.loads()}))
        .into_response()
}

async fn requests(State(api): State<Arc<LoadApi>>, headers: HeaderMap) -> Response {
    if let Some(r) = refused(&api, &headers) {
        return r;
    }
    let sweep = Arc::clone(&api.sweep());
    axum::Json(sweep.trace()).into_response()
}

async fn traffic(
    State(api): State<Arc<LoadApi>>,
    headers: HeaderMap,
    q: Result<Query<After>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let q = match q {
        Ok(Query(q)) => q,
        Err(e) => return error(StatusCode::BAD_REQUEST, "invalid_request_error", &e.body_text()),
    };
    if let Some(r) = refused(&api, &headers) {
        return r;
    }
    axum::Json(api.traffic.since(q.after)).into_response()
}
