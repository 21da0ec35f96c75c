//! What the app shows of a run, small enough to cross from the import worker
//! to the page even for a 10,000-request benchmark: the analysis (without
//! per-request details), the tool comparison, one short row per request, a
//! TTFT CDF and the typical and worst requests.
//!
//! - The **typical** request by a metric is the completed request at the
//!   median of that metric, the **worst** the one at its P99: with the
//!   completed requests sorted by the metric, the one at 0-based rank
//!   `⌈p·n⌉ − 1` (nearest rank, so it is a real request, not an
//!   interpolation).
//! - The **CDF** has at most [`CDF_POINTS`] points `(value, share ≤ value)`,
//!   taken at evenly spaced ranks, always including the first and last.

use serde::{Deserialize, Serialize};

use super::{FigureComparison, Format, ImportedRun};
use crate::measure::analysis::{Analysis, AnalysisOptions};
use crate::measure::metrics::{RequestMetrics, RunMetrics};
use crate::measure::registry::{LATENCY, LatencyRow, Stat};
use crate::trace::Trace;

/// Most points of a CDF sent to the page.
pub const CDF_POINTS: usize = 200;

/// The metrics by which a request can be typical or worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PickBy {
    /// Time to first token.
    Ttft,
    /// Time per output token.
    Tpot,
    /// End-to-end latency.
    E2el,
    /// Longest stall.
    Stall,
}

impl PickBy {
    /// All, in menu order.
    pub const ALL: [PickBy; 4] = [PickBy::Ttft, PickBy::Tpot, PickBy::E2el, PickBy::Stall];

    /// Label for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ttft => "TTFT",
            Self::Tpot => "TPOT",
            Self::E2el => "E2EL",
            Self::Stall => "longest stall",
        }
    }

    /// Its value for request `r` (`None`: not measured).
    pub fn value_of(self, r: &RequestRow) -> Option<f64> {
        match self {
            Self::Ttft => r.ttft_ms,
            Self::Tpot => r.tpot_ms,
            Self::E2el => r.e2el_ms,
            Self::Stall => Some(r.longest_stall_ms),
        }
    }
}

/// One request, in short.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestRow {
    /// Position in the run.
    pub index: usize,
    /// The tool's id for it.
    pub id: Option<String>,
    /// Sent (ms, run clock).
    pub sent_ms: f64,
    /// TTFT (ms).
    pub ttft_ms: Option<f64>,
    /// TPOT (ms).
    pub tpot_ms: Option<f64>,
    /// E2EL (ms).
    pub e2el_ms: Option<f64>,
    /// Output tokens.
    pub output_tokens: u64,
    /// Longest stall (ms).
    pub longest_stall_ms: f64,
    /// Completed.
    pub completed: bool,
}

impl RequestRow {
    fn of(m: &RequestMetrics, id: Option<String>) -> Self {
        Self {
            index: m.index,
            id,
            sent_ms: m.sent_ms,
            ttft_ms: m.ttft_ms,
            tpot_ms: m.tpot_ms,
            e2el_ms: m.e2el_ms,
            output_tokens: m.output_tokens,
            longest_stall_ms: m.longest_stall_ms,
            completed: m.completed,
        }
    }
}

/// A run as the app shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDigest {
    /// Label.
    pub label: String,
    /// The tool's format (`None` for a lab trace).
    pub format: Option<Format>,
    /// Tool and version, for people.
    pub tool: String,
    /// Concurrency, when known.
    pub concurrency: Option<u32>,
    /// What to know about the data.
    pub notes: Vec<String>,
    /// Metrics, goodput and scores (`metrics.per_request` left empty).
    pub analysis: Analysis,
    /// The tool's own figures beside the lab's.
    pub comparison: Vec<FigureComparison>,
    /// One row per request.
    pub rows: Vec<RequestRow>,
    /// TTFT CDF of the completed requests.
    pub ttft_cdf: Vec<(f64, f64)>,
    /// The browser a lab trace was measured in ("Firefox 140"); `None` for
    /// a tool's result or a trace that does not say.
    #[serde(default)]
    pub client: Option<String>,
}

impl RunDigest {
    /// Digest of an imported run and its metrics.
    pub fn of_import(run: &ImportedRun, metrics: RunMetrics, opts: &AnalysisOptions) -> Self {
        let comparison = super::compare(run, &metrics);
        let ids = run.requests.iter().map(|r| r.id.clone());
        let tool = match &run.tool_version {
            Some(v) => format!("{} {v}", run.format.name()),
            None => run.format.name().to_string(),
        };
        let mut d = Self::build(run.label.clone(), metrics, ids.collect(), run.model.clone(), opts);
        d.format = Some(run.format);
        d.tool = tool;
        d.concurrency = run.concurrency;
        d.notes = run.notes.clone();
        d.comparison = comparison;
        d
    }

    /// Digest of a lab trace.
    pub fn of_trace(trace: &Trace, fallback_label: &str, opts: &AnalysisOptions) -> Self {
        Self::of_metrics(trace, RunMetrics::of(trace, &opts.metrics), fallback_label, opts)
    }

    /// The digest of a trace whose metrics are already computed (with
    /// `opts.metrics`): nothing is measured twice.
    pub fn of_metrics(
        trace: &Trace,
        metrics: RunMetrics,
        fallback_label: &str,
        opts: &AnalysisOptions,
    ) -> Self {
        let ids = trace.requests.iter().map(|r| r.id.clone()).collect();
        let label = trace.meta.label.clone().unwrap_or_else(|| fallback_label.to_string());
        let mut d = Self::build(label, metrics, ids, trace.meta.model.clone(), opts);
        d.concurrency = trace.meta.concurrency;
        d.client = trace.meta.client.browser_short();
        d.notes = trace.meta.notes.clone();
        d
    }

    fn build(
        label: String,
        metrics: RunMetrics,
        ids: Vec<Option<String>>,
        model: Option<String>,
        opts: &AnalysisOptions,
    ) -> Self {
        let rows: Vec<RequestRow> = metrics
            .per_request
            .iter()
            .map(|m| RequestRow::of(m, ids.get(m.index).cloned().flatten()))
            .collect();
        let mut ttfts: Vec<f64> = rows.iter().filter(|r| r.completed).filter_map(|r| r.ttft_ms).collect();
        ttfts.sort_unstable_by(f64::total_cmp);
        let mut analysis = Analysis::from_metrics(metrics, Some(label.clone()), model, opts);
        analysis.metrics.per_request = Vec::new();
        Self {
            label,
            format: None,
            tool: "Latency Lab trace".into(),
            concurrency: None,
            notes: Vec::new(),
            analysis,
            comparison: Vec::new(),
            rows,
            ttft_cdf: cdf(&ttfts),
            client: None,
        }
    }

    /// The completed requests with a value of `by`, in its order (ties in
    /// run order).
    fn ranked(&self, by: PickBy) -> Vec<(&RequestRow, f64)> {
        let mut done: Vec<(&RequestRow, f64)> =
            self.rows.iter().filter(|r| r.completed).filter_map(|r| by.value_of(r).map(|v| (r, v))).collect();
        done.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.index.cmp(&b.0.index)));
        done
    }

    /// The completed request at percentile `p` (0–100) of `by`, nearest rank.
    pub fn request_at(&self, by: PickBy, p: f64) -> Option<&RequestRow> {
        self.pick_at(by, p).map(|k| k.row)
    }

    /// The completed request at percentile `p` (0–100) of `by` (nearest
    /// rank: the ⌈p·n⌉-th), with its rank and the value the tables show at
    /// `p` (numpy's linear percentile, between two requests).
    pub fn pick_at(&self, by: PickBy, p: f64) -> Option<Picked<'_>> {
        let done = self.ranked(by);
        if done.is_empty() {
            return None;
        }
        let n = done.len();
        let rank = ((p / 100.0 * n as f64).ceil() as usize).clamp(1, n);
        let values: Vec<f64> = done.iter().map(|d| d.1).collect();
        Some(Picked {
            row: done[rank - 1].0,
            rank,
            of: n,
            table_value: crate::measure::stats::percentile_of_sorted(&values, p),
        })
    }
}

/// A request picked at a percentile ([`RunDigest::pick_at`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Picked<'a> {
    /// The request.
    pub row: &'a RequestRow,
    /// Its rank among the completed requests (1: the lowest value).
    pub rank: usize,
    /// How many were ranked.
    pub of: usize,
    /// The percentile as the tables give it (interpolated).
    pub table_value: f64,
}

impl Picked<'_> {
    /// The slowest (highest) of the ranked requests.
    pub fn is_last(&self) -> bool {
        self.rank == self.of
    }
}

/// Whether more of a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Better {
    /// Lower is better (latencies).
    Lower,
    /// Higher is better (throughput, goodput).
    Higher,
}

/// A figure compared across runs.
#[derive(Debug, Clone)]
pub struct Compared {
    /// Column label.
    pub label: String,
    /// Unit shown after values.
    pub unit: &'static str,
    /// Direction.
    pub better: Better,
    /// Where its value comes from.
    pub figure: ComparedFigure,
}

/// Where a compared figure's value comes from.
#[derive(Debug, Clone, Copy)]
pub enum ComparedFigure {
    /// A statistic of a latency row of [`crate::measure::registry`].
    Latency(&'static LatencyRow, Stat),
    /// A figure of the run as a whole.
    Run(fn(&Analysis) -> Option<f64>),
}

impl Compared {
    /// The figure of a run.
    pub fn value(&self, a: &Analysis) -> Option<f64> {
        match self.figure {
            ComparedFigure::Latency(row, stat) => (row.get)(&a.metrics).map(|s| stat.of(&s)),
            ComparedFigure::Run(get) => get(a),
        }
    }
}

/// The figures of the run comparison table, in column order: the
/// statistics each latency row of the registry names for comparison
/// ([`crate::measure::registry::Places::compare`]), then the run's
/// throughput, goodput, QoE and Apdex.
pub fn compared() -> Vec<Compared> {
    let latency = LATENCY.iter().flat_map(|r| {
        r.places.compare.iter().map(move |s| Compared {
            label: r.with_stat(*s),
            unit: "ms",
            better: Better::Lower,
            figure: ComparedFigure::Latency(r, *s),
        })
    });
    let run = |label: &str, unit, get| Compared {
        label: label.to_string(),
        unit,
        better: Better::Higher,
        figure: ComparedFigure::Run(get),
    };
    latency
        .chain([
            run("output tokens/s", "", |a| a.metrics.output_tokens_per_s),
            run("goodput", "%", |a| a.goodput.as_ref().map(|g| g.ratio * 100.0)),
            run("QoE P50", "ratio", |a| a.metrics.qoe.map(|s| s.p50)),
            run("Apdex (TTFT)", "ratio", |a| a.metrics.apdex_ttft),
        ])
        .collect()
}

/// One cell of the comparison: the run's value and its difference from the
/// baseline run (the first one).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// This run's value.
    pub value: Option<f64>,
    /// value − baseline.
    pub diff: Option<f64>,
    /// (value − baseline) / baseline, when the baseline is not 0.
    pub relative: Option<f64>,
    /// True when the difference is an improvement, false when worse,
    /// `None` when equal or not comparable.
    pub improved: Option<bool>,
}

/// Every run's figures with deltas to the first run, in [`compared`] order.
pub fn compare_runs(runs: &[&Analysis]) -> Vec<Vec<Delta>> {
    let Some(base) = runs.first() else { return Vec::new() };
    let figures = compared();
    runs.iter()
        .map(|a| {
            figures
                .iter()
                .map(|c| {
                    let value = c.value(a);
                    let b = c.value(base);
                    let diff = value.zip(b).map(|(v, b)| v - b);
                    let relative = diff.zip(b).filter(|(_, b)| *b != 0.0).map(|(d, b)| d / b.abs());
                    let improved = diff.filter(|d| *d != 0.0).map(|d| match c.better {
                        Better::Lower => d < 0.0,
                        Better::Higher => d > 0.0,
                    });
                    Delta { value, diff, relative, improved }
                })
                .collect()
        })
        .collect()
}

/// When compared runs were measured in different browsers, one sentence
/// that says so and names each run's browser: browsers differ in clock
/// precision, in how soon they hand received bytes to the page and in when
/// they paint, so part of such a difference is the browser's, not the
/// endpoint's. `None` when fewer than two browsers are known among them.
pub fn browsers_note(runs: &[&RunDigest]) -> Option<String> {
    let mut browsers: Vec<&str> = runs.iter().filter_map(|r| r.client.as_deref()).collect();
    browsers.sort_unstable();
    browsers.dedup();
    if browsers.len() < 2 {
        return None;
    }
    let each: Vec<String> = runs
        .iter()
        .map(|r| format!("{}: {}", r.label, r.client.as_deref().unwrap_or("not a browser run")))
        .collect();
    Some(format!(
        "These runs were measured in different browsers ({}). Browsers differ in clock precision and in how soon \
         they hand arriving bytes to the page and paint them, so part of the difference is the browser's, not the \
         endpoint's: compare runs from one browser to judge an endpoint.",
        each.join("; ")
    ))
}

/// At most [`CDF_POINTS`] points of the CDF of ascending `sorted` values.
pub fn cdf(sorted: &[f64]) -> Vec<(f64, f64)> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    let k = n.min(CDF_POINTS);
    let mut out: Vec<(f64, f64)> = (0..k)
        .map(|j| {
            let i = if k == 1 { n - 1 } else { j * (n - 1) / (k - 1) };
            (sorted[i], (i + 1) as f64 / n as f64)
        })
        .collect();
    out.dedup_by(|b, a| {
        a.0 == b.0 && {
            a.1 = a.1.max(b.1);
            true
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{Imported, import};

    #[test]
    fn typical_and_worst_requests_are_real_ones() {
        let rows: Vec<RequestRow> = (0..10)
            .map(|i| RequestRow {
                index: i,
                id: None,
                sent_ms: 0.0,
                ttft_ms: Some(100.0 + i as f64 * 10.0),
                tpot_ms: None,
                e2el_ms: Some(1000.0 - i as f64),
                output_tokens: 5,
                longest_stall_ms: 0.0,
                completed: i != 9,
            })
            .collect();
        let d = RunDigest { rows, ..sample() };
        assert_eq!(d.request_at(PickBy::Ttft, 50.0).unwrap().index, 4, "rank ⌈0.5·9⌉ − 1 = 4");
        assert_eq!(d.request_at(PickBy::Ttft, 99.0).unwrap().index, 8, "failed request 9 never picked");
        assert_eq!(d.request_at(PickBy::E2el, 99.0).unwrap().index, 0);
        assert!(d.request_at(PickBy::Tpot, 50.0).is_none());
    }

    /// Issue 44: five field answers (TTFT 155.9, 2523.9, 303.1, 254.3,
    /// 204.4 ms): the "P90" pane played #2 at 2,524 ms beside a table whose
    /// P90 is 1,635.61 ms, and the same request as the "worst (P99)",
    /// unsaid. The pick now carries its rank and the table's value.
    #[test]
    fn a_pick_says_its_rank_and_the_tables_value() {
        let ttfts = [155.9, 2523.9, 303.1, 254.3, 204.4];
        let rows: Vec<RequestRow> = ttfts
            .iter()
            .enumerate()
            .map(|(i, t)| RequestRow {
                index: i,
                id: None,
                sent_ms: 0.0,
                ttft_ms: Some(*t),
                tpot_ms: None,
                e2el_ms: None,
                output_tokens: 5,
                longest_stall_ms: 0.0,
                completed: true,
            })
            .collect();
        let d = RunDigest { rows, ..sample() };
        let p90 = d.pick_at(PickBy::Ttft, 90.0).unwrap();
        let p99 = d.pick_at(PickBy::Ttft, 99.0).unwrap();
        assert_eq!((p90.row.index, p90.rank, p90.of), (1, 5, 5));
        assert!((p90.table_value - 1635.58).abs() < 0.01, "{}", p90.table_value);
        assert!(p90.is_last() && p99.is_last() && p90.row.index == p99.row.index);
        let p50 = d.pick_at(PickBy::Ttft, 50.0).unwrap();
        assert_eq!((p50.row.index, p50.rank, p50.table_value), (3, 3, 254.3));
        assert!(!p50.is_last());
    }

    #[test]
    fn cdf_is_short_and_ends_at_one() {
        let v: Vec<f64> = (0..10_000).map(f64::from).collect();
        let c = cdf(&v);
        assert_eq!(c.len(), CDF_POINTS);
        assert_eq!(c[0], (0.0, 1e-4));
        assert_eq!(*c.last().unwrap(), (9999.0, 1.0));
        assert_eq!(cdf(&[5.0, 5.0, 7.0]), [(5.0, 2.0 / 3.0), (7.0, 1.0)]);
    }

    #[test]
    fn a_note_says_when_runs_come_from_different_browsers() {
        let run = |label: &str, client: Option<&str>| RunDigest {
            label: label.into(),
            client: client.map(String::from),
            ..sample()
        };
        let (ff, ch, tool) = (run("A", Some("Firefox 140")), run("B", Some("Chrome 148")), run("C", None));
        assert_eq!(browsers_note(&[&ff, &run("A2", Some("Firefox 140")), &tool]), None, "one browser");
        assert_eq!(browsers_note(&[&ff]), None);
        let note = browsers_note(&[&ff, &ch, &tool]).unwrap();
        assert!(
            note.starts_with("These runs were measured in different browsers (A: Firefox 140; B: Chrome 148; C: not a browser run)."),
            "{note}"
        );
        let mut trace = Trace::default();
        trace.meta.client.user_agent =
            Some("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0".into());
        let d = RunDigest::of_trace(&trace, "t", &AnalysisOptions::default());
        assert_eq!(d.client.as_deref(), Some("Firefox 140"), "older traces: from the user agent");
    }

    fn sample() -> RunDigest {
        let text =
            r#"[{"error_code":null,"ttft_s":0.1,"end_to_end_latency_s":0.5,"number_output_tokens":5}]"#;
        let Ok(Imported::Runs(runs)) = import(text) else { panic!() };
        let m = runs[0].metrics(&Default::default());
        RunDigest::of_import(&runs[0], m, &AnalysisOptions::default())
    }

    /// The comparison's columns come from the registry's `compare`
    /// statistics, in its row order, then the run figures.
    #[test]
    fn compared_columns_follow_the_registry() {
        let labels: Vec<String> = compared().into_iter().map(|c| c.label).collect();
        assert_eq!(
            labels,
            [
                "TTFT P50",
                "TTFT P99",
                "TPOT P50",
                "TPOT P99",
                "ITL P99",
                "E2EL P50",
                "E2EL P99",
                "output tokens/s",
                "goodput",
                "QoE P50",
                "Apdex (TTFT)"
            ]
        );
        let stats: usize = LATENCY.iter().map(|r| r.places.compare.len()).sum();
        assert_eq!(
            compared().iter().filter(|c| matches!(c.figure, ComparedFigure::Latency(..))).count(),
            stats
        );
    }

    #[test]
    fn run_deltas_know_which_way_is_better() {
        let a = sample();
        let mut b = sample();
        b.analysis.metrics.ttft_ms.as_mut().unwrap().p50 = 50.0;
        b.analysis.metrics.output_tokens_per_s = Some(a.analysis.metrics.output_tokens_per_s.unwrap() * 2.0);
        let rows = compare_runs(&[&a.analysis, &b.analysis]);
        assert!(rows[0].iter().all(|d| d.improved.is_none()), "the baseline has no deltas");
        assert_eq!(rows[1][0].diff, Some(-50.0));
        assert_eq!(rows[1][0].relative, Some(-0.5));
        assert_eq!(rows[1][0].improved, Some(true));
        assert_eq!(rows[1][7].improved, Some(true));
        assert_eq!(rows[1][7].relative, Some(1.0));
    }

    #[test]
    fn digest_round_trips_through_json() {
        let d = sample();
        assert_eq!(d.tool, "LLMPerf individual responses");
        assert_eq!(d.rows.len(), 1);
        let back: RunDigest = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
    }
}
