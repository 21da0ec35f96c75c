//! What the collector keeps beside each request so a million of them
//! summarise without reading their chunks ([`super::summary`],
//! [`super::timeline`]). Each figure is the lab's own, from
//! [`RequestMetrics`] with the default settings (a stall is a gap over
//! [`crate::measure::metrics::DEFAULT_STALL_MS`]) and, like every statistic
//! of the lab, only of a completed request (a failed or stopped one counts
//! as failed and has no figures), so a summary and the same period loaded
//! as a run never disagree:
//! - **TTFT**, **first paint** (absent for spans without paints), the
//!   request's median **paint lag** (first paint of each chunk − its
//!   arrival) and its **QoE**;
//! - **longest paint gap**: the longest wait between two paints of new
//!   text, from the first paint to the last (what a reader sees as the
//!   text stopping; absent with fewer than two paints);
//! - **stalls**: the stream's gaps between chunks over the stall threshold;
//! - **failed**: the request has a failure (an abort included);
//! - **sample rate**: the share of requests its page reported (a page
//!   sampling at 0.1 sends one in ten): the row stands for
//!   [`FieldRow::weight`] requests, so counts and rates are estimated by
//!   summing weights, while percentiles stay over the recorded requests.

use serde::{Deserialize, Serialize};

use super::span::FieldSpan;
use crate::measure::metrics::{MetricsConfig, RequestMetrics};

/// What the collector keeps of a request for summaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldRow {
    /// When it was sent (ms since 1970).
    pub at_unix_ms: f64,
    /// The browser's name.
    pub browser: Option<String>,
    /// The model asked for.
    pub model: Option<String>,
    /// The site it was sent for.
    #[serde(default)]
    pub site: Option<String>,
    /// Time to first token (ms).
    pub ttft_ms: Option<f64>,
    /// First paint (ms).
    pub first_paint_ms: Option<f64>,
    /// Median paint lag (ms).
    #[serde(default)]
    pub paint_lag_ms: Option<f64>,
    /// Longest gap between two paints of new text (ms).
    #[serde(default)]
    pub paint_gap_ms: Option<f64>,
    /// Stalls in the stream.
    #[serde(default)]
    pub stalls: u32,
    /// QoE (0–1).
    #[serde(default)]
    pub qoe: Option<f64>,
    /// It failed (or was stopped).
    pub failed: bool,
    /// The share of requests its page reported (0–1]; `None`: all of them.
    #[serde(default)]
    pub sample_rate: Option<f64>,
}

impl FieldRow {
    /// The row of a span.
    pub fn of(s: &FieldSpan) -> Self {
        let r = &s.request;
        let m = RequestMetrics::of(0, r, &MetricsConfig::default());
        let done = |x: Option<f64>| x.filter(|_| m.completed);
        let mut paints: Vec<f64> =
            r.chunks.iter().filter_map(|c| c.painted_ms).filter(|t| t.is_finite()).collect();
        paints.sort_by(f64::total_cmp);
        Self {
            at_unix_ms: s.at_unix_ms,
            browser: s.browser.as_ref().map(|b| b.0.clone()),
            model: s.model.clone(),
            site: s.site.clone(),
            ttft_ms: done(m.ttft_ms),
            first_paint_ms: done(m.ttfp_ms),
            paint_lag_ms: done(m.paint_lag_ms.map(|l| l.median)),
            paint_gap_ms: done(paints.windows(2).map(|w| w[1] - w[0]).reduce(f64::max)),
            stalls: if m.completed { u32::try_from(m.stalls.len()).unwrap_or(u32::MAX) } else { 0 },
            qoe: done(m.qoe),
            failed: r.failure.is_some(),
            sample_rate: s.sample_rate,
        }
    }

    /// How many requests it stands for: 1 / its sample rate (1 when the
    /// page reported every request, or said a rate outside (0, 1]).
    pub fn weight(&self) -> f64 {
        self.sample_rate.filter(|r| *r > 0.0 && *r <= 1.0).map_or(1.0, |r| 1.0 / r)
    }
}

/// Requests `rows` stand for ([`FieldRow::weight`]).
pub fn estimated<'a>(rows: impl IntoIterator<Item = &'a FieldRow>) -> f64 {
    rows.into_iter().map(FieldRow::weight).sum()
}
