//! `latency-lab run WORKLOAD --target URL`: sends a workload open loop —
//! each request at its scheduled time, whatever earlier ones are doing —
//! and records every answer in the lab's trace format.
//!
//! - **Reading**: the file is read on a thread of its own, one row at a
//!   time, shaped ([`lab_core::workload::shape`]: `--window`, `--speed`,
//!   `--rate`, `--max-requests`) and sharded (`--shard I/N`: a session's
//!   requests stay together, others go by their order) into a bounded queue,
//!   so a 1,000,000-row trace is sent without holding it.
//! - **Sending**: at its time (`--start-at` puts time 0 at one wall-clock
//!   instant, so shards on several machines share a clock; a run that
//!   reaches it more than [`shards::CLOCK_TOLERANCE_MS`] late starts at
//!   once, says so and notes it in its trace, and merging it is refused)
//!   each request is handed to a task of its own over keep-alive HTTP/1.1 connections
//!   (`--http2`: one HTTP/2 connection by prior knowledge). The prompt
//!   keeps the workload's cache behaviour ([`lab_core::workload::prompts`]);
//!   ShareGPT rows send their conversation. `max_tokens` asks for the row's
//!   output length (`--exact-output` adds `min_tokens` and `ignore_eos`).
//! - **Recording**: every chunk's arrival on the run's clock, the send
//!   lateness (`sent_ms − scheduled_ms`), usage with cached tokens, and
//!   failures per request (refused, HTTP error with its body, cut, timed
//!   out); against `latency-lab serve`, its ground truth afterwards.
//! - **Stopping** ([`stop`]): Ctrl-C stops sending and waits for what is in
//!   flight; a second Ctrl-C ends those too, keeping what arrived. The trace
//!   is written either way, its notes saying how the run was stopped.
//!
//! Exit codes: 0 the run ended (its failures are in the trace and counted
//! on the last line), 1 the trace could not be written or the target not
//! asked for its model, 2 bad input (flags, a workload row).

mod progress;
mod stop;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use lab_core::measure::stats::Samples;
use lab_core::stream::endpoint::EndpointConfig;
use lab_core::stream::wire::Wire;
use lab_core::trace::shard::{self as shards, ShardId};
use lab_core::trace::{ApiFlavor, RequestTrace, SourceKind, Trace, TraceMeta};
use lab_core::workload::shape::{Shape, Shaper};
use lab_core::workload::{Format, Request};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::workload::{WorkloadFileError, read, sniff};
use lab_server::client::send::{self, HttpClient, Target};
use lab_server::client::tls;

/// Ground-truth records asked for at once after a run.
const GROUND_TRUTH_AT_ONCE: usize = 32;

/// Arguments of `run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The workload (Mooncake, Bailian, Azure, BurstGPT, ShareGPT, a lab trace).
    pub workload: PathBuf,
    /// The server: `http://host:port` or `https://host` (its
    /// `/v1/chat/completions`), or the full URL of the chat completions route.
    #[arg(long)]
    pub target: String,
    /// The model to ask for (default: the first of the target's `/v1/models`).
    #[arg(long)]
    pub model: Option<String>,
    /// Rate factor: ×2 sends the same shape twice as fast.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Only the requests sent from A to B seconds into the trace, e.g. `60..120`.
    #[arg(long, value_name = "A..B")]
    pub window: Option<String>,
    /// Resample to this many requests a second, keeping the bursts (timed
    /// files); the rate of untimed ones (ShareGPT: Poisson arrivals).
    #[arg(long, value_name = "REQ/S")]
    pub rate: Option<f64>,
    /// Seed of the resample and of untimed arrivals.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// At most this many requests.
    #[arg(long, value_name = "N")]
    pub max_requests: Option<u64>,
    /// Send only shard I of N (0-based), e.g. `--shard 2/4`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// When time 0 is: unix seconds or `2026-12-05T10:00:00Z` (all shards
    /// given the same start together).
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
    /// The API to send in: chat (`/v1/chat/completions`), completions,
    /// responses (`/v1/responses`), anthropic (`/v1/messages`), gemini
    /// (`/v1beta/models/MODEL:streamGenerateContent`) or ollama (`/api/chat`).
    /// The key comes from OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY.
    #[arg(long, default_value = "chat", value_parser = ["chat", "completions", "responses", "anthropic", "gemini", "ollama"])]
    pub api: String,
    /// Also send `min_tokens` and `ignore_eos`, so answers have the row's
    /// output length (vLLM, SGLang, llama.cpp take them).
    #[arg(long)]
    pub exact_output: bool,
    /// One HTTP/2 connection (prior knowledge; ALPN over HTTPS) instead of
    /// HTTP/1.1 ones. Over HTTPS, HTTP/2 is used anyway where the server
    /// offers it.
    #[arg(long)]
    pub http2: bool,
    /// Also trust the certificates of this PEM file for an `https://`
    /// target (besides the system's), e.g. a cluster's own CA.
    #[arg(long, value_name = "PEM")]
    pub ca: Option<PathBuf>,
    /// Longest a request may take (s).
    #[arg(long, default_value_t = 600)]
    pub timeout_s: u64,
    /// Where to write the trace.
    #[arg(short = 'o', long, default_value = "run.trace.json")]
    pub output: PathBuf,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
}

/// Why a run could not start or be kept.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A flag that cannot be used.
    #[error("{0}")]
    Flag(String),
    /// The workload could not be read.
    #[error(transparent)]
    Workload(#[from] WorkloadFileError),
    /// The HTTP client (its TLS set-up, `--ca`).
    #[error(transparent)]
    Client(#[from] tls::ClientError),
    /// The target could not be asked for its model.
    #[error("{0}")]
    Target(String),
    /// The trace could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl RunError {
    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunError::Flag(_) | RunError::Workload(_) | RunError::Client(_) => 2,
            _ => 1,
        }
    }
}

/// `A..B` seconds.
fn window(s: &str) -> Result<(f64, f64), RunError> {
    let bad = || RunError::Flag(format!("--window {s}: give A..B in seconds, e.g. 60..120"));
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    Ok((a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?))
}

/// `I/N`.
fn shard(s: &str) -> Result<(u64, u64), RunError> {
    let bad = || RunError::Flag(format!("--shard {s}: give I/N with 0 ≤ I < N, e.g. 0/4"));
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (u64, u64) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// `--start-at` as ms since 1970.
fn start_at(s: &str) -> Result<f64, RunError> {
    s.trim()
        .parse::<f64>()
        .ok()
        .map(|secs| secs * 1000.0)
        .or_else(|| lab_core::trace::dates::datetime_ms(s))
        .filter(|ms| ms.is_finite())
        .ok_or_else(|| {
            RunError::Flag(format!("--start-at {s}: unix seconds, or a time as 2026-12-05T10:00:00Z"))
        })
}

/// `--target` as a base URL: a chat completions route cut back to its `/v1`.
fn base_of(target: &str) -> String {
    let t = target.trim_end_matches('/');
    t.strip_suffix("/chat/completions").unwrap_or(t).to_string()
}

/// The chat completions URL of `--target`.
fn completions_url(target: &str) -> Result<hyper::Uri, RunError> {
    let t = target.trim_end_matches('/');
    if !t.starts_with("http://") && !t.starts_with("https://") {
        return Err(RunError::Flag(format!("--target {target}: give http://host:port or https://host")));
    }
    let url = if t.ends_with("/chat/completions") {
        t.to_string()
    } else if t.ends_with("/v1") {
        format!("{t}/chat/completions")
    } else {
        format!("{t}/v1/chat/completions")
    };
    url.parse().map_err(|e| RunError::Flag(format!("--target {target}: {e}")))
}

fn now_epoch_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// GETs `url` on the run's client: status and body.
async fn get(client: &HttpClient, url: &str) -> Result<(u16, String), String> {
    let uri: hyper::Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
    let req = hyper::Request::get(uri).body(Full::default()).map_err(|e| e.to_string())?;
    let resp = client.request(req).await.map_err(|e| format!("{url}: {e}"))?;
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// The first model the target lists.
async fn first_model(client: &HttpClient, base: &str) -> Result<String, RunError> {
    let url = format!("{base}/v1/models");
    let fail = |why: String| RunError::Target(format!("{why}; give the model with --model"));
    let (status, body) = get(client, &url).await.map_err(|e| fail(format!("cannot ask {url}: {e}")))?;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let id = v["data"][0]["id"].as_str().map(str::to_string);
    id.ok_or_else(|| fail(format!("{url} answered {status} without a model")))
}

/// What the scheduling thread reads and when it sends.
struct Schedule {
    path: PathBuf,
    format: Format,
    shape: Shape,
    shard: Option<(u64, u64)>,
    /// Poisson arrivals at this rate for untimed files.
    untimed_rate: Option<f64>,
    seed: u64,
    zero: Instant,
    stop: CancellationToken,
}

impl Schedule {
    /// Reads the rows, shapes and shards them, makes each ready with
    /// `prepare` before its time and hands it to `send` at its time (until
    /// the cap, the end or `stop`); false when `stop` cut it short.
    ///
    /// Rows are made ready [`PREPARE_AHEAD`] ahead: every row due within
    /// that of the next one to send is prepared before it goes, so a burst
    /// of requests due at one instant (Mooncake's trace sends up to 16 with
    /// ~12k-token prompts) leaves together instead of each waiting for the
    /// prompts of those before it; and none is prepared sooner, so making
    /// the next burst ready does not compete with this one's sending.
    fn each<T>(
        self,
        mut prepare: impl FnMut(Request) -> T,
        mut send: impl FnMut(T),
    ) -> Result<bool, WorkloadFileError> {
        lab_server::replay::pacer::precise_sleeps();
        let Schedule { path, format, shape, shard, untimed_rate, seed, zero, stop } = self;
        let mut shaper = Shaper::new(shape);
        let mut out = Vec::new();
        let mut index = 0u64;
        let mut rng = lab_core::replay::rng::Rng::new(seed);
        let mut clock = 0.0;
        let mut stopped = false;
        let mut ready: VecDeque<(Instant, T)> = VecDeque::new();
        // Sends what is queued, in order, at its time, while `until(due)`.
        let mut flush = |ready: &mut VecDeque<(Instant, T)>, until: &dyn Fn(Instant) -> bool| -> bool {
            while let Some((due, _)) = ready.front() {
                if !until(*due) {
                    break;
                }
                if !sleep_until(*due, &stop) {
                    return false;
                }
                if let Some((_, t)) = ready.pop_front() {
                    send(t);
                }
            }
            true
        };
        read(&path, format, &mut |mut r| {
            if shaper.done() || stopped {
                return;
            }
            if stop.is_cancelled() {
                stopped = true;
                return;
            }
            if let Some(rate) = untimed_rate {
                clock += -(1.0 - rng.uniform()).ln() / rate * 1000.0;
                r.at_ms = clock;
            }
            shaper.push(r, &mut out);
            for r in out.drain(..) {
                let key = r.session.unwrap_or(index);
                index += 1;
                if shard.is_some_and(|(i, n)| key % n != i) {
                    continue;
                }
                let due = zero + Duration::from_secs_f64(r.at_ms.max(0.0) / 1000.0);
                // What is due before this row must be made ready leaves
                // first, and the row is made ready no sooner than
                // PREPARE_AHEAD before its time: writing a burst's prompts
                // as the burst before it leaves took the cores its requests
                // needed (P99 send lateness 3.4–4.3 ms on the 12k-token
                // bursts fixture, the last burst on time).
                let ahead = due.checked_sub(PREPARE_AHEAD).unwrap_or(due);
                if !flush(&mut ready, &|front| front <= ahead) || !sleep_until(ahead, &stop) {
                    stopped = true;
                    return;
                }
                ready.push_back((due, prepare(r)));
            }
        })?;
        if !stopped && !flush(&mut ready, &|_| true) {
            stopped = true;
        }
        Ok(!stopped)
    }
}

/// How far ahead of its time a row is made ready (its prompt written, its
/// body encoded): [`Schedule::each`].
pub const PREPARE_AHEAD: Duration = Duration::from_millis(100);

/// Sleeps on the OS clock until `due` (in slices, to notice `stop`);
/// false when stopped.
fn sleep_until(due: Instant, stop: &CancellationToken) -> bool {
    loop {
        if stop.is_cancelled() {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        std::thread::sleep((due - now).min(Duration::from_millis(50)));
    }
}

/// One request's record and where it was in the schedule.
struct Sent {
    trace: RequestTrace,
    request_id: Option<String>,
    asked_output: u32,
}

/// Runs the command; returns the last lines to print.
pub fn run(args: &RunArgs) -> Result<String, RunError> {
    let shape = Shape {
        window: args.window.as_deref().map(window).transpose()?,
        speed: args.speed,
        resample: None,
        cap: args.max_requests,
    };
    shape.validate().map_err(|e| RunError::Flag(e.to_string()))?;
    let shard = args.shard.as_deref().map(shard).transpose()?;
    let start_epoch = args.start_at.as_deref().map(start_at).transpose()?;
    let url = completions_url(&args.target)?;
    let format = sniff(&args.workload)?.ok_or_else(|| {
        RunError::Flag(format!("{}: not a workload file the lab reads", args.workload.display()))
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::Target(e.to_string()))?;
    runtime.block_on(run_async(args, shape, shard, start_epoch, url, format))
}

async fn run_async(
    args: &RunArgs,
    mut shape: Shape,
    shard: Option<(u64, u64)>,
    start_epoch: Option<f64>,
    url: hyper::Uri,
    format: Format,
) -> Result<String, RunError> {
    let client: HttpClient = tls::client(args.http2, args.ca.as_deref())?;
    let base =
        format!("{}://{}", url.scheme_str().unwrap_or("http"), url.authority().map_or("", |a| a.as_str()));
    let model = match &args.model {
        Some(m) => m.clone(),
        None => first_model(&client, &base).await?,
    };
    let timed = format.timed();
    if let (Some(rate), true) = (args.rate, timed) {
        // The window's own mean rate, from a first pass over the file.
        let mut s = lab_core::workload::summary::Summary::new(format);
        let mut first = None;
        let w = shape.window;
        read(&args.workload, format, &mut |r| {
            let t0 = *first.get_or_insert(r.at_ms);
            let t = (r.at_ms - t0) / 1000.0;
            if w.is_none_or(|(a, b)| t >= a && t < b) {
                s.add(&r);
            }
        })?;
        let m = shape.factor_for(rate, s.mean_rate()).map_err(|e| RunError::Flag(e.to_string()))?;
        shape.resample = Some((m, args.seed));
    }
    let (wire, flavor) = match args.api.as_str() {
        "completions" => (Wire::Chat, ApiFlavor::Completions),
        other => (Wire::from_id(other).unwrap_or(Wire::Chat), ApiFlavor::Chat),
    };
    let config = EndpointConfig {
        base_url: base_of(&args.target),
        model: model.clone(),
        wire,
        api: flavor,
        ..EndpointConfig::default()
    };
    let url = if (wire, flavor) == (Wire::Chat, ApiFlavor::Chat) {
        url
    } else {
        let route =
            config.completion_url().map_err(|e| RunError::Flag(format!("--target {}: {e}", args.target)))?;
        route.parse().map_err(|e| RunError::Flag(format!("--target {}: {e}", args.target)))?
    };
    let key_var = match wire {
        Wire::Anthropic => "ANTHROPIC_API_KEY",
        Wire::Gemini => "GEMINI_API_KEY",
        _ => "OPENAI_API_KEY",
    };
    let key = std::env::var(key_var).ok().filter(|k| !k.is_empty() && wire != Wire::Ollama);
    let target = Arc::new(Target {
        url,
        wire,
        flavor,
        model: model.clone(),
        exact_output: args.exact_output,
        auth: config.auth_headers(key.as_deref()),
        timeout: Duration::from_secs(args.timeout_s),
    });
    let stops = stop::Stops::on_ctrl_c();
    let (stop_sending, abort) = (stops.sending.clone(), stops.abort.clone());
    let (zero, clock_epoch_ms, late_note) = time_zero(start_epoch);
    if let Some(note) = &late_note {
        eprintln!(
            "latency-lab run: {}{note}",
            shard.map_or(String::new(), |(i, n)| format!("shard {i}/{n} "))
        );
    }
    let counters = Arc::new(progress::Counters::default());
    let bar = progress::start(Arc::clone(&counters), args.quiet);
    let results: Arc<Mutex<Vec<Sent>>> = Arc::default();
    let tracker = TaskTracker::new();
    let schedule = Schedule {
        path: args.workload.clone(),
        format,
        shape,
        shard,
        untimed_rate: args.rate.filter(|_| !timed),
        seed: args.seed,
        zero,
        stop: stop_sending.clone(),
    };
    let runtime = tokio::runtime::Handle::current();
    let (client2, target2, tracker2) = (client.clone(), Arc::clone(&target), tracker.clone());
    let (counters2, results2, abort2) = (Arc::clone(&counters), Arc::clone(&results), abort.clone());
    let block = format.block_tokens().unwrap_or(16);
    // Rows are read, shaped and sharded on a thread that sleeps precisely
    // until each is due (Tokio's timer rounds up to the next ms), then hands
    // the request to a task of its own: nothing waits for earlier answers.
    let scheduled = tokio::task::spawn_blocking(move || {
        let prepare = |r: Request| {
            let body = send::body(&target2, &r, || lab_core::workload::prompts::prompt(&r, block));
            (r, body)
        };
        schedule.each(prepare, |(r, body)| {
            let (client, target, counters, results, abort) = (
                client2.clone(),
                Arc::clone(&target2),
                Arc::clone(&counters2),
                Arc::clone(&results2),
                abort2.clone(),
            );
            counters.sent.fetch_add(1, Ordering::Relaxed);
            tracker2.spawn_on(
                async move {
                    let (mut trace, request_id) = send::send(&client, &target, body, zero, &abort).await;
                    trace.scheduled_ms = Some(r.at_ms);
                    trace.prompt_tokens = Some(u64::from(r.input_tokens));
                    trace.id = Some(format!("row-{}", r.line));
                    trace.turn = r.turn.map(|t| t.saturating_sub(1));
                    let ttft = trace.chunks.first().map(|c| c.arrived_ms - trace.sent_ms);
                    counters.ended(ttft, trace.failure.is_some());
                    let sent = Sent { trace, request_id, asked_output: r.output_tokens };
                    results.lock().unwrap_or_else(PoisonError::into_inner).push(sent);
                },
                &runtime,
            );
        })
    })
    .await
    .unwrap_or(Ok(true));
    stops.schedule_ended(*scheduled.as_ref().unwrap_or(&true));
    tracker.close();
    tracker.wait().await;
    bar.finish_and_clear();
    let mut sent = std::mem::take(&mut *results.lock().unwrap_or_else(PoisonError::into_inner));
    // The replay endpoint's own record of each request, once the run is
    // over, [`GROUND_TRUTH_AT_ONCE`] asked at a time, until a second Ctrl-C
    // (those asked for by then are kept).
    let truths = futures_util::stream::iter(sent.iter().map(|s| s.request_id.clone()))
        .map(|id| {
            let (client, base) = (&client, &base);
            async move {
                let id = id?;
                let url = format!("{base}{}{id}", lab_core::serve::protocol::GROUND_TRUTH_PATH);
                match get(client, &url).await {
                    Ok((200, body)) => lab_core::measure::groundtruth::parse_server_timing(&body),
                    _ => None,
                }
            }
        })
        .buffered(GROUND_TRUTH_AT_ONCE)
        .take_until(abort.cancelled())
        .collect::<Vec<_>>()
        .await;
    for (s, truth) in sent.iter_mut().zip(truths) {
        s.trace.server = truth;
    }
    sent.sort_by(|a, b| a.trace.scheduled_ms.unwrap_or(0.0).total_cmp(&b.trace.scheduled_ms.unwrap_or(0.0)));
    let report = report(&sent, shard, &args.output);
    let notes = late_note.into_iter().chain(stops.notes(sent.len())).collect();
    let trace = Trace {
        meta: TraceMeta {
            label: Some(format!(
                "{} ×{}",
                args.workload.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
                args.speed
            )),
            source: SourceKind::Live,
            endpoint: Some(lab_core::trace::redact_endpoint(&target.url.to_string())),
            api: Some(target.flavor),
            wire: (target.wire != Wire::Chat).then(|| target.wire.id().to_string()),
            model: Some(model),
            tool: Some(format!("latency-lab run {}", env!("CARGO_PKG_VERSION"))),
            created_at: lab_core::trace::dates::iso_ms(clock_epoch_ms),
            clock_epoch_ms: Some(clock_epoch_ms),
            start_at_ms: start_epoch,
            shard: shard.map(|(index, count)| ShardId { index, count }),
            notes,
            ..TraceMeta::default()
        },
        requests: sent.into_iter().map(|s| s.trace).collect(),
        ..Trace::default()
    };
    write(&args.output, &trace)?;
    scheduled?;
    Ok(report)
}

/// The run's 0 (`--start-at`, or [`PREPARE_AHEAD`] from now when none is
/// given, so the rows due at 0 are made ready before it; now when it has passed),
/// its wall-clock time (a probe run's windows and the shards of a run are
/// lined up with it), and what a run that missed its `--start-at` says
/// ([`shards::late_start_note`]: it starts at once, and the merge refuses it).
fn time_zero(start_epoch: Option<f64>) -> (Instant, f64, Option<String>) {
    let (now, now_ms) = (Instant::now(), now_epoch_ms());
    match start_epoch {
        Some(at) if at > now_ms => (now + Duration::from_secs_f64((at - now_ms) / 1000.0), at, None),
        Some(at) => (now, now_ms, shards::late_start_note(now_ms - at, at)),
        None => (now + PREPARE_AHEAD, now_ms + PREPARE_AHEAD.as_secs_f64() * 1000.0, None),
    }
}

/// Writes the trace whole or not at all.
fn write(path: &PathBuf, trace: &Trace) -> Result<(), RunError> {
    let fail = |source| RunError::Write { path: path.clone(), source };
    let partial = path.with_extension("partial");
    let json = serde_json::to_vec(trace).map_err(|e| fail(std::io::Error::other(e)))?;
    std::fs::write(&partial, json).map_err(fail)?;
    std::fs::rename(&partial, path).map_err(fail)
}

/// The last lines: what was sent, how it ended, how late it left.
fn report(sent: &[Sent], shard: Option<(u64, u64)>, out: &std::path::Path) -> String {
    let failed = sent.iter().filter(|s| s.trace.failure.is_some()).count();
    let shorter = sent
        .iter()
        .filter(|s| s.trace.failure.is_none())
        .filter(|s| {
            s.trace.usage.and_then(|u| u.completion_tokens).is_some_and(|c| c < u64::from(s.asked_output))
        })
        .count();
    let late =
        Samples::from_finite(sent.iter().filter_map(|s| s.trace.scheduled_ms.map(|d| s.trace.sent_ms - d)));
    let ttft = Samples::from_finite(
        sent.iter().filter_map(|s| s.trace.chunks.first().map(|c| c.arrived_ms - s.trace.sent_ms)),
    );
    let pct = |s: &Samples, p| s.percentile(p).map_or("–".into(), |v| format!("{v:.2} ms"));
    let mut lines = vec![format!(
        "{} requests sent{}: {} answered, {failed} failed{}",
        sent.len(),
        shard.map_or(String::new(), |(i, n)| format!(" (shard {i}/{n})")),
        sent.len() - failed,
        if shorter > 0 {
            format!(", {shorter} answers shorter than asked (--exact-output asks for the length)")
        } else {
            String::new()
        },
    )];
    lines.push(format!(
        "send lateness P50 {}, P99 {}; TTFT P50 {}, P99 {}",
        pct(&late, 50.0),
        pct(&late, 99.0),
        pct(&ttft, 50.0),
        pct(&ttft, 99.0)
    ));
    lines.push(format!(
        "trace written to {} (latency-lab analyze {} for the figures)",
        out.display(),
        out.display()
    ));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A burst of five rows due at one instant, a row 60 ms later and one
    /// at 400 ms: the first six are made ready before the first of them is
    /// sent (so none waits for the others' prompts); the last, not before
    /// 300 ms (so preparing it does not compete with the burst's sending);
    /// each is sent in order at its time.
    #[test]
    fn a_burst_is_made_ready_before_its_first_request_leaves_and_no_sooner() {
        let path = std::env::temp_dir().join(format!("lab-burst-{}.jsonl", std::process::id()));
        let rows: String = [0, 0, 0, 0, 0, 60, 400]
            .iter()
            .map(|t| format!("{{\"timestamp\": {t}, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}}\n"))
            .collect();
        std::fs::write(&path, rows).expect("write");
        let format = sniff(&path).expect("readable").expect("a workload");
        let zero = Instant::now() + Duration::from_millis(20);
        let schedule = Schedule {
            path: path.clone(),
            format,
            shape: Shape::default(),
            shard: None,
            untimed_rate: None,
            seed: 1,
            zero,
            stop: CancellationToken::new(),
        };
        let events = std::cell::RefCell::new(Vec::new());
        let at = || zero.elapsed().as_millis();
        let done = schedule
            .each(
                |r| {
                    events.borrow_mut().push(("ready", r.line, at()));
                    r.line
                },
                |line| events.borrow_mut().push(("send", line, at())),
            )
            .expect("read");
        let _ = std::fs::remove_file(&path);
        assert!(done);
        let events = events.into_inner();
        let order: Vec<(&str, usize)> = events.iter().map(|e| (e.0, e.1)).collect();
        let expected: Vec<(&str, usize)> = (1..=6)
            .map(|l| ("ready", l))
            .chain((1..=6).map(|l| ("send", l)))
            .chain([("ready", 7), ("send", 7)])
            .collect();
        assert_eq!(order, expected, "{events:?}");
        let when = |k: usize| events[k].2;
        assert!(when(11) >= 60, "row 6 left at {} ms, before its due 60 ms", when(11));
        assert!(
            when(12) >= 300,
            "row 7 was made ready at {} ms, sooner than 100 ms before its 400",
            when(12)
        );
        assert!(when(13) >= 400, "row 7 left at {} ms, before its due 400 ms", when(13));
    }
}
