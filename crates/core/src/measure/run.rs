//! A finished run, measured once: everything the app shows of it, computed
//! when the run ends (or is opened), so no view computes a metric again.
//!
//! - [`MeasuredRun::analysis`]: metrics (with every request's own figures),
//!   goodput under the standard SLOs and the preset scenario scores
//!   ([`super::analysis`], default options).
//! - [`MeasuredRun::levels`]: one load-curve point per concurrency level
//!   ([`super::sweep::Level`]) and the saturation point, if any. A run of a
//!   single level reuses the run's own metrics.
//! - [`MeasuredRun::comparisons`]: client vs server timing of each request
//!   that carries the server's ground truth ([`super::groundtruth`]).
//! - [`MeasuredRun::network`]: what the browser's network stack saw: the
//!   protocols, how long requests queued in the browser before being sent,
//!   and whether HTTP/1.1's connection limit held requests back (more than
//!   [`HTTP1_CONNECTIONS_PER_HOST`] at once over HTTP/1.1: the rest waited
//!   for a connection, and that wait is part of their TTFT).

use crate::measure::analysis::{Analysis, AnalysisOptions};
use crate::measure::groundtruth::{TimingComparison, compare};
use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::measure::stats::{Samples, Summary};
use crate::measure::sweep::{Level, Saturation, saturation};
use crate::trace::Trace;

pub use crate::trace::HTTP1_CONNECTIONS_PER_HOST;

/// What the browser's network stack saw of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NetworkFacts {
    /// Protocols used (`http/1.1`, `h2`…), sorted, once each.
    pub protocols: Vec<String>,
    /// Time queued in the browser before sending (ms).
    pub queued_ms: Option<Summary>,
    /// More requests at once than HTTP/1.1 connections to one host.
    pub http1_limited: bool,
    /// Most requests in flight at once (between sent and end).
    pub peak_in_flight: u32,
}

impl NetworkFacts {
    fn of(trace: &Trace) -> Self {
        let mut protocols: Vec<String> =
            trace.requests.iter().filter_map(|r| r.network.as_ref()?.protocol.clone()).collect();
        protocols.sort();
        protocols.dedup();
        let queued =
            Samples::from_finite(trace.requests.iter().filter_map(|r| r.network.as_ref()?.queued_ms()));
        let peak_in_flight = peak_in_flight(trace).max(trace.meta.concurrency.unwrap_or(1));
        let http1_limited =
            peak_in_flight > HTTP1_CONNECTIONS_PER_HOST && protocols.iter().any(|p| p == "http/1.1");
        Self { protocols, queued_ms: queued.summary(), http1_limited, peak_in_flight }
    }
}

/// Most requests between their `sent_ms` and their end at one moment.
pub fn peak_in_flight(trace: &Trace) -> u32 {
    let mut events: Vec<(f64, i32)> = trace
        .requests
        .iter()
        .filter_map(|r| {
            let end = r.end_ms.or_else(|| r.chunks.last().map(|c| c.arrived_ms))?;
            Some([(r.sent_ms, 1), (end, -1)])
        })
        .flatten()
        .collect();
    // Ends before starts at the same instant: back to back is not overlap.
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut peak) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        peak = peak.max(now);
    }
    u32::try_from(peak).unwrap_or(0)
}

/// A run and its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRun {
    /// All requests.
    pub trace: Trace,
    /// Metrics, goodput and scores.
    pub analysis: Analysis,
    /// One point per concurrency level, in the order run.
    pub levels: Vec<Level>,
    /// Where adding concurrency stopped paying, if it did.
    pub saturation: Option<Saturation>,
    /// Client vs server timing, per request that has ground truth (index,
    /// comparison).
    pub comparisons: Vec<(usize, TimingComparison)>,
    /// The metric settings it was measured with (charts use the same).
    pub config: MetricsConfig,
    /// The browser's network facts.
    pub network: NetworkFacts,
}

impl MeasuredRun {
    /// Measures a run; `levels` are its requests per concurrency level
    /// (empty, or one level, for a run at one concurrency).
    pub fn of(trace: Trace, levels: &[(u32, Trace)]) -> Self {
        let opts = AnalysisOptions::standard(Vec::new());
        let analysis = Analysis::of(&trace, &opts);
        let points: Vec<Level> = match levels {
            [] | [_] => {
                let c = levels.first().map_or(trace.meta.concurrency.unwrap_or(1), |(c, _)| *c);
                vec![Level::of(c, &analysis.metrics)]
            }
            _ => levels.iter().map(|(c, t)| Level::of(*c, &RunMetrics::of(t, &opts.metrics))).collect(),
        };
        let comparisons =
            trace.requests.iter().enumerate().filter_map(|(i, r)| compare(r).map(|c| (i, c))).collect();
        Self {
            saturation: saturation(&points),
            levels: points,
            comparisons,
            config: opts.metrics,
            network: NetworkFacts::of(&trace),
            analysis,
            trace,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::profile::Profile;

    #[test]
    fn single_level_runs_reuse_the_run_metrics() {
        let t = Profile::simple("p", 150.0, 10.0, 20).to_trace(4, 10);
        let m = MeasuredRun::of(t.clone(), &[(1, t.clone())]);
        assert_eq!(m.levels.len(), 1);
        assert_eq!(m.levels[0], Level::of(1, &RunMetrics::of(&t, &Default::default())));
        assert_eq!(m.analysis.metrics.requests, 4);
        assert_eq!(m.analysis.metrics.per_request.len(), 4);
        assert!(m.analysis.goodput.is_some(), "standard SLOs");
        assert!(m.comparisons.is_empty(), "no ground truth in a synthetic trace");
        assert!(m.saturation.is_none());
        assert_eq!(
            m.network,
            NetworkFacts { peak_in_flight: 1, ..NetworkFacts::default() },
            "no browser, no network facts; one request at a time"
        );
    }

    #[test]
    fn http1_limits_show_above_six_at_once() {
        use crate::trace::NetworkTiming;
        let mut t = Profile::simple("p", 150.0, 10.0, 5).to_trace(8, 10);
        for (i, r) in t.requests.iter_mut().enumerate() {
            r.network = Some(NetworkTiming {
                protocol: Some("http/1.1".into()),
                start_ms: r.sent_ms,
                request_start_ms: Some(r.sent_ms + i as f64),
                ..NetworkTiming::default()
            });
        }
        t.meta.concurrency = Some(8);
        let m = MeasuredRun::of(t.clone(), &[]);
        assert_eq!(m.network.protocols, ["http/1.1"]);
        assert!(m.network.http1_limited);
        assert!(m.network.queued_ms.is_some());
        t.meta.concurrency = Some(6);
        assert!(!MeasuredRun::of(t, &[]).network.http1_limited);
        // Requests overlapping in time count however the run was shaped.
        let mut r = Profile::simple("r", 100.0, 10.0, 20).to_trace(10, 10);
        for (i, q) in r.requests.iter_mut().enumerate() {
            let shift = q.sent_ms - i as f64 * 50.0;
            q.sent_ms -= shift;
            q.end_ms = q.end_ms.map(|e| e - shift);
            q.chunks.iter_mut().for_each(|c| c.arrived_ms -= shift);
        }
        assert_eq!(peak_in_flight(&r), 6, "each lasts 290 ms, one starts every 50 ms");
    }

    #[test]
    fn sweeps_have_a_point_per_level() {
        let a = Profile::simple("a", 100.0, 10.0, 20).to_trace(2, 10);
        let b = Profile::simple("b", 400.0, 30.0, 20).to_trace(4, 10);
        let mut all = a.clone();
        all.requests.extend(b.requests.clone());
        let m = MeasuredRun::of(all, &[(1, a), (2, b)]);
        assert_eq!(m.levels.iter().map(|l| l.concurrency).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(m.levels.iter().map(|l| l.requests).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(m.analysis.metrics.requests, 6);
    }
}
