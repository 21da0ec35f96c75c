//! Field data at a glance: a period's requests grouped by day, browser,
//! model or site, each group with its count, failures and stalled requests, the
//! P50/P90/P99 of each latency row of [`crate::measure::registry::LATENCY`]
//! the requests have (TTFT, first paint, paint lag, longest paint gap, …:
//! one value per request, [`crate::measure::registry::LatencyRow::request`])
//! and QoE's P50 and P10, each with its 95% confidence interval
//! ([`crate::measure::stats::percentile_interval`]), and all of them over
//! time ([`super::timeline`]); each group's scenario score when asked for
//! (computed in `field::scores`, which builds on this module).
//!
//! Read from one [`FieldRow`] per request (its TTFT, first paint and
//! failure are defined there). Percentiles are numpy's linear ones, over
//! the requests that have the figure; a day is the UTC calendar day of the
//! send. Pages that sample (`sampleRate`) report some of their requests:
//! each count has its estimate beside it (the requests the recorded ones
//! stand for, [`super::row::estimated`]), and a view says which it shows.

use serde::{Deserialize, Serialize};

pub use super::row::FieldRow;
use super::timeline::Timeline;
use crate::measure::registry::LATENCY;
use crate::measure::stats::{percentile_interval, percentile_of_sorted};

/// Milliseconds in a day.
const DAY_MS: f64 = 86_400_000.0;

/// How the requests are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// UTC day of the send (`YYYY-MM-DD`).
    Day,
    /// Browser name.
    Browser,
    /// Model.
    Model,
    /// The site (several sites summarised at once).
    Site,
}

impl GroupBy {
    /// Every grouping.
    pub const ALL: [Self; 4] = [Self::Day, Self::Browser, Self::Model, Self::Site];

    /// Its name (`day`, `browser`, `model`, `site`), as `?by=` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Browser => "browser",
            Self::Model => "model",
            Self::Site => "site",
        }
    }

    /// From its [`GroupBy::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.name() == name)
    }

    fn key(self, r: &FieldRow) -> String {
        self.key_of(r.at_unix_ms, [&r.browser, &r.model, &r.site].map(Option::as_deref))
    }

    /// The group of a request sent at `at_unix_ms` from `[browser, model,
    /// site]` (a stored row's or a span's).
    pub(super) fn key_of(self, at_unix_ms: f64, [browser, model, site]: [Option<&str>; 3]) -> String {
        let or_unknown = |v: Option<&str>| v.unwrap_or("(not said)").to_string();
        match self {
            Self::Day => crate::trace::dates::iso_ms((at_unix_ms / DAY_MS).floor() * DAY_MS)
                .map_or_else(|| "(no date)".into(), |d| d.chars().take(10).collect()),
            Self::Browser => or_unknown(browser),
            Self::Model => or_unknown(model),
            Self::Site => or_unknown(site),
        }
    }
}

/// A percentile and its 95% interval (`None` when too few requests).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The percentile (ms).
    pub value: f64,
    /// Its 95% confidence interval (ms).
    pub interval: Option<(f64, f64)>,
}

/// P50, P90 and P99 of one figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// The latency row's id (`crate::measure::registry::LatencyRow::id`).
    pub id: String,
    /// Requests with the figure.
    pub n: usize,
    /// P50.
    pub p50: Estimate,
    /// P90.
    pub p90: Estimate,
    /// P99.
    pub p99: Estimate,
}

/// `xs`' finite values, ascending; `None` when there are none.
fn sorted(mut xs: Vec<f64>) -> Option<Vec<f64>> {
    xs.retain(|x| x.is_finite());
    xs.sort_by(f64::total_cmp);
    (!xs.is_empty()).then_some(xs)
}

/// Percentile `p` of ascending `xs`, with its interval.
fn estimate(xs: &[f64], p: f64) -> Estimate {
    Estimate { value: percentile_of_sorted(xs, p), interval: percentile_interval(xs, p) }
}

fn percentiles(id: &str, xs: Vec<f64>) -> Option<Percentiles> {
    let xs = sorted(xs)?;
    Some(Percentiles {
        id: id.to_string(),
        n: xs.len(),
        p50: estimate(&xs, 50.0),
        p90: estimate(&xs, 90.0),
        p99: estimate(&xs, 99.0),
    })
}

/// QoE's median and its low tail (more is better, so the 10th percentile
/// is the worse tenth of the requests), each with its 95% interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// Requests with a QoE.
    pub n: usize,
    /// P50.
    pub p50: Estimate,
    /// P10.
    pub p10: Estimate,
}

/// One group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldGroup {
    /// The day, browser or model.
    pub key: String,
    /// Requests recorded.
    pub requests: usize,
    /// Requests they stand for, the pages' sampling counted back (equal to
    /// `requests` when every page reported every request).
    #[serde(default)]
    pub estimated: f64,
    /// Failed or stopped.
    pub failed: usize,
    /// Requests with at least one stall.
    #[serde(default)]
    pub stalled: usize,
    /// The percentiles of each latency row the group's requests have, in
    /// the registry's order, each with the row's id (`ttft`, `ttfp`, …).
    #[serde(default)]
    pub figures: Vec<Percentiles>,
    /// QoE.
    #[serde(default)]
    pub qoe: Option<Quality>,
    /// The scenario score over the group's sampled requests, when asked
    /// for (`field::scores`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<GroupScore>,
}

impl FieldGroup {
    /// The percentiles of latency row `id`.
    pub fn figure(&self, id: &str) -> Option<&Percentiles> {
        self.figures.iter().find(|p| p.id == id)
    }

    fn of(key: String, rs: &[&FieldRow]) -> Self {
        let figures = LATENCY
            .iter()
            .enumerate()
            .filter_map(|(i, row)| percentiles(row.id, rs.iter().filter_map(|r| r.figures.at(i)).collect()))
            .collect();
        let q = sorted(rs.iter().filter_map(|r| r.qoe).collect());
        Self {
            key,
            requests: rs.len(),
            estimated: super::row::estimated(rs.iter().copied()),
            failed: rs.iter().filter(|r| r.failed).count(),
            stalled: rs.iter().filter(|r| r.stalls > 0).count(),
            figures,
            qoe: q.map(|q| Quality { n: q.len(), p50: estimate(&q, 50.0), p10: estimate(&q, 10.0) }),
            score: None,
        }
    }
}

/// A group's scenario score (computed in `field::scores`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupScore {
    /// 0–100, `None` when none of the group's requests were sampled or
    /// the scenario measures none of what they have.
    pub score: Option<f64>,
    /// The group's requests in the sample.
    pub sampled: usize,
}

/// A period's requests, grouped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldSummary {
    /// How.
    pub by: GroupBy,
    /// Requests in all.
    pub requests: usize,
    /// Requests they stand for ([`FieldGroup::estimated`]).
    #[serde(default)]
    pub estimated: f64,
    /// The groups, by key.
    pub groups: Vec<FieldGroup>,
    /// All of them over time ([`Timeline`]).
    #[serde(default)]
    pub timeline: Timeline,
    /// The scenario the groups are scored against, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
}

impl FieldSummary {
    /// Groups `rows` `by`.
    pub fn of(rows: &[FieldRow], by: GroupBy) -> Self {
        let mut groups: std::collections::BTreeMap<String, Vec<&FieldRow>> = Default::default();
        for r in rows {
            groups.entry(by.key(r)).or_default().push(r);
        }
        let groups = groups.into_iter().map(|(key, rs)| FieldGroup::of(key, &rs)).collect();
        Self {
            by,
            requests: rows.len(),
            estimated: super::row::estimated(rows),
            groups,
            timeline: Timeline::of(rows),
            scenario: None,
        }
    }

    /// True when some page sampled (the estimates differ from the counts).
    pub fn sampled(&self) -> bool {
        (self.estimated - self.requests as f64).abs() > 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(day: f64, browser: &str, ttft: f64, paint: Option<f64>, failed: bool) -> FieldRow {
        let mut figures = super::super::row::Figures::default();
        figures.set("ttft", Some(ttft));
        figures.set("ttfp", paint);
        figures.set("paint_lag", paint.map(|p| p - ttft));
        FieldRow {
            at_unix_ms: 1_796_472_000_000.0 + day * DAY_MS + 3_600_000.0,
            browser: Some(browser.into()),
            model: None,
            site: Some(if failed { "b".into() } else { "a".into() }),
            figures,
            stalls: u32::from(failed),
            qoe: Some(ttft / 1000.0),
            failed,
            sample_rate: None,
        }
    }

    #[test]
    fn groups_by_day_and_browser_with_percentiles_and_intervals() {
        let mut rows: Vec<FieldRow> =
            (1..=500).map(|i| row(0.0, "Firefox", f64::from(i), Some(f64::from(i) + 10.0), false)).collect();
        rows.extend((1..=20).map(|i| row(1.0, "Chrome", 1000.0 + f64::from(i), None, i == 1)));
        let by_day = FieldSummary::of(&rows, GroupBy::Day);
        assert_eq!(by_day.requests, 520);
        let hours = &by_day.timeline;
        assert_eq!((hours.bucket_ms, hours.buckets.len()), (3_600_000.0, 25), "a day and an hour, hourly");
        assert_eq!((hours.buckets[0].requests, hours.buckets[24].requests), (500, 20));
        let keys: Vec<&str> = by_day.groups.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys, ["2026-12-05", "2026-12-06"]);
        let day1 = &by_day.groups[0];
        let ttft = day1.figure("ttft").unwrap();
        assert_eq!(ttft.n, 500);
        assert!((ttft.p90.value - 450.1).abs() < 1e-9, "{}", ttft.p90.value);
        let (lo, hi) = ttft.p90.interval.unwrap();
        assert!(lo < 450.1 && hi > 450.1 && hi - lo < 40.0, "{lo}..{hi}");
        assert!(ttft.p99.interval.is_some(), "500 requests bound a P99");
        assert_eq!(day1.figure("ttfp").unwrap().p50.value, 260.5);
        assert_eq!(day1.figure("paint_lag").unwrap().p50.value, 10.0);
        assert!(day1.figure("paint_gap").is_none(), "no gaps given");
        assert_eq!(day1.figures.len(), 3, "only the figures the requests have");
        let qoe = day1.qoe.as_ref().unwrap();
        assert_eq!(qoe.n, 500);
        assert!(qoe.p10.value < qoe.p50.value && qoe.p10.interval.is_some(), "the low tail");
        let day2 = &by_day.groups[1];
        assert_eq!((day2.requests, day2.failed, day2.stalled), (20, 1, 1));
        assert!(day2.figure("ttfp").is_none(), "no paints, no first paint");
        assert!(day2.figure("ttft").unwrap().p99.interval.is_none(), "20 requests cannot bound a P99");
        let by_browser = FieldSummary::of(&rows, GroupBy::Browser);
        assert_eq!(
            by_browser.groups.iter().map(|g| (g.key.as_str(), g.requests)).collect::<Vec<_>>(),
            [("Chrome", 20), ("Firefox", 500)]
        );
        assert_eq!(FieldSummary::of(&rows, GroupBy::Model).groups[0].key, "(not said)");
        let by_site = FieldSummary::of(&rows, GroupBy::Site);
        assert_eq!(
            by_site.groups.iter().map(|g| (g.key.as_str(), g.requests)).collect::<Vec<_>>(),
            [("a", 519), ("b", 1)]
        );
        assert_eq!(GroupBy::from_name("week"), None);
        assert!(GroupBy::ALL.into_iter().all(|g| GroupBy::from_name(g.name()) == Some(g)));
    }
}
