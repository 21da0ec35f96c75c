//! What the collector keeps beside each request so a million of them
//! summarise without reading their chunks ([`super::summary`],
//! [`super::timeline`]). Each figure is the lab's own, from
//! [`RequestMetrics`] with the default settings (a stall is a gap over
//! [`crate::measure::metrics::DEFAULT_STALL_MS`]) and, like every statistic
//! of the lab, only of a completed request (a failed or stopped one counts
//! as failed and has no figures), so a summary and the same period loaded
//! as a run never disagree:
//! - **figures**: every latency row of [`registry::LATENCY`], one value
//!   per request ([`registry::LatencyRow::request`]: TTFT, first paint, the
//!   median paint lag, the longest paint gap, …), kept by the rows' ids
//!   ([`Figures::to_text`]), so a row added to the registry is kept and
//!   summarised with no other change;
//! - **stalls**: the stream's gaps between chunks over the stall threshold;
//! - **QoE** ([`crate::measure::feel`]);
//! - **failed**: the request has a failure (an abort included);
//! - **sample rate**: the share of requests its page reported (a page
//!   sampling at 0.1 sends one in ten): the row stands for
//!   [`FieldRow::weight`] requests, so counts and rates are estimated by
//!   summing weights, while percentiles stay over the recorded requests.

use serde::{Deserialize, Serialize};

use super::span::FieldSpan;
use crate::measure::metrics::{MetricsConfig, RequestMetrics};
use crate::measure::registry::{self, LATENCY};

/// One value per latency row of [`LATENCY`] (ms), in its order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures([Option<f64>; LATENCY.len()]);

impl Figures {
    /// Every row's [`registry::LatencyRow::request`] of `m`.
    pub fn of(m: &RequestMetrics) -> Self {
        Self(LATENCY.map(|r| (r.request)(m).filter(|v| v.is_finite())))
    }

    /// The figure of row `id`.
    pub fn get(&self, id: &str) -> Option<f64> {
        self.0[registry::index(id)?]
    }

    /// Sets the figure of row `id`; false when no row has that id.
    pub fn set(&mut self, id: &str, value: Option<f64>) -> bool {
        let Some(i) = registry::index(id) else { return false };
        self.0[i] = value.filter(|v| v.is_finite());
        true
    }

    /// The figure of the `i`th row of [`LATENCY`].
    pub fn at(&self, i: usize) -> Option<f64> {
        self.0.get(i).copied().flatten()
    }

    /// Each row's figure with the row, in the registry's order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static registry::LatencyRow, Option<f64>)> + '_ {
        LATENCY.iter().zip(self.0.iter().copied())
    }

    /// As the collector stores them: `id=value` of each present figure,
    /// joined by `;` (`ttft=212.5;ttfp=230.25`), each value the shortest
    /// text that reads back as the same `f64`.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (r, v) in self.iter() {
            if let Some(v) = v {
                if !out.is_empty() {
                    out.push(';');
                }
                out.push_str(&format!("{}={v:?}", r.id));
            }
        }
        out
    }

    /// Read back from [`Figures::to_text`], by the rows' ids: an empty
    /// value is absent, an id no row has (one since removed) is skipped.
    pub fn from_text(text: &str) -> Result<Self, String> {
        let mut f = Self::default();
        for pair in text.split(';').filter(|p| !p.is_empty()) {
            let (id, value) = pair.split_once('=').ok_or_else(|| format!("`{pair}` is not id=value"))?;
            if value.is_empty() {
                continue;
            }
            let v: f64 = value.parse().map_err(|_| format!("{id}: `{value}` is not a number"))?;
            f.set(id, Some(v));
        }
        Ok(f)
    }
}

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
    /// Its latency figures, by row of [`LATENCY`].
    #[serde(default)]
    pub figures: Figures,
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
        Self {
            at_unix_ms: s.at_unix_ms,
            browser: s.browser.as_ref().map(|b| b.0.clone()),
            model: s.model.clone(),
            site: s.site.clone(),
            figures: if m.completed { Figures::of(&m) } else { Figures::default() },
            stalls: if m.completed { u32::try_from(m.stalls.len()).unwrap_or(u32::MAX) } else { 0 },
            qoe: m.qoe.filter(|_| m.completed),
            failed: r.failure.is_some(),
            sample_rate: s.sample_rate,
        }
    }

    /// The figure of latency row `id` ([`Figures::get`]).
    pub fn figure(&self, id: &str) -> Option<f64> {
        self.figures.get(id)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::summary::{FieldSummary, GroupBy};
    use crate::replay::profile::Profile;

    /// A request of every kind of figure: tool calls, and every token chunk
    /// painted (so the rows measured only sometimes have data too).
    fn every_figure() -> FieldSpan {
        let profile: Profile = "ttft=120,tpot=8,tokens=12,tool_call=search:6".parse().unwrap();
        let mut request = profile.to_trace(1, 10).requests.remove(0);
        for (i, c) in request.chunks.iter_mut().enumerate() {
            c.painted_ms = Some(c.arrived_ms + 6.0 + i as f64);
        }
        FieldSpan::recorded(request, 1.8e12, Some("shop"))
    }

    /// Issue 47: the Field summary renders the registry, so a latency row
    /// added there is kept, read back by its id and summarised with no
    /// other change; this fails for a row whose request figure is missing.
    #[test]
    fn every_latency_row_is_kept_read_back_by_id_and_summarised() {
        let row = FieldRow::of(&every_figure());
        let missing: Vec<&str> = row.figures.iter().filter(|(_, v)| v.is_none()).map(|(r, _)| r.id).collect();
        assert!(missing.is_empty(), "no value per request for {missing:?}");
        let text = row.figures.to_text();
        assert_eq!(text.split(';').count(), LATENCY.len(), "{text}");
        assert_eq!(Figures::from_text(&text).unwrap(), row.figures, "read back exactly");
        let summary = FieldSummary::of(std::slice::from_ref(&row), GroupBy::Site);
        let ids: Vec<&str> = summary.groups[0].figures.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, LATENCY.iter().map(|r| r.id).collect::<Vec<_>>());
    }

    #[test]
    fn stored_figures_are_read_by_name() {
        // Out of order, a row since removed, an empty value, an exact value.
        let tricky = 254.2550000000001_f64;
        let f = Figures::from_text(&format!("paint_gap=560;gone=3;ttfp=;ttft={tricky:?}")).unwrap();
        assert_eq!(
            (f.get("ttft").map(f64::to_bits), f.get("paint_gap")),
            (Some(tricky.to_bits()), Some(560.0))
        );
        assert_eq!((f.get("ttfp"), f.get("gone")), (None, None));
        assert_eq!(Figures::from_text("").unwrap(), Figures::default());
        assert!(Figures::from_text("ttft=fast").unwrap_err().contains("ttft: `fast` is not a number"));
        assert!(Figures::from_text("ttft").unwrap_err().contains("not id=value"));
        let mut g = Figures::default();
        assert!(g.set("e2el", Some(1e-7)) && !g.set("nope", Some(1.0)));
        assert_eq!(g.to_text(), "e2el=1e-7");
    }
}
