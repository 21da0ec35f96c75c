//! One analysis of a run: metrics, goodput under SLOs and scenario scores,
//! with the two exporters the lab uses: machine JSON and a text table.
//! Exporters are pure (text in memory); callers do the I/O.
//!
//! The JSON object has, at least: `requests`, `completed`, `failed`,
//! `ttft_ms`, `tpot_ms`, `itl_ms`, `e2el_ms` (each `{mean, median, std, p50,
//! p90, p95, p99, min, max, count}` or `null` without data),
//! `output_tokens_per_s` (system-wide), `goodput` (when SLOs were given;
//! `ratio` in 0..1), `scores` (one per scenario) and `early_stamps`
//! (stamps out of order, kept as measured: [`crate::trace::stamps`]; the
//! table prints a line when there are any); and where the run
//! shows where latency comes from: `prefill_fit` (prompts of several
//! lengths, [`crate::measure::prefill`]), `turns` (a conversation,
//! [`crate::measure::turns`]) and `rate_run` (scheduled sends,
//! [`crate::measure::rate`]).

use serde::{Deserialize, Serialize};

use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::measure::prefill::{self, PrefillFit};
use crate::measure::rate::{self, RateRun};
use crate::measure::registry::LATENCY;
use crate::measure::score::{Scenario, ScenarioScore};
use crate::measure::slo::{Goodput, SloSet};
use crate::measure::turns::{self, Turns};
use crate::trace::Trace;

/// What to compute besides the metrics.
#[derive(Debug, Clone, Default)]
pub struct AnalysisOptions {
    /// Metric knobs.
    pub metrics: MetricsConfig,
    /// SLOs for goodput, if any.
    pub slos: Option<SloSet>,
    /// Scenarios to score (all presets when empty).
    pub scenarios: Vec<Scenario>,
}

impl AnalysisOptions {
    /// What the app shows a run with unless told otherwise: default metric
    /// settings, the standard SLOs ([`SloSet::standard`]) for goodput, and
    /// `scenarios` (all presets when empty). Live, the library and reports
    /// use the same, so their figures agree.
    pub fn standard(scenarios: Vec<Scenario>) -> Self {
        Self { metrics: MetricsConfig::default(), slos: Some(SloSet::standard()), scenarios }
    }
}

/// The result of analysing a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Run label, when the trace had one.
    pub label: Option<String>,
    /// Model name, when known.
    pub model: Option<String>,
    /// Metrics.
    #[serde(flatten)]
    pub metrics: RunMetrics,
    /// Goodput under the SLOs.
    pub goodput: Option<Goodput>,
    /// Scenario scores.
    pub scores: Vec<ScenarioScore>,
    /// TTFT against prompt length, when prompts differ in length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill_fit: Option<PrefillFit>,
    /// A conversation run turn by turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<Turns>,
    /// A request-rate run over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_run: Option<RateRun>,
}

impl Analysis {
    /// Analyses a trace.
    pub fn of(trace: &Trace, opts: &AnalysisOptions) -> Self {
        let metrics = RunMetrics::of(trace, &opts.metrics);
        let turns = turns::turns(trace, &metrics);
        let rate_run = rate::rate_run(trace, &metrics);
        let mut a = Self::from_metrics(metrics, trace.meta.label.clone(), trace.meta.model.clone(), opts);
        a.turns = turns;
        a.rate_run = rate_run;
        a
    }

    /// Analyses already computed metrics.
    pub fn from_metrics(
        metrics: RunMetrics,
        label: Option<String>,
        model: Option<String>,
        opts: &AnalysisOptions,
    ) -> Self {
        let scenarios =
            if opts.scenarios.is_empty() { crate::measure::score::presets() } else { opts.scenarios.clone() };
        Self {
            label,
            model,
            goodput: opts.slos.as_ref().map(|s| s.goodput(&metrics)),
            scores: scenarios.iter().map(|s| s.score(&metrics)).collect(),
            prefill_fit: prefill::fit(&metrics),
            turns: None,
            rate_run: None,
            metrics,
        }
    }

    /// Pretty JSON for machines.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A readable table for terminals.
    pub fn to_table(&self) -> String {
        let m = &self.metrics;
        let mut out = String::new();
        if let Some(label) = &self.label {
            out.push_str(&format!("Run: {label}\n"));
        }
        if let Some(model) = &self.model {
            out.push_str(&format!("Model: {model}\n"));
        }
        out.push_str(&format!(
            "Requests: {} ({} completed, {} failed{})\n",
            m.requests,
            m.completed,
            m.failed,
            if m.failures.is_empty() {
                String::new()
            } else {
                let parts: Vec<String> = m.failures.iter().map(|(k, v)| format!("{v} {k}")).collect();
                format!(": {}", parts.join(", "))
            }
        ));
        if let Some(d) = m.duration_ms {
            out.push_str(&format!("Duration: {:.3} s\n", d / 1000.0));
        }
        out.push_str(&format!("Output tokens: {}\n", m.output_tokens));
        if let Some(t) = m.output_tokens_per_s {
            out.push_str(&format!("System output tokens/s: {t:.2}\n"));
        }
        if let Some(u) = m.user_output_tokens_per_s {
            out.push_str(&format!(
                "Per-request output tokens/s: median {:.2}, slowest {:.2}\n",
                u.median, u.min
            ));
        }
        out.push('\n');
        out.push_str(&format!(
            "{:<22} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            "metric (ms)", "mean", "median", "std", "P50", "P90", "P95", "P99"
        ));
        for r in LATENCY.iter().filter(|r| r.shown_for(m)) {
            let name = r.short;
            match (r.get)(m) {
                Some(s) => out.push_str(&format!(
                    "{:<22} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>10.2}\n",
                    name, s.mean, s.median, s.std, s.p50, s.p90, s.p95, s.p99
                )),
                None => out.push_str(&format!("{name:<22} {:>10}\n", "n/a")),
            }
        }
        out.push('\n');
        if let Some(j) = m.jitter {
            out.push_str(&format!(
                "Jitter: ITL std {:.2} ms, CV {:.2}, P99/P50 {:.2}\n",
                j.std_ms, j.cv, j.p99_over_p50
            ));
        }
        out.push_str(&format!(
            "Stalls (> {:.0} ms): {} in {} request(s), longest {:.0} ms\n",
            m.stalls.threshold_ms, m.stalls.count, m.stalls.requests_with_stalls, m.stalls.longest_ms
        ));
        out.push_str(&feel_lines(m));
        if let Some(early) = m.early_stamps.sentence() {
            out.push_str(&format!("{early}\n"));
        }
        if let Some(g) = &self.goodput {
            out.push_str(&format!(
                "Goodput ({}): {:.1}% ({} of {} requests meet every SLO)\n",
                g.slos,
                g.ratio * 100.0,
                g.good,
                g.total
            ));
            for s in &g.per_slo {
                out.push_str(&format!(
                    "  {} ≤ {} ms: {:.1}%\n",
                    s.slo.metric,
                    s.slo.threshold_ms,
                    s.ratio * 100.0
                ));
            }
        }
        if let Some(f) = &self.prefill_fit {
            out.push_str(&format!("\nPrefill\n  {}\n", f.describe()));
            out.push_str(&f.table());
        }
        if let Some(t) = &self.turns {
            out.push_str("\nConversation turns\n");
            out.push_str(&t.table());
        }
        if let Some(r) = &self.rate_run {
            out.push_str(&format!("\nRequest rate\n  {}\n", r.describe()));
            out.push_str(&r.table());
        }
        out.push_str("\nScenario scores\n");
        for s in &self.scores {
            out.push_str(&format!("  {}\n", s.explanation));
            for b in &s.breakdown {
                out.push_str(&format!("    - {}\n", b.explanation));
            }
        }
        out
    }
}

/// The lines of `analyze`'s table about how the streams felt.
pub fn feel_lines(m: &RunMetrics) -> String {
    let f = &m.feel;
    let mut out = String::new();
    let spread = |s: &crate::measure::stats::Summary| {
        format!("mean {:.2}, median {:.2}, worst {:.2}", s.mean, s.median, s.min)
    };
    if let Some(r) = &m.reasoning_ms {
        out.push_str(&format!(
            "Reasoning before the answer: median {:.0} ms, P95 {:.0} ms\n",
            r.median, r.p95
        ));
    }
    match (&m.input_tokens_per_s, m.system_input_tokens_per_s) {
        (Some(u), Some(sys)) => out.push_str(&format!(
            "Input tokens/s (prompt / TTFT): median {:.0} per request; system {sys:.0}\n",
            u.median
        )),
        _ => out.push_str("Input tokens/s: n/a (prompt lengths unknown)\n"),
    }
    if let Some(s) = &m.fluidity_index {
        out.push_str(&format!(
            "Fluidity-index (first token by {:.0} ms, then one every {:.0} ms): {}\n",
            f.fluidity_ttft_ms,
            f.fluidity_tbt_ms,
            spread(s)
        ));
    }
    if let Some(s) = &m.qoe {
        out.push_str(&format!(
            "QoE (reader expects the first token at {:.0} ms, reads {:.0} tokens/s): {}\n",
            f.qoe_ttft_ms,
            f.qoe_tokens_per_s,
            spread(s)
        ));
    }
    if let Some(a) = m.apdex_ttft {
        out.push_str(&format!("Apdex (TTFT, T = {:.0} ms): {a:.2}\n", f.apdex_ms));
    }
    out
}
