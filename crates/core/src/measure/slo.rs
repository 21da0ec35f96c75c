//! Service-level objectives per request, and **goodput**: the share of
//! requests that meet all of them.
//!
//! Definitions (thresholds in ms, a request meets an SLO when its value is
//! `≤` the threshold, as in vLLM's `--goodput ttft:200 tpot:15 e2el:3000`):
//! - `ttft`: the request's TTFT.
//! - `ttfp`: the request's first paint (text on screen: Live runs that draw,
//!   field data); a request without a recorded paint does not meet it
//!   (nothing is known to have reached the screen).
//! - `tpot`: the request's TPOT; a response of one token has no TPOT and, as
//!   in vLLM, counts as 0 (it meets any TPOT SLO).
//! - `itl`: *every* inter-token gap of the request (its longest gap).
//! - `e2el`: the request's end-to-end latency.
//!
//! **Goodput ratio** = good requests / all requests: a failed request never
//! meets its SLOs. **Goodput rate** = good requests / run duration (vLLM's
//! `request_goodput`, in requests/s).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::measure::metrics::{RequestMetrics, RunMetrics};

/// A per-request latency metric that can carry an SLO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SloMetric {
    /// Time to first token.
    Ttft,
    /// Time to first paint.
    Ttfp,
    /// Time per output token.
    Tpot,
    /// Every inter-token gap.
    Itl,
    /// End-to-end latency.
    E2el,
}

impl SloMetric {
    /// All metrics, in display order.
    pub const ALL: [SloMetric; 5] = [Self::Ttft, Self::Ttfp, Self::Tpot, Self::Itl, Self::E2el];

    /// Short lower-case name, as used on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ttft => "ttft",
            Self::Ttfp => "ttfp",
            Self::Tpot => "tpot",
            Self::Itl => "itl",
            Self::E2el => "e2el",
        }
    }

    /// The value of this metric for a completed request.
    pub fn value(self, r: &RequestMetrics) -> Option<f64> {
        match self {
            Self::Ttft => r.ttft_ms,
            Self::Ttfp => r.ttfp_ms,
            Self::Tpot => Some(r.tpot_ms.unwrap_or(0.0)),
            Self::Itl => Some(r.max_itl_ms().unwrap_or(0.0)),
            Self::E2el => r.e2el_ms,
        }
    }
}

impl fmt::Display for SloMetric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One objective: `metric ≤ threshold_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Slo {
    /// The metric.
    pub metric: SloMetric,
    /// The threshold in ms.
    pub threshold_ms: f64,
}

/// A set of SLOs (at most one per metric).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SloSet {
    /// The objectives, one per metric, in the order given.
    pub slos: Vec<Slo>,
}

/// Why an SLO specification could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SloError {
    /// An item is not `name:value`.
    #[error("\"{item}\" is not of the form metric:milliseconds (e.g. ttft:200)")]
    Syntax {
        /// The offending item.
        item: String,
    },
    /// Unknown metric name.
    #[error("unknown SLO metric \"{name}\"; use ttft, ttfp, tpot, itl or e2el")]
    UnknownMetric {
        /// The name given.
        name: String,
    },
    /// Threshold not a positive number.
    #[error("SLO threshold \"{value}\" for {metric} must be a positive number of milliseconds")]
    BadThreshold {
        /// The metric.
        metric: String,
        /// The value given.
        value: String,
    },
    /// The same metric twice.
    #[error("SLO for {metric} given twice")]
    Duplicate {
        /// The metric.
        metric: String,
    },
    /// Nothing given.
    #[error("no SLO given")]
    Empty,
}

impl FromStr for SloMetric {
    type Err = SloError;
    fn from_str(s: &str) -> Result<Self, SloError> {
        Self::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| SloError::UnknownMetric { name: s.trim().to_string() })
    }
}

impl FromStr for SloSet {
    type Err = SloError;

    /// Parses `ttft:200,tpot:15,e2el:3000` (commas or spaces between items;
    /// `=` also accepted instead of `:`, and an optional `ms` suffix).
    fn from_str(s: &str) -> Result<Self, SloError> {
        let mut slos: Vec<Slo> = Vec::new();
        for item in s.split([',', ' ']).map(str::trim).filter(|i| !i.is_empty()) {
            let (name, value) =
                item.split_once([':', '=']).ok_or_else(|| SloError::Syntax { item: item.to_string() })?;
            let metric: SloMetric = name.parse()?;
            let number = value.trim().trim_end_matches("ms").trim();
            let threshold_ms: f64 =
                number.parse().ok().filter(|v: &f64| v.is_finite() && *v > 0.0).ok_or_else(|| {
                    SloError::BadThreshold { metric: metric.to_string(), value: value.to_string() }
                })?;
            if slos.iter().any(|s| s.metric == metric) {
                return Err(SloError::Duplicate { metric: metric.to_string() });
            }
            slos.push(Slo { metric, threshold_ms });
        }
        if slos.is_empty() {
            return Err(SloError::Empty);
        }
        Ok(Self { slos })
    }
}

impl fmt::Display for SloSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> =
            self.slos.iter().map(|s| format!("{}:{}", s.metric, s.threshold_ms)).collect();
        f.write_str(&parts.join(","))
    }
}

impl SloSet {
    /// The SLOs of the brief: TTFT ≤ 200 ms, TPOT ≤ 15 ms, E2EL ≤ 3 s.
    pub fn standard() -> Self {
        Self {
            slos: vec![
                Slo { metric: SloMetric::Ttft, threshold_ms: 200.0 },
                Slo { metric: SloMetric::Tpot, threshold_ms: 15.0 },
                Slo { metric: SloMetric::E2el, threshold_ms: 3000.0 },
            ],
        }
    }

    /// Whether one request meets every SLO (failed requests never do).
    pub fn is_good(&self, r: &RequestMetrics) -> bool {
        r.completed && self.slos.iter().all(|s| s.metric.value(r).is_some_and(|v| v <= s.threshold_ms))
    }

    /// Goodput of a run.
    pub fn goodput(&self, run: &RunMetrics) -> Goodput {
        let good = run.per_request.iter().filter(|r| self.is_good(r)).count();
        let per_slo = self
            .slos
            .iter()
            .map(|s| {
                let met = run
                    .per_request
                    .iter()
                    .filter(|r| r.completed && s.metric.value(r).is_some_and(|v| v <= s.threshold_ms))
                    .count();
                SloOutcome { slo: *s, met, ratio: ratio(met, run.requests) }
            })
            .collect();
        Goodput {
            slos: self.to_string(),
            good,
            total: run.requests,
            ratio: ratio(good, run.requests),
            rate_per_s: run.duration_ms.map(|d| good as f64 * 1000.0 / d),
            per_slo,
        }
    }
}

fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}

/// How many requests met one SLO.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SloOutcome {
    /// The SLO.
    pub slo: Slo,
    /// Requests meeting it.
    pub met: usize,
    /// met / all requests.
    pub ratio: f64,
}

/// Goodput of a run under a set of SLOs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goodput {
    /// The SLOs, as text (`ttft:200,tpot:15`).
    pub slos: String,
    /// Requests meeting all SLOs.
    pub good: usize,
    /// All requests (failed included).
    pub total: usize,
    /// good / total, 0..1.
    pub ratio: f64,
    /// good / duration (requests/s).
    pub rate_per_s: Option<f64>,
    /// Per-SLO pass counts, to see which objective costs the most.
    pub per_slo: Vec<SloOutcome>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_vllm_style_and_comma_lists() {
        let s: SloSet = "ttft:200,tpot:15,e2el:3000".parse().unwrap();
        assert_eq!(s, SloSet::standard());
        let s: SloSet = "ttft:200 tpot=15ms".parse().unwrap();
        assert_eq!(s.slos.len(), 2);
        assert_eq!(s.to_string(), "ttft:200,tpot:15");
    }

    #[test]
    fn refuses_bad_specs_with_reasons() {
        assert!(matches!("ttft".parse::<SloSet>(), Err(SloError::Syntax { .. })));
        assert!(matches!("speed:3".parse::<SloSet>(), Err(SloError::UnknownMetric { .. })));
        assert!(matches!("ttft:-1".parse::<SloSet>(), Err(SloError::BadThreshold { .. })));
        assert!(matches!("ttft:abc".parse::<SloSet>(), Err(SloError::BadThreshold { .. })));
        assert!(matches!("ttft:1,ttft:2".parse::<SloSet>(), Err(SloError::Duplicate { .. })));
        assert_eq!("".parse::<SloSet>(), Err(SloError::Empty));
    }

    #[test]
    fn first_paint_slo_needs_a_paint() {
        use crate::measure::metrics::MetricsConfig;
        use crate::trace::{Chunk, RequestTrace, Trace};
        let request = |paint: Option<f64>| {
            let mut first = Chunk::content(100.0, "a", 1);
            first.painted_ms = paint;
            RequestTrace {
                chunks: vec![first, Chunk::content(120.0, "b", 1)],
                end_ms: Some(130.0),
                ..RequestTrace::default()
            }
        };
        let trace = Trace {
            requests: vec![request(Some(110.0)), request(Some(400.0)), request(None)],
            ..Trace::default()
        };
        let run = RunMetrics::of(&trace, &MetricsConfig::default());
        let g: SloSet = "ttft:200,TTFP:300".parse().unwrap();
        let out = g.goodput(&run);
        assert_eq!(out.good, 1, "painted in time; painted late; never painted");
        assert_eq!(out.per_slo.iter().map(|o| o.met).collect::<Vec<_>>(), [3, 1]);
        assert_eq!(out.slos, "ttft:200,ttfp:300");
    }
}
