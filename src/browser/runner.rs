//! The live run hook ([`use_live_runner`], shaped like leptos-use hooks):
//! runs one request, N in a row, N at once, or a concurrency sweep, writes
//! live figures into signals every animation frame, and ends with a trace.
//!
//! The **focused** request (the first of each batch) is rendered: its text is
//! appended to the output element as it arrives and a per-frame loop marks
//! when it was painted (see [`super::paint`]). Other concurrent requests are
//! measured but not drawn, so they have no paint times.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures_util::future::join_all;
use lab_core::measure::groundtruth::parse_server_timing;
use lab_core::stream::endpoint::EndpointConfig;
use lab_core::stream::live::LiveStats;
use lab_core::stream::record::Recorder;
use lab_core::trace::{ChunkKind, ClientInfo, RequestTrace, SourceKind, Trace, TraceMeta, redact_endpoint};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};

use super::clock::{client_info, now_ms};
use super::live::{Abort, LiveRequest, get_text, stream_completion};
use super::paint::{measure_refresh_hz, next_frame};
use super::render::{append_text, clear, follow_bottom};
use super::resource;

/// Shortest interval between two refreshes of the live figures (ms).
pub const STATS_INTERVAL_MS: f64 = 100.0;

/// Publishes a checkpoint with the focused request's partial stream.
type Snapshot = Rc<dyn Fn(Option<&RequestTrace>)>;

/// How often the partial trace of a running run is published
/// ([`LiveRunner::checkpoint`]) so it can be saved: a tab closed mid-run loses
/// at most this much.
pub const CHECKPOINT_MS: f64 = 1000.0;

/// How many requests, and how many at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunMode {
    /// One request.
    Single,
    /// N requests one after another.
    Repeat {
        /// N.
        n: u32,
    },
    /// N requests at once.
    Concurrent {
        /// N.
        n: u32,
    },
    /// Concurrency 1, 2, 4 … up to `max`, each level run `rounds` times.
    Sweep {
        /// Highest concurrency.
        max: u32,
        /// Batches per level.
        rounds: u32,
    },
}

impl RunMode {
    /// The concurrency levels and the batches of each.
    pub fn levels(self) -> Vec<(u32, u32)> {
        match self {
            Self::Single => vec![(1, 1)],
            Self::Repeat { n } => vec![(1, n.max(1))],
            Self::Concurrent { n } => vec![(n.max(1), 1)],
            Self::Sweep { max, rounds } => {
                let mut out = Vec::new();
                let mut c = 1;
                while c <= max.max(1) {
                    out.push((c, rounds.max(1)));
                    c *= 2;
                }
                out
            }
        }
    }
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Endpoint and request (no key).
    pub config: EndpointConfig,
    /// The key, if any (Authorization header only).
    pub api_key: Option<String>,
    /// CORS advice for the chosen server kind.
    pub cors_hint: String,
    /// Shape of the run.
    pub mode: RunMode,
    /// Label for the trace.
    pub label: String,
}

/// Where a run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RunPhase {
    /// Nothing running.
    Idle,
    /// Requests in flight.
    Running {
        /// Requests finished.
        done: usize,
        /// Requests planned.
        total: usize,
        /// Current concurrency.
        concurrency: u32,
    },
    /// Ended normally.
    Finished,
    /// Stopped by the user.
    Stopped,
}

/// A finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// All requests.
    pub trace: Trace,
    /// Per concurrency level (sweeps; one entry otherwise).
    pub levels: Vec<(u32, Trace)>,
}

/// The hook's signals and actions.
#[derive(Clone, Copy)]
pub struct LiveRunner {
    /// Phase.
    pub phase: RwSignal<RunPhase>,
    /// Figures of the focused request, updated every frame.
    pub stats: RwSignal<LiveStats>,
    /// The last finished run.
    pub result: RwSignal<Option<RunOutput>>,
    /// A problem that prevented the run (bad config).
    pub error: RwSignal<Option<String>>,
    /// The running run so far (finished requests and the focused one's
    /// partial stream), refreshed every [`CHECKPOINT_MS`] and after every
    /// request, for incremental saving. Its `meta.created_at` names the run.
    pub checkpoint: RwSignal<Option<Trace>>,
    abort: StoredValue<Option<Abort>, LocalStorage>,
    refresh_hz: StoredValue<Option<f64>>,
}

/// Creates the runner; aborts whatever is in flight when the owner is
/// cleaned up.
pub fn use_live_runner() -> LiveRunner {
    let runner = LiveRunner {
        phase: RwSignal::new(RunPhase::Idle),
        stats: RwSignal::new(LiveStats::default()),
        result: RwSignal::new(None),
        error: RwSignal::new(None),
        checkpoint: RwSignal::new(None),
        abort: StoredValue::new_local(None),
        refresh_hz: StoredValue::new(None),
    };
    resource::enlarge_buffer();
    spawn_local(async move {
        let hz = measure_refresh_hz(20).await;
        runner.refresh_hz.set_value(hz);
    });
    on_cleanup(move || {
        if let Some(a) = runner.abort.try_get_value().flatten() {
            a.abort();
        }
    });
    runner
}

/// The elements the focused request is drawn into.
#[derive(Clone)]
pub struct Targets {
    /// Answer text.
    pub content: web_sys::Element,
    /// Reasoning text.
    pub reasoning: web_sys::Element,
}

impl LiveRunner {
    /// True while requests are in flight.
    pub fn running(&self) -> bool {
        matches!(self.phase.get_untracked(), RunPhase::Running { .. })
    }

    /// Stops every request of the current run.
    pub fn stop(&self) {
        if let Some(a) = self.abort.get_value() {
            a.abort();
        }
    }

    /// Starts a run.
    pub fn start(&self, spec: RunSpec, targets: Targets) {
        if self.running() {
            return;
        }
        let (url, body) = match (spec.config.completion_url(), spec.config.body()) {
            (Ok(u), Ok(b)) => (u, b),
            (Err(e), _) | (_, Err(e)) => {
                self.error.set(Some(e.to_string()));
                return;
            }
        };
        let Some(abort) = Abort::new() else {
            self.error.set(Some("this browser cannot abort requests (no AbortController)".into()));
            return;
        };
        self.error.set(None);
        self.abort.set_value(Some(abort.clone()));
        let req = LiveRequest { url, body, api_key: spec.api_key.clone(), cors_hint: spec.cors_hint.clone() };
        let runner = *self;
        spawn_local(async move { runner.run(spec, req, abort, targets).await });
    }

    async fn run(self, spec: RunSpec, req: LiveRequest, abort: Abort, targets: Targets) {
        let levels = spec.mode.levels();
        let total: usize = levels.iter().map(|(c, r)| (*c * *r) as usize).sum();
        let mut done = 0;
        let mut all = Vec::new();
        let mut level_traces = Vec::new();
        let started = js_sys::Date::new_0().to_iso_string().as_string();
        let max_planned = levels.iter().map(|(c, _)| *c).max().unwrap_or(1);
        // Finished requests so far, for checkpoints.
        let so_far: Rc<RefCell<Vec<RequestTrace>>> = Rc::default();
        let snapshot: Snapshot = {
            let (so_far, spec, started, runner) = (so_far.clone(), spec.clone(), started.clone(), self);
            Rc::new(move |partial: Option<&RequestTrace>| {
                let mut reqs = so_far.borrow().clone();
                reqs.extend(partial.cloned());
                runner.checkpoint.set(Some(runner.trace_of(&spec, reqs, max_planned, started.clone())));
            })
        };
        snapshot(None);
        for (concurrency, rounds) in levels {
            let mut level_reqs = Vec::new();
            for _ in 0..rounds {
                if abort.aborted() {
                    break;
                }
                self.phase.set(RunPhase::Running { done, total, concurrency });
                let batch = (0..concurrency).map(|i| {
                    self.run_one(
                        &req,
                        &abort,
                        (i == 0).then_some(&targets),
                        (i == 0).then(|| snapshot.clone()),
                    )
                });
                let traces = join_all(batch).await;
                done += traces.len();
                so_far.borrow_mut().extend(traces.iter().cloned());
                snapshot(None);
                level_reqs.extend(traces);
            }
            all.extend(level_reqs.iter().cloned());
            level_traces.push((concurrency, self.trace_of(&spec, level_reqs, concurrency, started.clone())));
        }
        let max_c = level_traces.iter().map(|(c, _)| *c).max().unwrap_or(1);
        let trace = self.trace_of(&spec, all, max_c, started);
        self.result.set(Some(RunOutput { trace, levels: level_traces }));
        self.phase.set(if abort.aborted() { RunPhase::Stopped } else { RunPhase::Finished });
        self.abort.set_value(None);
    }

    fn trace_of(
        &self,
        spec: &RunSpec,
        requests: Vec<RequestTrace>,
        concurrency: u32,
        at: Option<String>,
    ) -> Trace {
        let info = ClientInfo { display_refresh_hz: self.refresh_hz.get_value(), ..client_info() };
        Trace {
            meta: TraceMeta {
                label: Some(spec.label.clone()),
                created_at: at,
                source: SourceKind::Live,
                endpoint: spec.config.completion_url().ok().map(|u| redact_endpoint(&u)),
                api: Some(spec.config.api),
                model: Some(spec.config.model.clone()),
                tool: Some(format!("latency-lab {}", env!("CARGO_PKG_VERSION"))),
                concurrency: Some(concurrency),
                client: info,
                ..TraceMeta::default()
            },
            requests,
            ..Trace::default()
        }
    }

    async fn run_one(
        &self,
        req: &LiveRequest,
        abort: &Abort,
        focus: Option<&Targets>,
        snapshot: Option<Snapshot>,
    ) -> RequestTrace {
        let rec = Rc::new(RefCell::new(Recorder::new(now_ms())));
        let committed = Rc::new(Cell::new(0usize));
        let finished = Rc::new(Cell::new(false));
        let paints: Rc<RefCell<Vec<(usize, f64)>>> = Rc::default();
        if let Some(t) = focus {
            clear(&t.content);
            clear(&t.reasoning);
            self.stats.set(LiveStats::default());
            let (rec, committed, finished, paints, stats, snapshot) = (
                rec.clone(),
                committed.clone(),
                finished.clone(),
                paints.clone(),
                self.stats,
                snapshot.clone(),
            );
            let follow = t.content.clone();
            spawn_local(async move {
                // One pass per animation frame while the request streams:
                // stamp paints every frame, refresh the figures at most every
                // STATS_INTERVAL_MS (people cannot read faster, and less
                // main-thread work means more accurate arrival stamps).
                let mut last_stats = f64::NEG_INFINITY;
                let mut last_checkpoint = now_ms();
                while !finished.get() {
                    let frame = next_frame(1000).await;
                    let upto = committed.get();
                    if let Some(t) = frame
                        && paints.borrow().last().is_none_or(|(u, _)| *u < upto)
                    {
                        paints.borrow_mut().push((upto, t));
                        rec.borrow_mut().mark_painted(upto, t);
                        follow_bottom(&follow);
                    }
                    let now = now_ms();
                    if !finished.get() && now - last_stats >= STATS_INTERVAL_MS {
                        last_stats = now;
                        stats.set(LiveStats::of(rec.borrow().request(), now));
                    }
                    if let Some(snap) = &snapshot
                        && !finished.get()
                        && now - last_checkpoint >= CHECKPOINT_MS
                    {
                        last_checkpoint = now;
                        snap(Some(rec.borrow().request()));
                    }
                }
            });
        }
        let on_chunks = |range: std::ops::Range<usize>| {
            let Some(t) = focus else { return };
            let r = rec.borrow();
            for c in &r.request().chunks[range.clone()] {
                let el = if c.kind == ChunkKind::Reasoning { &t.reasoning } else { &t.content };
                append_text(el, &c.text);
            }
            committed.set(range.end);
        };
        let (mut trace, outcome) = stream_completion(req, abort, &rec, on_chunks).await;
        finished.set(true);
        if focus.is_some() && committed.get() > 0 {
            if let Some(t) = next_frame(100).await {
                paints.borrow_mut().push((committed.get(), t));
            }
            for &(upto, t) in paints.borrow().iter() {
                trace.mark_painted(upto, t);
            }
            self.stats.set(LiveStats::of(&trace, trace.end_ms.unwrap_or_else(now_ms)));
        }
        if let Some(id) = outcome.ground_truth_id {
            let base = req.url.rsplit_once("/v1/").map_or(req.url.as_str(), |(b, _)| b);
            if let Ok(text) = get_text(&format!("{base}/v1/lab/requests/{id}"), None).await {
                trace.server = parse_server_timing(&text);
            }
        }
        trace.network = resource::find(&req.url, trace.sent_ms);
        trace
    }
}
