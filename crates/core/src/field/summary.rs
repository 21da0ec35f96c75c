//! Field data at a glance: a period's requests grouped by day, browser or
//! model, each group with its count, failures, and TTFT and first-paint
//! percentiles with their 95% confidence intervals
//! ([`crate::measure::stats::percentile_interval`]), and all of them over
//! time ([`super::timeline`]).
//!
//! Read from one [`FieldRow`] per request (its TTFT, first paint and
//! failure are defined there). Percentiles are numpy's linear ones, over
//! the requests that have the figure; a day is the UTC calendar day of the
//! send.

use serde::{Deserialize, Serialize};

pub use super::row::FieldRow;
use super::timeline::Timeline;
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
}

impl GroupBy {
    /// Every grouping.
    pub const ALL: [Self; 3] = [Self::Day, Self::Browser, Self::Model];

    /// Its name (`day`, `browser`, `model`), as `?by=` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Browser => "browser",
            Self::Model => "model",
        }
    }

    /// From its [`GroupBy::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.name() == name)
    }

    fn key(self, r: &FieldRow) -> String {
        let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "(not said)".into());
        match self {
            Self::Day => crate::workload::read::iso_ms((r.at_unix_ms / DAY_MS).floor() * DAY_MS)
                .map_or_else(|| "(no date)".into(), |d| d.chars().take(10).collect()),
            Self::Browser => or_unknown(&r.browser),
            Self::Model => or_unknown(&r.model),
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
    /// Requests with the figure.
    pub n: usize,
    /// P50.
    pub p50: Estimate,
    /// P90.
    pub p90: Estimate,
    /// P99.
    pub p99: Estimate,
}

fn percentiles(mut xs: Vec<f64>) -> Option<Percentiles> {
    xs.retain(|x| x.is_finite());
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let at = |p| Estimate { value: percentile_of_sorted(&xs, p), interval: percentile_interval(&xs, p) };
    Some(Percentiles { n: xs.len(), p50: at(50.0), p90: at(90.0), p99: at(99.0) })
}

/// One group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldGroup {
    /// The day, browser or model.
    pub key: String,
    /// Requests.
    pub requests: usize,
    /// Failed or stopped.
    pub failed: usize,
    /// TTFT.
    pub ttft: Option<Percentiles>,
    /// First paint.
    pub first_paint: Option<Percentiles>,
}

/// A period's requests, grouped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldSummary {
    /// How.
    pub by: GroupBy,
    /// Requests in all.
    pub requests: usize,
    /// The groups, by key.
    pub groups: Vec<FieldGroup>,
    /// All of them over time ([`Timeline`]).
    #[serde(default)]
    pub timeline: Timeline,
}

impl FieldSummary {
    /// Groups `rows` `by`.
    pub fn of(rows: &[FieldRow], by: GroupBy) -> Self {
        let mut groups: std::collections::BTreeMap<String, Vec<&FieldRow>> = Default::default();
        for r in rows {
            groups.entry(by.key(r)).or_default().push(r);
        }
        let groups = groups
            .into_iter()
            .map(|(key, rs)| FieldGroup {
                key,
                requests: rs.len(),
                failed: rs.iter().filter(|r| r.failed).count(),
                ttft: percentiles(rs.iter().filter_map(|r| r.ttft_ms).collect()),
                first_paint: percentiles(rs.iter().filter_map(|r| r.first_paint_ms).collect()),
            })
            .collect();
        Self { by, requests: rows.len(), groups, timeline: Timeline::of(rows) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(day: f64, browser: &str, ttft: f64, paint: Option<f64>, failed: bool) -> FieldRow {
        FieldRow {
            at_unix_ms: 1_796_472_000_000.0 + day * DAY_MS + 3_600_000.0,
            browser: Some(browser.into()),
            model: None,
            ttft_ms: Some(ttft),
            first_paint_ms: paint,
            failed,
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
        let ttft = day1.ttft.as_ref().unwrap();
        assert_eq!(ttft.n, 500);
        assert!((ttft.p90.value - 450.1).abs() < 1e-9, "{}", ttft.p90.value);
        let (lo, hi) = ttft.p90.interval.unwrap();
        assert!(lo < 450.1 && hi > 450.1 && hi - lo < 40.0, "{lo}..{hi}");
        assert!(ttft.p99.interval.is_some(), "500 requests bound a P99");
        assert_eq!(day1.first_paint.as_ref().unwrap().p50.value, 260.5);
        let day2 = &by_day.groups[1];
        assert_eq!((day2.requests, day2.failed), (20, 1));
        assert!(day2.first_paint.is_none(), "no paints, no first paint");
        assert!(day2.ttft.as_ref().unwrap().p99.interval.is_none(), "20 requests cannot bound a P99");
        let by_browser = FieldSummary::of(&rows, GroupBy::Browser);
        assert_eq!(
            by_browser.groups.iter().map(|g| (g.key.as_str(), g.requests)).collect::<Vec<_>>(),
            [("Chrome", 20), ("Firefox", 500)]
        );
        assert_eq!(FieldSummary::of(&rows, GroupBy::Model).groups[0].key, "(not said)");
        assert_eq!(GroupBy::from_name("week"), None);
        assert!(GroupBy::ALL.into_iter().all(|g| GroupBy::from_name(g.name()) == Some(g)));
    }
}
