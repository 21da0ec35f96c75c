//! The tool's own summary beside the lab's recomputation.
//!
//! Each [`ToolFigure`] says which lab figure it should equal *by meaning*
//! (e.g. AIPerf's "inter_token_latency" is what the lab calls TPOT). A
//! difference larger than rounding ([`MS_TOLERANCE`] for latencies,
//! [`RATE_TOLERANCE`] relative for rates) is flagged, with the reason when
//! the tool is known to define the figure differently.

use serde::{Deserialize, Serialize};

use super::ImportedRun;
use crate::measure::metrics::RunMetrics;
use crate::measure::registry::{self, LatencyRow};
use crate::measure::stats::Samples;

/// Latency figures agreeing within this (ms) are equal (tools print two decimals).
pub const MS_TOLERANCE: f64 = 0.01;
/// Rate figures agreeing within this relative difference are equal.
pub const RATE_TOLERANCE: f64 = 1e-6;

/// Which lab figure a tool figure corresponds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureMetric {
    /// Time to first token (ms).
    Ttft,
    /// Time per output token (ms).
    Tpot,
    /// Inter-token latency, pooled gaps (ms).
    Itl,
    /// End-to-end latency (ms).
    E2el,
    /// System output tokens/s.
    OutputThroughput,
    /// Completed requests/s.
    RequestThroughput,
}

impl FigureMetric {
    /// The registry's latency row it means, for latencies.
    pub fn row(self) -> Option<&'static LatencyRow> {
        match self {
            Self::Ttft => registry::row("ttft"),
            Self::Tpot => registry::row("tpot"),
            Self::Itl => registry::row("itl"),
            Self::E2el => registry::row("e2el"),
            Self::OutputThroughput | Self::RequestThroughput => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::OutputThroughput => "output tokens/s",
            Self::RequestThroughput => "requests/s",
            _ => self.row().map_or("", |r| r.short),
        }
    }
}

/// Which statistic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureStat {
    /// Mean.
    Mean,
    /// Median.
    Median,
    /// Population standard deviation.
    Std,
    /// A percentile (0–100), numpy's linear interpolation.
    Percentile(f64),
    /// A percentile (0–100) from the inverse empirical CDF: the smallest
    /// value whose cumulative share (summed as floats, in order) reaches p.
    Rank(f64),
    /// A single value (rates).
    Value,
}

impl FigureStat {
    /// Reading order: mean, median, std, percentiles rising, single values.
    pub fn order(self) -> f64 {
        match self {
            Self::Mean => -3.0,
            Self::Median => -2.0,
            Self::Std => -1.0,
            Self::Percentile(p) | Self::Rank(p) => p,
            Self::Value => 1000.0,
        }
    }
}

/// One figure from the tool's own summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolFigure {
    /// The tool's field name.
    pub key: String,
    /// Lab figure it means.
    pub metric: FigureMetric,
    /// Statistic.
    pub stat: FigureStat,
    /// The tool's value (ms, or per second).
    pub value: f64,
    /// How the tool's definition differs from the lab's, when it does.
    pub note: Option<String>,
}

/// A tool figure and the lab's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureComparison {
    /// The tool's field name.
    pub key: String,
    /// Human label ("P99 TTFT").
    pub label: String,
    /// The tool's value.
    pub tool: f64,
    /// The lab's recomputation.
    pub lab: Option<f64>,
    /// lab − tool.
    pub diff: Option<f64>,
    /// Larger than rounding.
    pub differs: bool,
    /// Why, when it differs.
    pub why: Option<String>,
}

fn samples(run: &ImportedRun, m: &RunMetrics, metric: FigureMetric) -> Samples {
    let done = m.per_request.iter().filter(|r| r.completed);
    match metric {
        FigureMetric::Itl => run.itl_samples(m),
        FigureMetric::Ttft => Samples::from_finite(done.filter_map(|r| r.ttft_ms)),
        FigureMetric::Tpot => Samples::from_finite(done.filter_map(|r| r.tpot_ms)),
        FigureMetric::E2el => Samples::from_finite(done.filter_map(|r| r.e2el_ms)),
        FigureMetric::OutputThroughput | FigureMetric::RequestThroughput => Samples::default(),
    }
}

/// The run's own summary of a metric (same samples as [`samples`]).
/// The lab's value of a figure: from the run's summary when it holds the
/// statistic, else from the metric's samples (built once, on demand).
fn value_of(
    m: &RunMetrics,
    metric: FigureMetric,
    stat: FigureStat,
    s: impl FnOnce() -> Samples,
) -> Option<f64> {
    let summary = match metric {
        FigureMetric::OutputThroughput => return m.output_tokens_per_s,
        FigureMetric::RequestThroughput => return m.request_throughput,
        _ => metric.row().and_then(|r| (r.get)(m)),
    };
    let from_summary = |x: crate::measure::stats::Summary| match stat {
        FigureStat::Mean | FigureStat::Value => Some(x.mean),
        FigureStat::Median => Some(x.median),
        FigureStat::Std => Some(x.std),
        FigureStat::Percentile(50.0) => Some(x.p50),
        FigureStat::Percentile(90.0) => Some(x.p90),
        FigureStat::Percentile(95.0) => Some(x.p95),
        FigureStat::Percentile(99.0) => Some(x.p99),
        _ => None,
    };
    match summary {
        None => None, // no completed request: no value at all
        Some(x) => from_summary(x).or_else(|| {
            let s = s();
            match stat {
                FigureStat::Percentile(p) => s.percentile(p),
                FigureStat::Rank(p) => rank_percentile(s.sorted(), p),
                _ => s.mean(),
            }
        }),
    }
}

/// Inverse-CDF percentile of sorted values, as guidellm computes it: each
/// value weighs 1/n, the shares are summed in order, and the first value
/// whose running sum reaches p/100 is taken.
pub fn rank_percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let share = 1.0 / n as f64;
    let target = p / 100.0;
    let mut sum = 0.0;
    for (i, v) in sorted.iter().enumerate() {
        sum += share;
        if sum >= target || i + 1 == n {
            return Some(*v);
        }
    }
    None
}

/// Compares a run's tool summary with the lab's metrics of it.
pub fn compare(run: &ImportedRun, m: &RunMetrics) -> Vec<FigureComparison> {
    // Sample sets are built only for statistics the run's summaries lack,
    // once per metric (the pooled ITL of a big run is ~10 M values).
    let mut cache: Vec<(FigureMetric, Samples)> = Vec::new();
    run.summary
        .iter()
        .map(|f| {
            let lab = value_of(m, f.metric, f.stat, || {
                if let Some((_, s)) = cache.iter().find(|(k, _)| *k == f.metric) {
                    return s.clone();
                }
                let s = samples(run, m, f.metric);
                cache.push((f.metric, s.clone()));
                s
            });
            let diff = lab.map(|l| l - f.value);
            let tolerance = match f.metric {
                FigureMetric::OutputThroughput | FigureMetric::RequestThroughput => {
                    (f.value.abs() * RATE_TOLERANCE).max(1e-9)
                }
                _ => MS_TOLERANCE,
            };
            let differs = diff.is_none_or(|d| d.abs() > tolerance);
            let why = differs.then(|| {
                f.note.clone().unwrap_or_else(|| match lab {
                    None => "the lab has no data for this figure in the file (e.g. no completed request)".into(),
                    Some(_) => "the lab recomputed it from the per-request data in the file; the tool may have used data it did not save (such as requests outside its measurement window)".into(),
                })
            });
            let stat = match f.stat {
                FigureStat::Mean => "mean".to_string(),
                FigureStat::Median => "median".to_string(),
                FigureStat::Std => "std".to_string(),
                FigureStat::Percentile(p) => format!("P{p}"),
                FigureStat::Rank(p) => format!("P{p} (nearest rank)"),
                FigureStat::Value => String::new(),
            };
            FigureComparison {
                key: f.key.clone(),
                label: format!("{stat} {}", f.metric.label()).trim().to_string(),
                tool: f.value,
                lab,
                diff,
                differs,
                why,
            }
        })
        .collect()
}

/// The comparison as a text table (pure; callers print it).
pub fn comparison_table(rows: &[FigureComparison]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out =
        format!("{:<32} {:>12} {:>12} {:>10}  {}\n", "tool's figure", "tool", "lab", "lab−tool", "");
    for r in rows {
        let lab = r.lab.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"));
        let diff = r.diff.map_or_else(|| "n/a".to_string(), |v| format!("{v:+.2}"));
        let verdict = if r.differs { "DIFFERS" } else { "equal" };
        out.push_str(&format!("{:<32} {:>12.2} {:>12} {:>10}  {verdict}\n", r.label, r.tool, lab, diff));
    }
    let mut whys: Vec<&str> = Vec::new();
    for w in rows.iter().filter_map(|r| r.why.as_deref()) {
        if !whys.contains(&w) {
            whys.push(w);
        }
    }
    if !whys.is_empty() {
        out.push_str("Why figures differ:\n");
        for w in whys {
            out.push_str(&format!("  - {w}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_percentiles() {
        let v: Vec<f64> = (1..=24).map(f64::from).collect();
        assert_eq!(rank_percentile(&v, 50.0), Some(12.0));
        assert_eq!(rank_percentile(&v, 99.0), Some(24.0));
        assert_eq!(rank_percentile(&v, 0.1), Some(1.0));
        assert_eq!(rank_percentile(&[], 50.0), None);
        assert_eq!(rank_percentile(&[3.0], 100.0), Some(3.0));
    }
}
