//! # Probe while loaded: what a person feels while the server carries a workload
//!
//! A **probe run** sends a few requests of one's own (the *probes*: a
//! prompt, a low rate, drawn on the page like any live request) while a
//! workload loads the same server, and records the load beside them, window
//! by window ([`LoadWindow`] in the trace's `meta.load`): the workload's
//! speed factor when the lab drove it, the requests a second its schedule
//! offered, the requests the server admitted and how long each waited for a
//! decode slot.
//!
//! [`ProbeReport::of`] reads it back per window: the probes' TTFT and first
//! paint (percentiles over the probes sent in the window), their QoE, the
//! chosen scenario's score and verdict, the server's admitted rate and
//! queueing, and a sentence a person reads ("at 2.0× the trace (10.6 req/s)
//! half of the probe users see text within 420 ms").
//!
//! **The speed sweep's breaking point** is the first speed, in increasing
//! order, whose window scores below [`PASS_SCORE`] (the lower edge of the
//! *good* verdict band, [`crate::measure::score::Verdict::Good`]); a sweep
//! that never falls below says so, with its last speed. Windows with fewer
//! than [`MIN_PROBES`] answered probes are not judged.
//!
//! Each window's **typical probe** (the one whose TTFT is nearest the
//! window's median) is what the Replay lab plays when two windows are felt
//! side by side.

use serde::{Deserialize, Serialize};

use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::measure::score::{Scenario, Verdict};
use crate::measure::stats::{Samples, Summary};
use crate::trace::{LoadWindow, Trace, TraceMeta};

/// A window passes while its scenario score is at least this (the *good*
/// verdict band).
pub const PASS_SCORE: f64 = 75.0;

/// Answered probes a window needs to be judged.
pub const MIN_PROBES: usize = 2;

/// One window, measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeWindow {
    /// The load window as recorded.
    pub load: LoadWindow,
    /// Indices (in the trace) of the probes sent in the window.
    pub requests: Vec<usize>,
    /// The probes that answered.
    pub answered: usize,
    /// Probe TTFT.
    pub ttft_ms: Option<Summary>,
    /// Probe time to first paint, over the probes drawn on the page (every
    /// one since probes that overlap get a pane of their own; a run
    /// recorded before that drew one at a time and measured the others).
    pub first_paint_ms: Option<Summary>,
    /// Median probe QoE (0–1).
    pub qoe: Option<f64>,
    /// The scenario's score over the window's probes.
    pub score: Option<f64>,
    /// Its verdict band.
    pub verdict: Option<Verdict>,
    /// Requests the server admitted per second.
    pub admitted_per_s: Option<f64>,
    /// Wait for a decode slot over the admitted requests.
    pub queued_ms: Option<Summary>,
    /// Share of admitted requests that waited at all.
    pub queued_share: Option<f64>,
    /// The load's own requests' TTFT, when its trace was added
    /// ([`crate::workload::load_trace`]).
    pub load_ttft_ms: Option<Summary>,
    /// The probe whose TTFT is nearest the window's median (trace index).
    pub typical: Option<usize>,
}

/// Where the speed sweep stopped passing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Breaking {
    /// The first speed whose score fell below [`PASS_SCORE`].
    pub speed: f64,
    /// Its score.
    pub score: f64,
    /// The last speed that passed before it, if any did.
    pub last_passing: Option<f64>,
}

/// A probe run read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeReport {
    /// The scenario judged.
    pub scenario: String,
    /// The windows in the order run.
    pub windows: Vec<ProbeWindow>,
    /// Where the sweep broke (`None`: it never did, or no window had a speed).
    pub breaking: Option<Breaking>,
    /// The fastest speed judged, when any window had one.
    pub top_speed: Option<f64>,
    /// What it means, a sentence per window and one for the sweep.
    pub words: Vec<String>,
}

impl ProbeReport {
    /// Reads the probe run `trace` (`None` when it has no load windows),
    /// judging each window by `scenario`.
    pub fn of(trace: &Trace, scenario: &Scenario, cfg: &MetricsConfig) -> Option<Self> {
        if trace.meta.load.is_empty() {
            return None;
        }
        // Each window is measured as a trace of its own probes under the
        // run's meta, less the windows themselves (one copy, not one each).
        let meta = TraceMeta { load: Vec::new(), ..trace.meta.clone() };
        let windows: Vec<ProbeWindow> =
            trace.meta.load.iter().map(|w| window(trace, &meta, w, scenario, cfg)).collect();
        let judged = || windows.iter().filter(|w| w.score.is_some() && w.load.speed.is_some());
        let mut by_speed: Vec<&ProbeWindow> = judged().collect();
        by_speed.sort_by(|a, b| a.load.speed.unwrap_or(0.0).total_cmp(&b.load.speed.unwrap_or(0.0)));
        let mut last_passing = None;
        let mut breaking = None;
        for w in &by_speed {
            let (speed, score) = (w.load.speed.unwrap_or(0.0), w.score.unwrap_or(0.0));
            if score < PASS_SCORE {
                breaking = Some(Breaking { speed, score, last_passing });
                break;
            }
            last_passing = Some(speed);
        }
        let top_speed = by_speed.last().and_then(|w| w.load.speed);
        let mut words: Vec<String> = windows.iter().map(sentence).collect();
        words.push(verdict_words(&scenario.name, breaking, top_speed));
        Some(Self { scenario: scenario.name.clone(), windows, breaking, top_speed, words })
    }
}

impl ProbeReport {
    /// The windows as text rows, then the words (as `latency-lab analyze`
    /// prints them).
    pub fn table(&self) -> String {
        let cell = |v: Option<f64>, digits: usize| v.map_or("—".to_string(), |x| format!("{x:.digits$}"));
        let mut out = format!("Felt while loaded (judged as {}):\n", self.scenario);
        out.push_str(&format!(
            "  {:>8} {:>9} {:>9} {:>7} {:>10} {:>13} {:>7} {:>9} {:>9} {:>11} {:>5} {:>6}\n",
            "load",
            "offered/s",
            "admitted/s",
            "queued",
            "queue P90",
            "load TTFT P90",
            "probes",
            "TTFT P50",
            "TTFT P90",
            "paint P50",
            "QoE",
            "score"
        ));
        for w in &self.windows {
            out.push_str(&format!(
                "  {:>8} {:>9} {:>9} {:>7} {:>10} {:>13} {:>7} {:>9} {:>9} {:>11} {:>5} {:>6}\n",
                w.load.label,
                cell(w.load.offered_per_s, 1),
                cell(w.admitted_per_s, 1),
                w.queued_share.map_or("—".into(), |q| format!("{:.0}%", q * 100.0)),
                cell(w.queued_ms.map(|q| q.p90), 0),
                cell(w.load_ttft_ms.map(|q| q.p90), 0),
                format!("{}/{}", w.answered, w.requests.len()),
                cell(w.ttft_ms.map(|t| t.p50), 0),
                cell(w.ttft_ms.map(|t| t.p90), 0),
                cell(w.first_paint_ms.map(|t| t.p50), 0),
                cell(w.qoe, 2),
                cell(w.score, 0),
            ));
        }
        out.push('\n');
        for line in &self.words {
            out.push_str(&format!("  {line}\n"));
        }
        out
    }
}

fn window(
    trace: &Trace,
    meta: &TraceMeta,
    w: &LoadWindow,
    scenario: &Scenario,
    cfg: &MetricsConfig,
) -> ProbeWindow {
    let requests: Vec<usize> = trace
        .requests
        .iter()
        .enumerate()
        .filter(|(_, r)| r.sent_ms >= w.from_ms && r.sent_ms < w.to_ms)
        .map(|(i, _)| i)
        .collect();
    let sub = Trace {
        meta: meta.clone(),
        requests: requests.iter().map(|&i| trace.requests[i].clone()).collect(),
        ..Trace::default()
    };
    let m = RunMetrics::of(&sub, cfg);
    let answered = m.completed;
    let judged = answered >= MIN_PROBES;
    let score = judged.then(|| scenario.score(&m).score).flatten();
    // Per-request indices are the sub-trace's: map them back.
    let ttfts: Vec<(usize, f64)> = m
        .per_request
        .iter()
        .filter(|r| r.completed)
        .filter_map(|r| r.ttft_ms.map(|t| (requests[r.index], t)))
        .collect();
    let typical = m.ttft_ms.and_then(|s| {
        ttfts.iter().min_by(|a, b| (a.1 - s.median).abs().total_cmp(&(b.1 - s.median).abs())).map(|p| p.0)
    });
    let span_s = (w.to_ms - w.from_ms) / 1000.0;
    let queued = Samples::from_finite(w.queued_ms.iter().copied());
    let waited = w.queued_ms.iter().filter(|q| **q > 0.0).count();
    ProbeWindow {
        load: w.clone(),
        answered,
        ttft_ms: m.ttft_ms,
        first_paint_ms: m.ttfp_ms,
        qoe: m.qoe.map(|q| q.median),
        score,
        verdict: score.map(Verdict::of),
        admitted_per_s: (span_s > 0.0).then(|| w.admitted as f64 / span_s),
        queued_ms: queued.summary(),
        queued_share: (!w.queued_ms.is_empty()).then(|| waited as f64 / w.queued_ms.len() as f64),
        load_ttft_ms: Samples::from_finite(w.load_ttft_ms.iter().copied()).summary(),
        typical,
        requests,
    }
}

/// "At 2.0× the trace (10.6 req/s) half of the probe users see text within 420 ms …".
fn sentence(w: &ProbeWindow) -> String {
    let load = match (w.load.speed, w.load.offered_per_s) {
        (Some(s), Some(r)) => format!("At {s:.1}× the trace ({r:.1} req/s)"),
        (Some(s), None) => format!("At {s:.1}× the trace"),
        (None, Some(r)) => format!("In {} ({r:.1} req/s offered)", w.load.label),
        (None, None) => format!("In {}", w.load.label),
    };
    let load_users = w.load_ttft_ms.map_or(String::new(), |t| {
        format!("; the load's own requests began within {:.0} ms at P50, {:.0} ms at P90", t.median, t.p90)
    });
    let failed = match (w.load.failed, w.load.load_failures.as_slice()) {
        (0, _) => String::new(),
        (n, []) => format!(" {n} of the load's requests failed (serve's request log says why)."),
        (n, why) => format!(" {n} of the load's requests failed: {}.", why.join("; ")),
    };
    // Only the probes drawn on the page have a first paint (in an older
    // run, not every one); it speaks for the window only when every
    // answered probe was drawn.
    let painted = w.first_paint_ms.filter(|p| p.count >= w.answered);
    let seen = match (painted, w.ttft_ms) {
        (Some(p), _) => format!("half of the probe users see text within {:.0} ms", p.median),
        (None, Some(t)) => format!("half of the probe answers begin within {:.0} ms", t.median),
        (None, None) => return format!("{load} no probe answered{load_users}.{failed}"),
    };
    let tail = w
        .ttft_ms
        .map_or(String::new(), |t| format!(" and one in ten waits over {:.0} ms for the first token", t.p90));
    let queue = match (w.queued_share, w.queued_ms) {
        (Some(share), Some(q)) if share > 0.0 => format!(
            "; {:.0}% of the server's requests queued for a slot (P90 {:.0} ms)",
            share * 100.0,
            q.p90
        ),
        (Some(_), _) => "; no request queued for a slot".to_string(),
        _ => String::new(),
    };
    let score = match (w.score, w.verdict) {
        (Some(s), Some(v)) => format!(" Score {s:.0} ({}).", v.word()),
        _ => format!(" Too few answered probes to score (fewer than {MIN_PROBES})."),
    };
    // Admissions count the requests that took a decode slot in the window,
    // wherever they were sent: some were queued before it.
    let carried = match (w.admitted_per_s, w.load.offered_per_s) {
        (Some(a), Some(o)) if a > o * 1.05 + 0.05 => format!(
            " The server admitted {a:.1} requests a second, more than the {o:.1} offered: requests that queued before the window took their slots in it."
        ),
        _ => String::new(),
    };
    format!("{load} {seen}{tail}{queue}{load_users}.{score}{carried}{failed}")
}

fn verdict_words(scenario: &str, breaking: Option<Breaking>, top: Option<f64>) -> String {
    match (breaking, top) {
        (Some(Breaking { speed, score, last_passing: Some(ok) }), _) => format!(
            "The {scenario} score falls below its pass line ({PASS_SCORE:.0}) at {speed:.1}× the trace ({score:.0}); it held at {ok:.1}×."
        ),
        (Some(Breaking { speed, score, last_passing: None }), _) => format!(
            "The {scenario} score is below its pass line ({PASS_SCORE:.0}) already at {speed:.1}× the trace ({score:.0})."
        ),
        (None, Some(top)) => format!(
            "The {scenario} score stayed at or above its pass line ({PASS_SCORE:.0}) up to {top:.1}× the trace: no breaking point in this sweep."
        ),
        (None, None) => {
            "No window had a speed and enough answered probes: no breaking point to report.".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::score::preset;
    use crate::replay::profile::Profile;
    use crate::trace::RequestTrace;

    /// Probes of TTFT `ttft` ms sent at `at` (ms).
    fn probes(at: &[f64], ttft: f64) -> Vec<RequestTrace> {
        let one = Profile::simple("p", ttft, 10.0, 20).to_trace(1, 1).requests.remove(0);
        at.iter()
            .map(|&t| {
                let mut r = one.clone();
                let shift = t - r.sent_ms;
                r.sent_ms += shift;
                r.chunks.iter_mut().for_each(|c| c.arrived_ms += shift);
                r
            })
            .collect()
    }

    fn load(speed: f64, from: f64, to: f64, queued: &[f64]) -> LoadWindow {
        LoadWindow {
            label: format!("{speed}×"),
            speed: Some(speed),
            from_ms: from,
            to_ms: to,
            offered_per_s: Some(5.0 * speed),
            admitted: queued.len() as u64,
            queued_ms: queued.to_vec(),
            ..LoadWindow::default()
        }
    }

    fn run(ttfts: &[f64]) -> Trace {
        let mut t = Trace::default();
        for (i, &ttft) in ttfts.iter().enumerate() {
            let from = i as f64 * 10_000.0;
            t.requests.extend(probes(&[from + 100.0, from + 3000.0, from + 6000.0], ttft));
            t.meta.load.push(load(1.0 + i as f64, from, from + 10_000.0, &[0.0, 0.0, ttft]));
        }
        t
    }

    #[test]
    fn each_window_holds_its_probes_and_the_sweep_breaks_where_the_score_falls() {
        let chat = preset("chat").unwrap();
        let r = ProbeReport::of(&run(&[120.0, 300.0, 2500.0]), &chat, &MetricsConfig::default()).unwrap();
        assert_eq!(r.windows.len(), 3);
        assert_eq!(r.windows[1].requests, vec![3, 4, 5]);
        let t = r.windows[2].ttft_ms.unwrap();
        assert!((t.median - 2500.0).abs() < 1.0, "{t:?}");
        assert!(r.windows[0].score.unwrap() >= PASS_SCORE, "{:?}", r.windows[0].score);
        assert!(r.windows[2].score.unwrap() < PASS_SCORE);
        let b = r.breaking.unwrap();
        assert_eq!(b.speed, 3.0);
        assert_eq!(r.top_speed, Some(3.0));
        assert!(r.words.last().unwrap().contains("at 3.0× the trace"), "{:?}", r.words);
        assert!(
            r.words[0]
                .starts_with("At 1.0× the trace (5.0 req/s) half of the probe answers begin within 120 ms"),
            "{}",
            r.words[0]
        );
        assert_eq!(r.windows[1].admitted_per_s, Some(0.3));
        let table = r.table();
        assert!(table.starts_with("Felt while loaded (judged as Interactive chat):"), "{table}");
        assert_eq!(
            table.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).count(),
            3,
            "{table}"
        );
        assert!(table.trim_end().ends_with(r.words.last().unwrap()), "{table}");
        assert!((r.windows[1].queued_share.unwrap() - 1.0 / 3.0).abs() < 1e-9);
        assert!(r.windows[1].typical.is_some_and(|i| (3..6).contains(&i)));
    }

    /// Issue 44: "admitted" 6.3 beside "offered" 5.8, unexplained.
    #[test]
    fn more_admitted_than_offered_is_said_as_what_it_is() {
        let chat = preset("chat").unwrap();
        let mut t = run(&[120.0, 300.0]);
        // Window 2 (10 s, 10 requests/s offered) admitted 120 requests.
        t.meta.load[1].queued_ms = vec![5.0; 120];
        t.meta.load[1].admitted = 120;
        let r = ProbeReport::of(&t, &chat, &MetricsConfig::default()).unwrap();
        assert!(
            r.words[1].contains(
                "The server admitted 12.0 requests a second, more than the 10.0 offered: requests that queued before the window took their slots in it."
            ),
            "{}",
            r.words[1]
        );
        assert!(!r.words[0].contains("more than"), "{}", r.words[0]);
    }

    #[test]
    fn a_sweep_that_always_passes_names_its_top_speed_and_one_that_never_does_says_so() {
        let chat = preset("chat").unwrap();
        let cfg = MetricsConfig::default();
        let ok = ProbeReport::of(&run(&[100.0, 110.0]), &chat, &cfg).unwrap();
        assert_eq!(ok.breaking, None);
        assert!(ok.words.last().unwrap().contains("up to 2.0×"), "{:?}", ok.words);
        let bad = ProbeReport::of(&run(&[3000.0, 4000.0]), &chat, &cfg).unwrap();
        assert_eq!(bad.breaking.map(|b| (b.speed, b.last_passing)), Some((1.0, None)));
        assert!(bad.words.last().unwrap().contains("already at 1.0×"));
    }

    #[test]
    fn a_window_with_too_few_answers_is_not_judged_and_a_plain_run_is_no_probe_run() {
        let chat = preset("chat").unwrap();
        let cfg = MetricsConfig::default();
        let mut t = run(&[100.0, 3000.0]);
        t.requests.truncate(4); // window 2 keeps one probe
        let r = ProbeReport::of(&t, &chat, &cfg).unwrap();
        assert_eq!(r.windows[1].score, None);
        assert_eq!(r.breaking, None, "an unjudged window cannot break the sweep");
        assert!(r.words[1].contains("Too few answered probes"), "{}", r.words[1]);
        assert_eq!(ProbeReport::of(&Trace::default(), &chat, &cfg), None);
    }

    #[test]
    fn first_paint_speaks_for_a_window_only_when_every_answered_probe_was_drawn() {
        let chat = preset("chat").unwrap();
        let cfg = MetricsConfig::default();
        let mut t = run(&[200.0]);
        let paint =
            |r: &mut RequestTrace| r.chunks.iter_mut().for_each(|c| c.painted_ms = Some(c.arrived_ms + 8.0));
        paint(&mut t.requests[0]);
        let r = ProbeReport::of(&t, &chat, &cfg).unwrap();
        assert!(r.windows[0].first_paint_ms.is_some());
        assert!(r.words[0].contains("probe answers begin within 200 ms"), "{}", r.words[0]);
        t.requests.iter_mut().for_each(paint);
        let r = ProbeReport::of(&t, &chat, &cfg).unwrap();
        assert!(r.words[0].contains("probe users see text within 208 ms"), "{}", r.words[0]);
    }

    #[test]
    fn speeds_are_judged_in_increasing_order_whatever_order_they_ran() {
        let chat = preset("chat").unwrap();
        let mut t = run(&[2500.0, 100.0]);
        t.meta.load[0].speed = Some(4.0);
        t.meta.load[1].failed = 3;
        let r = ProbeReport::of(&t, &chat, &MetricsConfig::default()).unwrap();
        assert!(
            r.words[1].ends_with("3 of the load's requests failed (serve's request log says why)."),
            "{}",
            r.words[1]
        );
        let b = r.breaking.unwrap();
        assert_eq!((b.speed, b.last_passing), (4.0, Some(2.0)));
    }
}
