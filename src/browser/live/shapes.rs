//! The live runs that show where latency comes from
//! (`lab_core::load`): a prompt-length sweep (prefill), a conversation in
//! two series (context growth, prefix caching) and a request-rate run
//! (open-loop arrivals, queueing). Each request's trace carries what the
//! analysis needs: its estimated prompt tokens, its turn and series, and
//! when it was meant to be sent.

use std::cell::Cell;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use lab_core::load::arrivals::RatePlan;
use lab_core::load::prompts::{self, Prefix};
use lab_core::replay::cadence::Contrast;
use lab_core::replay::text;
use lab_core::stream::live::LiveStats;
use lab_core::trace::RequestTrace;
use leptos::prelude::*;

use super::lane::QUIET;
use super::{Abort, LiveRequest, Progress, RunPhase, UseLiveRun};
use crate::browser::clock::{now_ms, sleep_ms};
use crate::browser::page;

/// The first message of a conversation when the form has no system prompt.
const DEFAULT_FIRST: &str = "You are a helpful assistant. Answer briefly and plainly.";

/// How long before the first scheduled send a rate run starts (ms), so
/// the first request is not already late.
const RATE_LEAD_MS: f64 = 50.0;

/// How long before a send a rate run stops sleeping and watches the clock (ms).
const SPIN_MS: f64 = 1.5;

/// Longest sleep before a send without looking at Stop (ms).
const STOP_CHECK_MS: f64 = 100.0;

/// A word no other run uses, put at the start of prompts so nothing is
/// shared with an earlier run's cache.
fn nonce() -> String {
    format!("run-{:08x}", (page::random() * f64::from(u32::MAX)) as u64)
}

/// Timers wake up in whole milliseconds, late by up to one more: sleep to
/// [`SPIN_MS`] before `due` (in steps of at most [`STOP_CHECK_MS`], so Stop
/// is heard at once), then watch the clock (under [`SPIN_MS`] + 1 ms, once
/// per request), so requests leave on time and never early.
pub(super) async fn wait_until(due: f64, abort: &Abort) {
    loop {
        let ahead = due - now_ms() - SPIN_MS;
        if ahead < 1.0 || abort.aborted() {
            break;
        }
        sleep_ms(ahead.min(STOP_CHECK_MS).floor()).await;
    }
    while now_ms() < due && !abort.aborted() {
        std::hint::spin_loop();
    }
}

/// Prompts of growing length, `rounds` of each, one at a time.
pub(super) async fn prompt_sweep(
    run: UseLiveRun,
    p: &mut Progress<'_>,
    max: u32,
    rounds: u32,
    abort: &Abort,
) {
    let sizes = prompts::sweep_sizes(max as usize);
    let total = p.spec.mode.requests();
    let nonce = nonce();
    let order = sizes.iter().flat_map(|s| std::iter::repeat_n(*s, rounds.max(1) as usize));
    for (i, size) in order.enumerate() {
        if abort.aborted() {
            break;
        }
        run.phase.set(RunPhase::Running { done: p.done(), total, concurrency: 1 });
        let mut config = p.spec.config.clone();
        config.prompt = prompts::sized_prompt(size, &format!("{nonce}-{i}"));
        let Some(req) = p.request_with(config.body()) else { break };
        let mut t = run.one_on_screen(p, &req, abort).await;
        t.prompt_tokens =
            Some((text::count_tokens(&config.system) + text::count_tokens(&config.prompt)) as u64);
        p.extend([t]);
    }
}

/// `turns` turns with a stable first message, then with a changed one.
pub(super) async fn conversation(run: UseLiveRun, p: &mut Progress<'_>, turns: u32, abort: &Abort) {
    let turns = turns.clamp(1, lab_core::load::shape::MAX_TURNS) as usize;
    let nonce = nonce();
    let system = p.spec.config.system.trim();
    let first = format!("[{nonce}] {}", if system.is_empty() { DEFAULT_FIRST } else { system });
    for prefix in [Prefix::Stable, Prefix::Changed] {
        let mut answers: Vec<String> = Vec::new();
        for turn in 0..turns {
            if abort.aborted() {
                return;
            }
            run.phase.set(RunPhase::Running {
                done: p.done(),
                total: p.spec.mode.requests(),
                concurrency: 1,
            });
            let messages = prompts::turn_messages(&first, prefix, turn, &answers, &nonce);
            let Some(req) = p.request_with(p.spec.config.body_with(&messages)) else { return };
            let mut t = run.one_on_screen(p, &req, abort).await;
            t.prompt_tokens = Some(prompts::count_message_tokens(&messages) as u64);
            t.turn = Some(turn as u32);
            t.group = Some(prefix.word().to_string());
            answers.push(t.text());
            p.extend([t]);
        }
    }
}

/// Requests sent on the plan's schedule, however many are in flight; the
/// first is drawn (so the figures and the answer on the page are this
/// run's), all are measured.
pub(super) async fn rate(run: UseLiveRun, p: &mut Progress<'_>, plan: RatePlan, abort: &Abort) {
    let Ok(times) = plan.send_times_ms() else { return };
    let Some(req) = p.request_with(p.spec.config.body()) else { return };
    let t0 = now_ms() + RATE_LEAD_MS;
    let dues: Vec<f64> = times.iter().map(|at| t0 + at).collect();
    let sent = on_schedule(run, &req, &dues, (0, dues.len()), Draw::First, abort).await;
    p.extend(sent);
    p.so_far.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
}

/// Which requests of a schedule are drawn on the page.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Draw {
    /// The first only.
    First,
    /// Every one: on screen when it is free, else in a pane of its own
    /// (a lane) while it streams.
    Every,
}

/// Sends `req` at each of `dues` (page clock, ms), however many are in
/// flight; each keeps its due time as `scheduled_ms`. The status counts
/// `progress.0` requests done before these, of `progress.1`, and a request
/// in flight from the moment it is sent. The drawn request's partial trace
/// is not published: the run so far is, as requests finish.
pub(super) async fn on_schedule(
    run: UseLiveRun,
    req: &LiveRequest,
    dues: &[f64],
    progress: (usize, usize),
    draw: Draw,
    abort: &Abort,
) -> Vec<RequestTrace> {
    let (before, total) = progress;
    let (sent, done, on_screen) = (Cell::new(0usize), Cell::new(0usize), Cell::new(false));
    let status = || {
        let in_flight = u32::try_from(sent.get().saturating_sub(done.get())).unwrap_or(u32::MAX);
        run.phase.set(RunPhase::Running { done: before + done.get(), total, concurrency: in_flight });
    };
    let on_stats = |s: LiveStats| run.stats.set(s);
    let on_cadence = |c: Option<Contrast>| run.cadence.set(c);
    let no_checkpoint = |_: &RequestTrace| {};
    let mut pending: FuturesUnordered<_> = dues
        .iter()
        .enumerate()
        .map(|(i, &due)| {
            let (sent, status, on_screen) = (&sent, &status, &on_screen);
            let (on_stats, on_cadence, no_checkpoint) = (&on_stats, &on_cadence, &no_checkpoint);
            async move {
                wait_until(due, abort).await;
                if abort.aborted() {
                    return None;
                }
                sent.set(sent.get() + 1);
                status();
                let drawn = match draw {
                    Draw::First => i == 0,
                    Draw::Every => !on_screen.replace(true),
                };
                let lane = (draw == Draw::Every && !drawn).then(|| run.lane()).flatten();
                let screen = match &lane {
                    Some(l) => Some(run.lane_screen(l, &QUIET)),
                    None => drawn.then(|| run.screen(on_stats, no_checkpoint, on_cadence)).flatten(),
                };
                let mut t: RequestTrace = run.one(req, abort, screen).await;
                drop(lane);
                if drawn {
                    on_screen.set(false);
                }
                t.scheduled_ms = Some(due);
                Some(t)
            }
        })
        .collect();
    status();
    let mut out = Vec::with_capacity(dues.len());
    while let Some(finished) = pending.next().await {
        done.set(done.get() + 1);
        out.extend(finished);
        status();
    }
    out
}
