//! Every per-request latency a user reads, defined once: its id, its label,
//! what it measures and where it comes from in [`RunMetrics`]. The web
//! metrics table, the HTML report and `latency-lab analyze` (text and
//! `--json`) all render [`LATENCY`], so they show the same rows for the same
//! run; a new latency figure is one row here and its computation in
//! [`crate::measure::metrics`].
//!
//! - **id**: the stable name. The JSON of [`RunMetrics`] holds the figure
//!   under `<id>_ms`, the web table's cells are `metric-<id>-<column>`, the
//!   report's rows carry `data-metric="<id>"`.
//! - **shown**: [`Shown::Always`] (with "n/a" when the run has no data), or
//!   [`Shown::WhenMeasured`] for figures only some runs have (tool calls):
//!   every place leaves such a row out when its figure is absent.
//!
//! - **request**: the figure of one request, for what summarises requests
//!   one value each (field data: `crate::field::row`). For the rows that
//!   pool several values per request (ITL, ITL per token, paint lag: their
//!   [`LatencyRow::pooled`]) it is the request's median.
//!
//! - **places**: where a row goes beyond the run tables (Live, the replay
//!   pane's analysis, the report and `analyze` show every row):
//!   [`Places::import`] for an imported run's card (benchmark tools record
//!   arrivals, never response headers or paints), [`Places::compare`] for
//!   the statistics that are columns of the run comparison, and
//!   [`Places::library`] for the one statistic a library entry keeps.
//!
//! Figures that are not per-request latencies (tokens/s, QoE, fluidity,
//! Apdex, stalls, jitter) are listed in [`OTHER_FIGURES`] with where they
//! are shown instead, so a test can tell a figure of [`RunMetrics`] that no
//! place renders.

use crate::measure::metrics::{RequestMetrics, RunMetrics};
use crate::measure::stats::Summary;

/// When a row is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Always ("n/a" without data).
    Always,
    /// Only when the run measured it.
    WhenMeasured,
}

pub use crate::measure::stats::Stat;

/// The columns of a latency table, in order.
pub const COLUMNS: [Stat; 5] = [Stat::Mean, Stat::P50, Stat::P90, Stat::P95, Stat::P99];

/// Where a row goes beyond the run tables (see the module doc).
#[derive(Debug, Clone, Copy)]
pub struct Places {
    /// On an imported run's card.
    pub import: bool,
    /// Its statistics that are columns of the run comparison.
    pub compare: &'static [Stat],
    /// The statistic a library entry keeps and its row shows.
    pub library: Option<Stat>,
}

/// A row only the run tables show: no import, comparison or library.
const RUN_TABLES: Places = Places { import: false, compare: &[], library: None };
/// A row of imported runs too, not compared or kept.
const WITH_IMPORTS: Places = Places { import: true, compare: &[], library: None };

/// One latency figure (ms, per request, summarized over requests).
#[derive(Debug, Clone, Copy)]
pub struct LatencyRow {
    /// Stable id (see the module doc).
    pub id: &'static str,
    /// Label in the web table and the report.
    pub label: &'static str,
    /// Label in the terminal table (≤ 22 characters).
    pub short: &'static str,
    /// What it measures, in one sentence.
    pub what: &'static str,
    /// The figure of a run.
    pub get: fn(&RunMetrics) -> Option<Summary>,
    /// The figure of one request (its median where the row is pooled).
    pub request: fn(&RequestMetrics) -> Option<f64>,
    /// The run's figure pools several values per request (each gap, each
    /// painted chunk), so [`LatencyRow::request`] is their median.
    pub pooled: bool,
    /// When it is shown.
    pub shown: Shown,
    /// Where else it goes.
    pub places: Places,
}

impl LatencyRow {
    /// Its key in the JSON of [`RunMetrics`] (`ttft_ms`).
    pub fn json_key(&self) -> String {
        format!("{}_ms", self.id)
    }

    /// Whether a place shows this row for `m`.
    pub fn shown_for(&self, m: &RunMetrics) -> bool {
        self.shown == Shown::Always || (self.get)(m).is_some()
    }

    /// Its label where each request counts once ([`LatencyRow::request`]):
    /// "Paint lag (each request's median)" for a pooled row.
    pub fn per_request_label(&self) -> String {
        if self.pooled { format!("{} (each request's median)", self.label) } else { self.label.to_string() }
    }

    /// "TTFT P50": the row's short label with a statistic.
    pub fn with_stat(&self, stat: Stat) -> String {
        format!("{} {}", self.short, stat.label())
    }
}

/// The latency rows, in the order every table shows them.
pub const LATENCY: [LatencyRow; 13] = [
    LatencyRow {
        id: "ttfb",
        label: "TTFB (headers)",
        short: "TTFB",
        what: "Response headers received − sent.",
        get: |m| m.ttfb_ms,
        request: |r| r.ttfb_ms,
        pooled: false,
        places: RUN_TABLES,
        shown: Shown::Always,
    },
    LatencyRow {
        id: "ttft",
        label: "TTFT (first token)",
        short: "TTFT",
        what: "Arrival of the first token chunk (reasoning counts) − sent.",
        get: |m| m.ttft_ms,
        request: |r| r.ttft_ms,
        pooled: false,
        places: Places { import: true, compare: &[Stat::P50, Stat::P99], library: Some(Stat::P50) },
        shown: Shown::Always,
    },
    LatencyRow {
        id: "time_to_first_answer",
        label: "Time to first answer",
        short: "Time to first answer",
        what: "Arrival of the first answer (content) chunk − sent: TTFT without the reasoning.",
        get: |m| m.time_to_first_answer_ms,
        request: |r| r.time_to_first_answer_ms,
        pooled: false,
        places: WITH_IMPORTS,
        shown: Shown::Always,
    },
    LatencyRow {
        id: "ttfp",
        label: "First paint",
        short: "First paint (TTFP)",
        what: "First paint of a token chunk − sent.",
        get: |m| m.ttfp_ms,
        request: |r| r.ttfp_ms,
        pooled: false,
        places: RUN_TABLES,
        shown: Shown::Always,
    },
    LatencyRow {
        id: "first_answer_paint",
        label: "First paint of the answer",
        short: "First answer paint",
        what: "First paint of an answer (content) chunk − sent: when a reasoning model's answer itself reached the screen.",
        get: |m| m.first_answer_paint_ms,
        request: |r| r.first_answer_paint_ms,
        pooled: false,
        places: RUN_TABLES,
        shown: Shown::WhenMeasured,
    },
    LatencyRow {
        id: "tpot",
        label: "TPOT",
        short: "TPOT",
        what: "(E2EL − TTFT) / (output tokens − 1); 1-token responses excluded.",
        get: |m| m.tpot_ms,
        request: |r| r.tpot_ms,
        pooled: false,
        places: Places { import: true, compare: &[Stat::P50, Stat::P99], library: None },
        shown: Shown::Always,
    },
    LatencyRow {
        id: "itl",
        label: "ITL",
        short: "ITL",
        what: "The gaps between successive token chunks, one per chunk after the first.",
        get: |m| m.itl_ms,
        request: |r| r.itl_median_ms(),
        pooled: true,
        places: Places { import: true, compare: &[Stat::P99], library: None },
        shown: Shown::Always,
    },
    LatencyRow {
        id: "itl_per_token",
        label: "ITL per token",
        short: "ITL per token",
        what: "Each gap spread over its chunk's k tokens as k values of gap / k.",
        get: |m| m.itl_per_token_ms,
        request: |r| r.itl_per_token_median_ms(),
        pooled: true,
        places: WITH_IMPORTS,
        shown: Shown::Always,
    },
    LatencyRow {
        id: "e2el",
        label: "E2EL",
        short: "E2EL",
        what: "Arrival of the last token chunk − sent.",
        get: |m| m.e2el_ms,
        request: |r| r.e2el_ms,
        pooled: false,
        places: Places { import: true, compare: &[Stat::P50, Stat::P99], library: Some(Stat::P50) },
        shown: Shown::Always,
    },
    LatencyRow {
        id: "paint_lag",
        label: "Paint lag",
        short: "Paint lag",
        what: "Painted − arrived, per painted token chunk.",
        get: |m| m.paint_lag_ms,
        request: |r| r.paint_lag_ms.map(|l| l.median),
        pooled: true,
        places: RUN_TABLES,
        shown: Shown::Always,
    },
    LatencyRow {
        id: "paint_gap",
        label: "Longest paint gap",
        short: "Longest paint gap",
        what: "The longest wait between two paints of new text, from the first paint to the last, per request.",
        get: |m| m.paint_gap_ms,
        request: |r| r.paint_gap_ms,
        pooled: false,
        places: RUN_TABLES,
        shown: Shown::WhenMeasured,
    },
    LatencyRow {
        id: "time_to_first_tool_call",
        label: "Time to first tool call",
        short: "First tool call",
        what: "Arrival of the first tool-call fragment − sent.",
        get: |m| m.time_to_first_tool_call_ms,
        request: |r| r.time_to_first_tool_call_ms,
        pooled: false,
        places: WITH_IMPORTS,
        shown: Shown::WhenMeasured,
    },
    LatencyRow {
        id: "tool_calls_complete",
        label: "Tool calls complete",
        short: "Tool calls complete",
        what: "When the last call's arguments had all arrived − sent.",
        get: |m| m.tool_calls_complete_ms,
        request: |r| r.tool_calls_complete_ms,
        pooled: false,
        places: WITH_IMPORTS,
        shown: Shown::WhenMeasured,
    },
];

/// Summarized figures of [`RunMetrics`] that are not latency rows, and
/// where they are shown (JSON key, place).
pub const OTHER_FIGURES: [(&str, &str); 7] = [
    ("reasoning_ms", "the feel lines (`measure::analysis::feel_lines`): reasoning before the answer"),
    ("input_tokens_per_s", "the feel lines: input tokens/s"),
    ("fluidity_index", "the feel lines: fluidity-index"),
    ("qoe", "the feel lines: QoE"),
    ("user_output_tokens_per_s", "the run's facts: per-request output tokens/s"),
    ("itl_cv", "the jitter line and the scores (ITL's coefficient of variation per request)"),
    ("longest_stall_ms", "the stalls line and the scores (each request's longest stall)"),
];

/// The position in [`LATENCY`] of the row `id`.
pub fn index(id: &str) -> Option<usize> {
    LATENCY.iter().position(|r| r.id == id)
}

/// The row of `id`.
pub fn row(id: &str) -> Option<&'static LatencyRow> {
    index(id).map(|i| &LATENCY[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metrics::MetricsConfig;
    use crate::trace::Trace;

    fn metrics() -> RunMetrics {
        let t = Trace::from_json(
            r#"{"schema_version":1,"requests":[{"sent_ms":0,"headers_ms":20,"end_ms":200,"chunks":[
              {"arrived_ms":100,"text":"a","painted_ms":108},{"arrived_ms":150,"text":"b","painted_ms":160}]}]}"#,
        )
        .unwrap();
        RunMetrics::of(&t, &MetricsConfig::default())
    }

    /// Every summarized figure of `RunMetrics` (an object with `p99` in its
    /// JSON) is a latency row or named in `OTHER_FIGURES`: a figure added
    /// without a place to show it fails here.
    #[test]
    fn every_summarized_figure_of_run_metrics_has_a_place() {
        let mut m = metrics();
        // Give every optional summary a value, so none is skipped as null.
        let s = m.ttft_ms.unwrap();
        m.time_to_first_tool_call_ms = Some(s);
        m.tool_calls_complete_ms = Some(s);
        m.reasoning_ms = Some(s);
        m.input_tokens_per_s = Some(s);
        m.fluidity_index = Some(s);
        m.qoe = Some(s);
        m.user_output_tokens_per_s = Some(s);
        m.itl_cv = Some(s);
        m.longest_stall_ms = Some(s);
        m.time_to_first_answer_ms = Some(s);
        m.paint_lag_ms = Some(s);
        m.paint_gap_ms = Some(s);
        m.ttfp_ms = Some(s);
        m.first_answer_paint_ms = Some(s);
        let json = serde_json::to_value(&m).unwrap();
        let summaries: Vec<&String> = json
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| v.get("p99").is_some() && v.get("median").is_some())
            .map(|(k, _)| k)
            .collect();
        assert!(summaries.len() >= LATENCY.len() + OTHER_FIGURES.len(), "{summaries:?}");
        for k in summaries {
            let placed =
                LATENCY.iter().any(|r| r.json_key() == *k) || OTHER_FIGURES.iter().any(|(o, _)| o == k);
            assert!(placed, "RunMetrics has `{k}`, which no place shows: add it to measure::registry");
        }
        for r in LATENCY {
            assert!(json.get(r.json_key()).is_some(), "row {} reads no figure named {}", r.id, r.json_key());
            assert!(r.short.chars().count() <= 22, "{}", r.short);
        }
    }

    /// The registry's example of a new figure: the first paint of the
    /// answer itself, after the reasoning a model showed first.
    #[test]
    fn the_answer_is_painted_after_the_reasoning() {
        let t = Trace::from_json(
            r#"{"schema_version":1,"requests":[{"sent_ms":0,"end_ms":400,"chunks":[
              {"arrived_ms":100,"text":"hmm","kind":"reasoning","painted_ms":105},
              {"arrived_ms":300,"text":"Yes","painted_ms":310}]}]}"#,
        )
        .unwrap();
        let m = RunMetrics::of(&t, &MetricsConfig::default());
        assert_eq!(m.ttfp_ms.unwrap().median, 105.0, "the reasoning reached the screen first");
        assert_eq!(m.first_answer_paint_ms.unwrap().median, 310.0, "the answer 205 ms later");
        assert!(row("first_answer_paint").unwrap().shown_for(&m));
        let unpainted = Trace::from_json(
            r#"{"schema_version":1,"requests":[{"sent_ms":0,"end_ms":400,"chunks":[{"arrived_ms":100,"text":"a"}]}]}"#,
        )
        .unwrap();
        let m = RunMetrics::of(&unpainted, &MetricsConfig::default());
        assert!(!row("first_answer_paint").unwrap().shown_for(&m), "an import has no paints: no row");
    }

    /// Each row's figure of one request is the run's figure of a run of
    /// that request alone (its median, for the pooled rows).
    #[test]
    fn a_request_s_figure_is_its_run_s() {
        let profile: crate::replay::profile::Profile =
            "ttft=120,tpot=8,tokens=12,tool_call=search:6".parse().unwrap();
        let mut t = profile.to_trace(1, 10);
        for (i, c) in t.requests[0].chunks.iter_mut().enumerate() {
            c.painted_ms = Some(c.arrived_ms + 6.0 + (i % 3) as f64);
        }
        let m = RunMetrics::of(&t, &MetricsConfig::default());
        for r in LATENCY {
            let run = (r.get)(&m).map(|s| s.median);
            let one = (r.request)(&m.per_request[0]);
            assert!(run.is_some(), "the fixture has every figure: {}", r.id);
            assert_eq!(run.map(f64::to_bits), one.map(f64::to_bits), "{}", r.id);
        }
    }

    #[test]
    fn rows_measured_only_sometimes_are_left_out_without_data() {
        let m = metrics();
        let shown: Vec<&str> = LATENCY.iter().filter(|r| r.shown_for(&m)).map(|r| r.id).collect();
        assert!(shown.contains(&"ttft") && shown.contains(&"time_to_first_answer"));
        assert!(!shown.contains(&"tool_calls_complete"), "no tool calls in this run");
        assert_eq!(row("ttft").map(|r| (r.get)(&m).unwrap().count), Some(1));
        assert!(row("nope").is_none());
    }
}
