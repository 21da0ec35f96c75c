//! Chart data: what each chart of the app draws, computed here so it is
//! tested natively and the components only map it through [`crate::chart::scale`]
//! scales.
//!
//! - **Token timeline** ([`token_timeline`]): cumulative output tokens
//!   against time since the request was sent, one step per chunk arrival;
//!   the same for paint times when known; stalls (gaps over the threshold)
//!   as time bands; for reasoning models, where the answer starts (the
//!   reasoning phase and the answer phase are drawn as two segments).
//! - **Histogram** ([`histogram`]): counts in equal-width bins whose edges
//!   are round numbers ([`crate::chart::nice_step`]); every value falls in
//!   exactly one bin (the last bin is closed).
//! - **Percentile bars** ([`percentile_bars`]): P50/P90/P95/P99 of TTFT,
//!   TPOT and E2EL, with the SLO threshold of that metric when one is set.
//! - **Score segments** ([`score_segments`]): a scenario score as the points
//!   each target contributed and the points it lost; they add up to 100.

use serde::{Deserialize, Serialize};

use crate::chart::nice_step;
use crate::measure::metrics::{MetricsConfig, RequestMetrics, RunMetrics};
use crate::measure::score::ScenarioScore;
use crate::measure::slo::{SloMetric, SloSet};
use crate::trace::{ChunkKind, RequestTrace, Trace};

/// A request's token timeline (times in ms since `sent_ms`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Timeline {
    /// `(arrived, cumulative tokens)` per token chunk.
    pub arrival: Vec<(f64, f64)>,
    /// `(painted, cumulative tokens)` per painted token chunk.
    pub paint: Vec<(f64, f64)>,
    /// Stalls as `(start, end)`.
    pub stalls: Vec<(f64, f64)>,
    /// When reasoning came first: the index in `arrival` of the first
    /// answer (or tool-call) chunk; the points before it are reasoning.
    pub answer_from: Option<usize>,
}

impl Timeline {
    /// Last time on the timeline (ms).
    pub fn end_ms(&self) -> f64 {
        self.arrival.iter().chain(&self.paint).map(|p| p.0).fold(0.0, f64::max)
    }

    /// Tokens at the end.
    pub fn tokens(&self) -> f64 {
        self.arrival.last().map_or(0.0, |p| p.1)
    }
}

/// The timeline of one request (see the module docs).
pub fn token_timeline(req: &RequestTrace, cfg: &MetricsConfig) -> Timeline {
    let mut t = Timeline::default();
    let mut total = 0.0;
    let mut painted = 0.0;
    for c in req.chunks.iter().filter(|c| c.tokens > 0) {
        total += f64::from(c.tokens);
        t.arrival.push((c.arrived_ms - req.sent_ms, total));
        if let Some(p) = c.painted_ms {
            painted += f64::from(c.tokens);
            t.paint.push((p - req.sent_ms, painted));
        }
    }
    let m = RequestMetrics::of(0, req, cfg);
    t.stalls = m.stalls.iter().map(|s| (s.start_ms, s.start_ms + s.duration_ms)).collect();
    let kinds: Vec<ChunkKind> = req.chunks.iter().filter(|c| c.tokens > 0).map(|c| c.kind).collect();
    if kinds.first() == Some(&ChunkKind::Reasoning) {
        t.answer_from = kinds.iter().position(|k| *k != ChunkKind::Reasoning);
    }
    t
}

/// Timelines of the first `max` requests of a trace, named "request n".
pub fn timelines(trace: &Trace, cfg: &MetricsConfig, max: usize) -> Vec<(String, Timeline)> {
    trace
        .requests
        .iter()
        .take(max)
        .enumerate()
        .map(|(i, r)| (format!("request {}", i + 1), token_timeline(r, cfg)))
        .collect()
}

/// Every inter-token gap (ms) of the completed requests of a trace.
pub fn itl_values(trace: &Trace, cfg: &MetricsConfig) -> Vec<f64> {
    trace
        .requests
        .iter()
        .enumerate()
        .map(|(i, r)| RequestMetrics::of(i, r, cfg))
        .filter(|m| m.completed)
        .flat_map(|m| m.itl.into_iter().map(|g| g.ms))
        .collect()
}

/// One histogram bin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    /// Lower edge (inclusive).
    pub lo: f64,
    /// Upper edge (exclusive, inclusive for the last bin).
    pub hi: f64,
    /// Values in it.
    pub count: usize,
}

/// Counts finite values in about `target_bins` round-edged bins (at least
/// one bin when there is a value; none without values).
pub fn histogram(values: &[f64], target_bins: usize) -> Vec<Bin> {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    let Some(min) = v.iter().copied().reduce(f64::min) else { return Vec::new() };
    let max = v.iter().copied().fold(min, f64::max);
    let step = if max > min { nice_step(max - min, target_bins.max(1)) } else { 1.0 };
    let lo = (min / step).floor() * step;
    let n = (((max - lo) / step).floor() as usize + 1).max(1);
    let mut bins: Vec<Bin> =
        (0..n).map(|i| Bin { lo: lo + i as f64 * step, hi: lo + (i + 1) as f64 * step, count: 0 }).collect();
    for x in v {
        let i = (((x - lo) / step).floor() as usize).min(n - 1);
        bins[i].count += 1;
    }
    // A top bin holding only values equal to its lower edge merges down.
    if n > 1 && bins[n - 1].count > 0 && bins[n - 1].lo == max && bins[n - 2].count > 0 {
        let top = bins.pop().map_or(0, |b| b.count);
        bins[n - 2].count += top;
    }
    bins
}

/// Empirical CDF `(value, share ≤ value)` of finite values, sorted.
pub fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(v.len());
    for (i, x) in v.into_iter().enumerate() {
        let share = (i + 1) as f64 / n;
        match out.last_mut() {
            Some(last) if last.0 == x => last.1 = share,
            _ => out.push((x, share)),
        }
    }
    out
}

/// Bars of one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricBars {
    /// Metric name (`TTFT`, `TPOT`, `E2EL`).
    pub metric: String,
    /// `(label, value ms)`: P50, P90, P95, P99.
    pub bars: Vec<(String, f64)>,
    /// The SLO threshold (ms), when one is set for this metric.
    pub slo_ms: Option<f64>,
}

/// Percentile bars of TTFT, TPOT and E2EL (metrics without data are left
/// out).
pub fn percentile_bars(m: &RunMetrics, slos: Option<&SloSet>) -> Vec<MetricBars> {
    let slo = |metric: SloMetric| {
        slos.and_then(|s| s.slos.iter().find(|x| x.metric == metric)).map(|x| x.threshold_ms)
    };
    [
        ("TTFT", m.ttft_ms, SloMetric::Ttft),
        ("TPOT", m.tpot_ms, SloMetric::Tpot),
        ("E2EL", m.e2el_ms, SloMetric::E2el),
    ]
    .into_iter()
    .filter_map(|(name, s, metric)| {
        let s = s?;
        Some(MetricBars {
            metric: name.into(),
            bars: vec![
                ("P50".into(), s.p50),
                ("P90".into(), s.p90),
                ("P95".into(), s.p95),
                ("P99".into(), s.p99),
            ],
            slo_ms: slo(metric),
        })
    })
    .collect()
}

/// One segment of a score bar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// What it is (`TTFT P95`).
    pub label: String,
    /// Points earned.
    pub points: f64,
    /// Points lost.
    pub lost: f64,
}

/// A scenario score as earned and lost points per measured target.
pub fn score_segments(s: &ScenarioScore) -> Vec<Segment> {
    s.breakdown
        .iter()
        .filter(|t| t.score.is_some())
        .map(|t| Segment {
            label: format!("{} {}", t.metric.label(), t.stat.label()),
            points: t.points,
            lost: t.lost,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::score;
    use crate::replay::profile::Profile;

    #[test]
    fn timelines_count_tokens_and_stalls() {
        let mut p = Profile::simple("p", 100.0, 10.0, 20);
        p.burst = 2;
        let t = p.to_trace(1, 0);
        let tl = token_timeline(&t.requests[0], &MetricsConfig::default());
        assert_eq!(tl.tokens(), 20.0);
        assert_eq!(tl.arrival.len(), 11, "first token alone, then pairs");
        assert!((tl.arrival[0].0 - 100.0).abs() < 1e-9);
        assert!(tl.arrival.windows(2).all(|w| w[1].0 >= w[0].0 && w[1].1 > w[0].1));
        assert!(tl.stalls.is_empty());
        assert_eq!(itl_values(&t, &MetricsConfig::default()).len(), 10);
        assert_eq!(timelines(&p.to_trace(5, 0), &MetricsConfig::default(), 3).len(), 3);
        let mut slow = t.requests[0].clone();
        for c in slow.chunks.iter_mut().skip(5) {
            c.arrived_ms += 400.0;
        }
        let tl = token_timeline(&slow, &MetricsConfig::default());
        assert_eq!(tl.stalls.len(), 1);
        let (a, b) = tl.stalls[0];
        assert!(b - a > 400.0 && b - a < 450.0, "{a}..{b}");
    }

    #[test]
    fn histograms_hold_every_value_once() {
        let v = [1.0, 2.0, 2.5, 9.9, 10.0, f64::NAN];
        let h = histogram(&v, 5);
        assert_eq!(h.iter().map(|b| b.count).sum::<usize>(), 5);
        assert!(h.windows(2).all(|w| (w[0].hi - w[1].lo).abs() < 1e-12));
        assert!(h[0].lo <= 1.0 && h.last().unwrap().hi >= 10.0);
        assert_eq!(histogram(&[5.0, 5.0], 10), [Bin { lo: 5.0, hi: 6.0, count: 2 }]);
        assert!(histogram(&[], 10).is_empty());
        let c = cdf(&[3.0, 1.0, 3.0, 2.0]);
        assert_eq!(c, [(1.0, 0.25), (2.0, 0.5), (3.0, 1.0)]);
    }

    #[test]
    fn a_reasoning_phase_is_its_own_segment() {
        let p: crate::replay::profile::Profile =
            "ttft=100,tpot=10,jitter=constant,reasoning=4,tokens=3".parse().unwrap();
        let t = token_timeline(&p.to_trace(1, 10).requests[0], &MetricsConfig::default());
        assert_eq!(t.answer_from, Some(4));
        assert_eq!(t.arrival[4], (140.0, 5.0));
        let plain: crate::replay::profile::Profile = "ttft=100,tpot=10,tokens=3".parse().unwrap();
        assert_eq!(
            token_timeline(&plain.to_trace(1, 10).requests[0], &MetricsConfig::default()).answer_from,
            None
        );
    }

    #[test]
    fn bars_and_segments() {
        let t = Profile::simple("p", 150.0, 10.0, 20).to_trace(4, 10);
        let m = RunMetrics::of(&t, &MetricsConfig::default());
        let slos: SloSet = "ttft:200,e2el:3000".parse().unwrap();
        let b = percentile_bars(&m, Some(&slos));
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].bars.len(), 4);
        assert_eq!(b[0].slo_ms, Some(200.0));
        assert_eq!(b[1].slo_ms, None);
        let s = score::presets()[0].score(&m);
        let seg = score_segments(&s);
        assert!(!seg.is_empty());
        let total: f64 = seg.iter().map(|s| s.points + s.lost).sum();
        assert!((total - 100.0).abs() < 1e-6, "{total}");
        assert!((seg.iter().map(|s| s.points).sum::<f64>() - s.score.unwrap()).abs() < 1e-6);
    }
}
