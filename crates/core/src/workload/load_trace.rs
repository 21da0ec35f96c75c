//! # A load's own trace beside a probe run
//!
//! A probe run against `latency-lab serve` reads what the server admitted
//! and queued in each window from the server itself. Against any other
//! engine (vLLM, SGLang, llama.cpp) the windows know only their times; the
//! load's side is in the trace of whatever sent it (`latency-lab run -o
//! run.trace.json`, or any trace the lab reads). [`add_load_trace`] lines
//! the two up and fills each window with what the load trace says happened
//! in it:
//!
//! - **offered req/s**: the load's requests scheduled in the window (their
//!   `scheduled_ms`, else `sent_ms`) over its length, when the window has
//!   no offered rate of its own;
//! - **failed**: the load's requests of the window that failed, when the
//!   window counted none itself (a request its sender stopped, Ctrl-C or
//!   the end of a probe run, did not fail), and why
//!   ([`LoadWindow::load_failures`](crate::trace::LoadWindow::load_failures):
//!   each reason once, with its count, at most [`MAX_REASONS`]);
//! - **the load's TTFT** ([`LoadWindow::load_ttft_ms`](crate::trace::LoadWindow::load_ttft_ms)): what the load's
//!   own users saw, the same definition as every TTFT in the lab
//!   ([`crate::measure::metrics::RequestMetrics`]). On an engine that does
//!   not report its queue, this is what queueing did, seen from outside.
//!
//! [`OwnRequests`] measures a set of a load's requests this way; `latency-lab
//! serve`'s built-in load uses it too, per load, so its windows get the
//! same figures without a trace crossing to the page.
//!
//! **Lining up.** Each trace says what Unix time its clock's 0 was
//! (`meta.clock_epoch_ms`: the browser's `performance.timeOrigin`, the
//! runner's start). A load request at `t` on its clock is at
//! `t + load_epoch − probe_epoch` on the probe run's. Both are wall clocks:
//! on one machine they agree to about a millisecond; across machines to
//! their NTP offset (a few ms where NTP runs), small against windows of
//! seconds. A page open for hours drifts a little too (`timeOrigin` is
//! fixed when the page opens, `performance.now()` is monotonic).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::measure::metrics::{MetricsConfig, RequestMetrics};
use crate::trace::{FailureKind, RequestTrace, Trace};

/// Distinct failure reasons kept per window (the most frequent).
pub const MAX_REASONS: usize = 5;
/// Longest reason kept (characters); a longer one ends in `…`.
pub const MAX_REASON_CHARS: usize = 160;

/// Why a load trace could not be put beside a probe run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadTraceError {
    /// The probe run has no windows.
    #[error("this trace is not a probe run (it has no load windows)")]
    NoWindows,
    /// A trace does not say when its clock started.
    #[error(
        "the {0} does not say when its clock started (meta.clock_epoch_ms): record it again with this version of the lab"
    )]
    NoEpoch(&'static str),
    /// No load request falls in any window.
    #[error(
        "none of the load's {requests} requests falls in a probe window: the load ran {load_from_s:.0}–{load_to_s:.0} s and the windows {windows_from_s:.0}–{windows_to_s:.0} s on the probe run's clock (were they recorded at the same time?)"
    )]
    NoOverlap {
        /// Requests in the load trace.
        requests: usize,
        /// The load's first send on the probe run's clock (s).
        load_from_s: f64,
        /// Its last send (s).
        load_to_s: f64,
        /// The first window's start (s).
        windows_from_s: f64,
        /// The last window's end (s).
        windows_to_s: f64,
    },
}

/// Fills `probe`'s windows from the load's own trace `load` (module doc);
/// how many of the load's requests fell in a window.
pub fn add_load_trace(probe: &mut Trace, load: &Trace) -> Result<usize, LoadTraceError> {
    if probe.meta.load.is_empty() {
        return Err(LoadTraceError::NoWindows);
    }
    let probe_epoch = probe.meta.clock_epoch_ms.ok_or(LoadTraceError::NoEpoch("probe run"))?;
    let load_epoch = load.meta.clock_epoch_ms.ok_or(LoadTraceError::NoEpoch("load trace"))?;
    let shift = load_epoch - probe_epoch;
    let cfg = MetricsConfig::default();
    let at: Vec<f64> = load.requests.iter().map(|r| r.scheduled_ms.unwrap_or(r.sent_ms) + shift).collect();
    let mut placed = 0;
    // Filled on a copy: a trace that does not line up changes nothing.
    let mut windows = probe.meta.load.clone();
    for w in &mut windows {
        let inside: Vec<usize> = (0..at.len()).filter(|&i| at[i] >= w.from_ms && at[i] < w.to_ms).collect();
        placed += inside.len();
        let span_s = (w.to_ms - w.from_ms) / 1000.0;
        if w.offered_per_s.is_none() && span_s > 0.0 {
            w.offered_per_s = Some(inside.len() as f64 / span_s);
        }
        let own = OwnRequests::of(inside.iter().map(|&i| &load.requests[i]), &cfg);
        if w.failed == 0 {
            w.failed = own.failed;
        }
        w.load_failures = own.failures;
        w.load_ttft_ms = own.ttft_ms;
    }
    if placed == 0 {
        let (lo, hi) = at.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &t| (a.min(t), b.max(t)));
        return Err(LoadTraceError::NoOverlap {
            requests: at.len(),
            load_from_s: lo / 1000.0,
            load_to_s: hi / 1000.0,
            windows_from_s: windows.iter().map(|w| w.from_ms).fold(f64::INFINITY, f64::min) / 1000.0,
            windows_to_s: windows.iter().map(|w| w.to_ms).fold(f64::NEG_INFINITY, f64::max) / 1000.0,
        });
    }
    probe.meta.load = windows;
    Ok(placed)
}

/// What a load's own requests did, by the lab's definitions: the TTFT of
/// those that completed ([`RequestMetrics`]), how many failed (a request
/// its sender stopped did not), and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnRequests {
    /// TTFT of each completed request (ms), in their order.
    pub ttft_ms: Vec<f64>,
    /// Requests that failed.
    pub failed: u64,
    /// Why: each reason once, the most frequent first, `N× reason`, at
    /// most [`MAX_REASONS`].
    pub failures: Vec<String>,
}

impl OwnRequests {
    /// Of `requests`.
    pub fn of<'a>(requests: impl IntoIterator<Item = &'a RequestTrace>, cfg: &MetricsConfig) -> Self {
        let mut ttft_ms = Vec::new();
        let mut failed = Vec::new();
        for (i, r) in requests.into_iter().enumerate() {
            let m = RequestMetrics::of(i, r, cfg);
            if m.completed
                && let Some(t) = m.ttft_ms
            {
                ttft_ms.push(t);
            }
            if r.failure.as_ref().is_some_and(|f| f.kind != FailureKind::Aborted) {
                failed.push(r);
            }
        }
        Self { ttft_ms, failed: failed.len() as u64, failures: reasons(&failed) }
    }
}

/// Each distinct reason of `failed` once, the most frequent first (then
/// the first seen), as `N× reason`, at most [`MAX_REASONS`].
fn reasons(failed: &[&RequestTrace]) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    for f in failed.iter().filter_map(|r| r.failure.as_ref()) {
        let line = f.message.lines().next().unwrap_or_default();
        let reason = match line.char_indices().nth(MAX_REASON_CHARS) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line.to_string(),
        };
        match at.get(&reason) {
            Some(&k) => counts[k].1 += 1,
            None => {
                at.insert(reason.clone(), counts.len());
                counts.push((reason, 1));
            }
        }
    }
    // Stable: equal counts keep the order first seen.
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.into_iter().take(MAX_REASONS).map(|(r, n)| format!("{n}× {r}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::profile::Profile;
    use crate::trace::{Failure, FailureKind, LoadWindow, RequestTrace};
    use crate::workload::probe::ProbeReport;

    /// A request scheduled at `at` (ms) with TTFT `ttft`.
    fn request(at: f64, ttft: f64) -> RequestTrace {
        let mut r = Profile::simple("p", ttft, 10.0, 5).to_trace(1, 1).requests.remove(0);
        let shift = at - r.sent_ms;
        r.sent_ms += shift;
        r.scheduled_ms = Some(at);
        r.chunks.iter_mut().for_each(|c| c.arrived_ms += shift);
        r
    }

    fn window(label: &str, from: f64, to: f64) -> LoadWindow {
        LoadWindow { label: label.into(), from_ms: from, to_ms: to, ..LoadWindow::default() }
    }

    fn probe_run(epoch: f64) -> Trace {
        let mut t = Trace::default();
        t.meta.clock_epoch_ms = Some(epoch);
        t.meta.load = vec![window("0–10 s", 5_000.0, 15_000.0), window("10–20 s", 15_000.0, 25_000.0)];
        t
    }

    #[test]
    fn load_requests_land_in_the_windows_of_the_same_moment() {
        // The runner started 3 s after the page opened: its 2 s is the
        // probe run's 5 s.
        let mut probe = probe_run(1_000_000.0);
        let mut load = Trace::default();
        load.meta.clock_epoch_ms = Some(1_003_000.0);
        // 20 requests in the first window (ttft 100), 40 in the second
        // (ttft 400, one failing), 5 after both.
        load.requests.extend((0..20).map(|i| request(2_000.0 + f64::from(i) * 500.0, 100.0)));
        load.requests.extend((0..40).map(|i| request(12_000.0 + f64::from(i) * 250.0, 400.0)));
        load.requests.extend((0..5).map(|i| request(22_500.0 + f64::from(i) * 100.0, 50.0)));
        load.requests[30].failure = Some(Failure {
            kind: FailureKind::Http,
            message: "HTTP 503".into(),
            status: Some(503),
            body: None,
        });
        assert_eq!(add_load_trace(&mut probe, &load), Ok(60));
        let [a, b] = [&probe.meta.load[0], &probe.meta.load[1]];
        assert_eq!(a.offered_per_s, Some(2.0));
        assert_eq!(b.offered_per_s, Some(4.0));
        assert_eq!((a.failed, b.failed), (0, 1));
        assert_eq!(a.load_ttft_ms.len(), 20);
        assert_eq!(b.load_ttft_ms.len(), 39, "the failed request has no TTFT");
        assert!(a.load_ttft_ms.iter().all(|t| (t - 100.0).abs() < 1e-9));
        assert!(b.load_ttft_ms.iter().all(|t| (t - 400.0).abs() < 1e-9));
        // The probe report says it, in the table and in words.
        let chat = crate::measure::score::preset("chat").unwrap();
        let report = ProbeReport::of(&probe, &chat, &MetricsConfig::default()).unwrap();
        assert_eq!(report.windows[1].load_ttft_ms.map(|t| t.p90), Some(400.0));
        assert!(
            report.words[1].contains("the load's own requests began within 400 ms at P50, 400 ms at P90")
        );
        assert!(report.words[1].contains("4.0 req/s offered"), "{}", report.words[1]);
        assert!(report.table().contains("load TTFT P90"));
    }

    #[test]
    fn failures_say_why_each_reason_once_and_a_stopped_request_did_not_fail() {
        let mut probe = probe_run(0.0);
        let mut load = Trace::default();
        load.meta.clock_epoch_ms = Some(0.0);
        load.requests.extend((0..10).map(|i| request(6_000.0 + f64::from(i) * 100.0, 50.0)));
        let fail =
            |kind, message: &str| Some(Failure { kind, message: message.into(), status: None, body: None });
        load.requests[0].failure = fail(FailureKind::Network, "could not reach http://x: connection refused");
        for i in 1..4 {
            load.requests[i].failure = fail(FailureKind::Http, "HTTP 429: slow down\n{\"error\": {}}");
        }
        load.requests[4].failure = fail(FailureKind::Aborted, "stopped");
        load.requests[5].failure = fail(FailureKind::Http, &format!("HTTP 500: {}", "é".repeat(400)));
        assert_eq!(add_load_trace(&mut probe, &load), Ok(10));
        let w = &probe.meta.load[0];
        assert_eq!(w.failed, 5, "the stopped one is not a failure");
        assert_eq!(w.load_failures[0], "3× HTTP 429: slow down", "the most frequent first, its first line");
        assert_eq!(w.load_failures[1], "1× could not reach http://x: connection refused");
        let long = &w.load_failures[2];
        assert!(long.ends_with('…') && long.chars().count() == MAX_REASON_CHARS + 4, "{long}");
        assert_eq!(w.load_failures.len(), 3);
        let chat = crate::measure::score::preset("chat").unwrap();
        let report = ProbeReport::of(&probe, &chat, &MetricsConfig::default()).unwrap();
        assert!(
            report.words[0].contains("5 of the load's requests failed: 3× HTTP 429: slow down; 1× could not")
        );
        // At most MAX_REASONS, the rarest dropped.
        let many: Vec<RequestTrace> = (0..8)
            .map(|i| {
                let mut r = request(6_000.0, 50.0);
                r.failure = fail(FailureKind::Http, &format!("HTTP 5{i:02}"));
                r
            })
            .collect();
        assert_eq!(reasons(&many.iter().collect::<Vec<_>>()).len(), MAX_REASONS);
    }

    #[test]
    fn what_the_server_said_is_kept() {
        let mut probe = probe_run(0.0);
        probe.meta.load[0].offered_per_s = Some(7.5);
        probe.meta.load[0].failed = 3;
        let mut load = Trace::default();
        load.meta.clock_epoch_ms = Some(0.0);
        load.requests.push(request(6_000.0, 80.0));
        assert_eq!(add_load_trace(&mut probe, &load), Ok(1));
        assert_eq!(probe.meta.load[0].offered_per_s, Some(7.5));
        assert_eq!(probe.meta.load[0].failed, 3);
        assert_eq!(probe.meta.load[0].load_ttft_ms.len(), 1);
        assert_eq!(probe.meta.load[1].offered_per_s, Some(0.0), "nothing was sent then");
    }

    #[test]
    fn traces_that_cannot_be_lined_up_say_why() {
        let mut load = Trace::default();
        load.requests.push(request(0.0, 80.0));
        let mut not_probe = Trace::default();
        not_probe.meta.clock_epoch_ms = Some(0.0);
        assert_eq!(add_load_trace(&mut not_probe, &load), Err(LoadTraceError::NoWindows));
        let mut probe = probe_run(0.0);
        assert_eq!(add_load_trace(&mut probe, &load), Err(LoadTraceError::NoEpoch("load trace")));
        probe.meta.clock_epoch_ms = None;
        load.meta.clock_epoch_ms = Some(0.0);
        assert_eq!(add_load_trace(&mut probe, &load), Err(LoadTraceError::NoEpoch("probe run")));
        // An hour apart.
        let mut probe = probe_run(0.0);
        load.meta.clock_epoch_ms = Some(3_600_000.0);
        let e = add_load_trace(&mut probe, &load).unwrap_err();
        assert!(matches!(e, LoadTraceError::NoOverlap { requests: 1, .. }), "{e:?}");
        let said = e.to_string();
        assert!(said.contains("3600–3600 s") && said.contains("5–25 s"), "{said}");
        assert!(probe.meta.load.iter().all(|w| w.load_ttft_ms.is_empty()));
    }
}
