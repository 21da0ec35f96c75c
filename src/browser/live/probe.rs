//! Probe while loaded (`lab_core::load::probing`): window by window, the
//! form's request is sent every few seconds while a workload loads the
//! server — `latency-lab serve`'s built-in load at the window's speed, or
//! someone else's — and the server's side of the window (each admitted
//! request's wait for a slot, `GET /v1/lab/traffic`) is read at its end.
//! Every probe is drawn: in the answer pane when it is free, else in a
//! lane of its own ([`super::lane`]), so each has its first paint.
//! The windows go into the trace (`meta.load`), read back by
//! `lab_core::workload::probe`.

use lab_core::load::probing::{ProbeLoad, ProbePlan};
use lab_core::serve::protocol::{LOAD_PATH, TRAFFIC_PATH, lab_url};
use lab_core::trace::{LoadWindow, RequestTrace};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::shapes::{Draw, on_schedule};
use super::{Abort, LiveRequest, Progress, UseLiveRun};
use crate::browser::clock::{now_ms, sleep_ms};
use crate::browser::fetch::{FetchError, call_text};

/// What the load and traffic routes answer (one shape for them all, so
/// the page carries one reader): `POST /v1/lab/load` its `offered_per_s`
/// and `load` (its number in the sweep), `GET /v1/lab/load` its `failed`,
/// `DELETE /v1/lab/load` what each load did (`loads`), `GET
/// /v1/lab/traffic` `next` and `queued_ms`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Reply {
    offered_per_s: Option<f64>,
    load: Option<u64>,
    next: Option<u64>,
    queued_ms: Vec<f64>,
    failed: u64,
    loads: Vec<OwnLoad>,
}

/// One load of the sweep as `DELETE /v1/lab/load` says it did: a load
/// window labelled `load N`, its requests measured by serve with core's
/// definitions (`lab_core::workload::load_trace::OwnRequests`); only the
/// fields the page takes.
#[derive(Deserialize, Default)]
#[serde(default)]
struct OwnLoad {
    label: String,
    load_ttft_ms: Vec<f64>,
    failed: u64,
    load_failures: Vec<String>,
}

/// `POST /v1/lab/load`'s body.
#[derive(Serialize)]
struct StartLoad<'a> {
    model: &'a str,
    speed: f64,
    duration_s: f64,
    from_s: f64,
    /// A later window of the same sweep.
    continues: bool,
}

async fn reply(method: &str, url: &str, body: Option<&str>) -> Result<Reply, FetchError> {
    let text = call_text(method, url, body, None).await?;
    serde_json::from_str(&text).map_err(|e| FetchError::Network(format!("{url} answered {e}")))
}

/// The probe run: every window of `plan`, then the built-in load stopped.
pub(super) async fn probe(run: UseLiveRun, p: &mut Progress<'_>, plan: ProbePlan, abort: &Abort) {
    let Some(req) = p.request_with(p.spec.config.body()) else { return };
    let (load_url, traffic_url) = (lab_url(&req.url, LOAD_PATH), lab_url(&req.url, TRAFFIC_PATH));
    let speeds = plan.speeds();
    let model = p.spec.config.model.clone();
    // Every window plays the workload from its start, so the speeds are
    // compared on the same requests: a faster one offers them sooner, and
    // more of them (issue 44: playing on through the trace, 1.5× offered
    // 4.1 requests/s against 1×'s 5.8, and scored better).
    let mut loaded = false;
    // Each window's load, by its number in the sweep.
    let mut numbers: Vec<Option<u64>> = Vec::new();
    for k in 0..plan.window_count() {
        if abort.aborted() {
            break;
        }
        let speed = speeds.get(k).copied();
        // The window begins as its load is asked for, so the load's first
        // requests (due the moment it starts) fall inside it; another
        // tool's load, where the last window ended (ProbePlan::window_start).
        let asked = plan.window_start(p.load.last().map(|w| w.to_ms), now_ms());
        let (offered, number) = match speed {
            None => (None, None),
            Some(s) => {
                let start = StartLoad {
                    model: &model,
                    speed: s,
                    duration_s: plan.window_s,
                    from_s: 0.0,
                    continues: loaded,
                };
                loaded = true;
                let body = serde_json::to_string(&start).unwrap_or_default();
                match reply("POST", &load_url, Some(&body)).await {
                    Ok(started) => (started.offered_per_s, started.load),
                    Err(e) => {
                        run.error.set(Some(format!(
                            "The built-in load could not start ({e}). It is latency-lab serve's: use its replay endpoint, on this machine. To load another server, run latency-lab run (or any tool) and choose \"probe while loaded by another tool\"."
                        )));
                        break;
                    }
                }
            }
        };
        let cursor = reply("GET", &traffic_url, None).await.ok().and_then(|t| t.next);
        let from = now_ms();
        let to = from + plan.window_s * 1000.0;
        let server_side = async {
            // The window's end, or Stop.
            while now_ms() < to && !abort.aborted() {
                sleep_ms((to - now_ms()).clamp(1.0, 100.0)).await;
            }
            let queued = match cursor {
                Some(c) => reply("GET", &format!("{traffic_url}?after={c}"), None).await.unwrap_or_default(),
                None => Reply::default(),
            };
            let failed = match speed {
                Some(_) => reply("GET", &load_url, None).await.unwrap_or_default().failed,
                None => 0,
            };
            (queued.queued_ms, failed)
        };
        let probes = window(run, p, &req, plan, from, abort);
        let (probes, (queued_ms, failed)) = futures_util::join!(probes, server_side);
        let label = match speed {
            Some(s) => format!("{s}×"),
            None => format!("{:.0}–{:.0} s", k as f64 * plan.window_s, (k + 1) as f64 * plan.window_s),
        };
        p.load.push(LoadWindow {
            label,
            speed,
            from_ms: asked,
            to_ms: to.min(now_ms()),
            offered_per_s: offered,
            admitted: queued_ms.len() as u64,
            queued_ms,
            failed,
            ..LoadWindow::default()
        });
        numbers.push(number);
        p.extend(probes);
    }
    if plan.load == ProbeLoad::BuiltIn {
        // Ends the load's requests still in flight and learns what each
        // window's load did; those that failed after a window's end count.
        match reply("DELETE", &load_url, None).await {
            Ok(ended) => {
                for (w, number) in p.load.iter_mut().zip(&numbers) {
                    let label = number.map(|n| format!("load {n}"));
                    if let Some(own) = ended.loads.iter().find(|l| Some(&l.label) == label.as_ref()) {
                        w.load_ttft_ms.clone_from(&own.load_ttft_ms);
                        w.failed = own.failed;
                        w.load_failures.clone_from(&own.load_failures);
                    }
                }
            }
            Err(e) => p.notes.push(format!(
                "What the built-in load's own requests did could not be read ({e}): the windows keep the failures counted at their ends."
            )),
        }
    }
    p.so_far.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
}

/// The probes of one window, sent every `plan.probe_every_s` from `from`
/// whatever earlier ones are doing; each is drawn (the answer pane or a lane).
async fn window(
    run: UseLiveRun,
    p: &Progress<'_>,
    req: &LiveRequest,
    plan: ProbePlan,
    from: f64,
    abort: &Abort,
) -> Vec<RequestTrace> {
    let dues: Vec<f64> =
        (0..plan.probes_per_window()).map(|i| from + i as f64 * plan.probe_every_s * 1000.0).collect();
    on_schedule(run, req, &dues, (p.done(), p.spec.mode.requests()), Draw::Every, abort).await
}
