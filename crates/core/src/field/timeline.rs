//! Requests over time: a period of field data cut into equal buckets of
//! send time, each with its requests, failures and TTFT P50/P90, so a
//! deploy or a busy hour shows as a change in the bars.
//!
//! The bucket is the shortest of [`BUCKETS_MS`] that cuts the span from the
//! first to the last send into at most [`MAX_BUCKETS`] (a longer span:
//! whole weeks, as many as it takes). Buckets start at multiples of their
//! width since 1970 (UTC: an hour starts at :00, a day at midnight UTC),
//! and empty ones between two requests are kept (a quiet hour is a bar of
//! zero, not a missing one). Percentiles are numpy's linear ones over the
//! bucket's requests with a TTFT.

use serde::{Deserialize, Serialize};

use super::row::FieldRow;
use crate::measure::stats::percentile_of_sorted;

/// The bucket widths offered (ms): 1 s, 10 s, 1 min, 5 min, 15 min, 1 h,
/// 6 h, 1 day, 1 week.
pub const BUCKETS_MS: [f64; 9] =
    [1e3, 1e4, 6e4, 3e5, 9e5, 3_600_000.0, 21_600_000.0, 86_400_000.0, 604_800_000.0];

/// Most buckets a timeline has, unless its span exceeds that many weeks: as
/// many bars as a chart shows legibly.
pub const MAX_BUCKETS: usize = 60;

/// One bucket of send time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeBucket {
    /// Its start (ms since 1970).
    pub start_unix_ms: f64,
    /// Requests sent in it (recorded).
    pub requests: usize,
    /// Requests they stand for ([`FieldRow::weight`]).
    #[serde(default)]
    pub estimated: f64,
    /// Of those, failed or stopped.
    pub failed: usize,
    /// Their TTFT P50 (ms), when any has one.
    pub ttft_p50_ms: Option<f64>,
    /// Their TTFT P90 (ms).
    pub ttft_p90_ms: Option<f64>,
}

/// A period's requests over time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Each bucket's width (ms).
    pub bucket_ms: f64,
    /// The buckets from the first send's to the last's, in time order.
    pub buckets: Vec<TimeBucket>,
}

impl Timeline {
    /// The timeline of `rows` (any order); empty without rows.
    pub fn of(rows: &[FieldRow]) -> Self {
        let sends = || rows.iter().map(|r| r.at_unix_ms).filter(|t| t.is_finite());
        let (Some(first), Some(last)) = (sends().reduce(f64::min), sends().reduce(f64::max)) else {
            return Self::default();
        };
        let count = |w: f64| ((last / w).floor() - (first / w).floor()) as usize + 1;
        let week = BUCKETS_MS[BUCKETS_MS.len() - 1];
        let bucket_ms = BUCKETS_MS.into_iter().find(|w| count(*w) <= MAX_BUCKETS).unwrap_or_else(|| {
            // Whole weeks, as few as keep the bars within the limit.
            week * ((last - first) / week / (MAX_BUCKETS - 2) as f64).ceil().max(1.0)
        });
        let start = (first / bucket_ms).floor() * bucket_ms;
        let mut ttfts: Vec<Vec<f64>> = vec![Vec::new(); count(bucket_ms).max(1)];
        let mut buckets: Vec<TimeBucket> = (0..ttfts.len())
            .map(|i| TimeBucket {
                start_unix_ms: start + i as f64 * bucket_ms,
                requests: 0,
                estimated: 0.0,
                failed: 0,
                ttft_p50_ms: None,
                ttft_p90_ms: None,
            })
            .collect();
        for r in rows.iter().filter(|r| r.at_unix_ms.is_finite()) {
            let i = (((r.at_unix_ms - start) / bucket_ms).floor() as usize).min(buckets.len() - 1);
            buckets[i].requests += 1;
            buckets[i].estimated += r.weight();
            buckets[i].failed += usize::from(r.failed);
            ttfts[i].extend(r.figure("ttft"));
        }
        for (b, mut xs) in buckets.iter_mut().zip(ttfts) {
            if !xs.is_empty() {
                xs.sort_by(f64::total_cmp);
                b.ttft_p50_ms = Some(percentile_of_sorted(&xs, 50.0));
                b.ttft_p90_ms = Some(percentile_of_sorted(&xs, 90.0));
            }
        }
        Self { bucket_ms, buckets }
    }

    /// The bucket's width for people: `1 s`, `15 min`, `1 h`, `1 day`, `2 weeks`.
    pub fn width(&self) -> String {
        let w = self.bucket_ms;
        let (n, unit) =
            [(604_800_000.0, "week"), (86_400_000.0, "day"), (3_600_000.0, "h"), (60_000.0, "min")]
                .into_iter()
                .find(|(u, _)| w >= *u && (w / u).fract() == 0.0)
                .map_or((w / 1000.0, "s"), |(u, name)| (w / u, name));
        let plural = if n != 1.0 && unit.len() > 3 { "s" } else { "" };
        format!("{n} {unit}{plural}")
    }

    /// A bucket's start as people read it at this width (UTC): the date
    /// for days and weeks, `MM-DD HH:MM` for minutes and hours,
    /// `HH:MM:SS` for seconds.
    pub fn label(&self, start_unix_ms: f64) -> String {
        let iso = crate::trace::dates::iso_ms(start_unix_ms).unwrap_or_default();
        let (date, time) = iso.split_once('T').unwrap_or((&iso, ""));
        if self.bucket_ms >= 86_400_000.0 {
            date.to_string()
        } else if self.bucket_ms >= 60_000.0 {
            format!("{} {}", date.get(5..).unwrap_or(date), time.get(..5).unwrap_or(time))
        } else {
            time.get(..8).unwrap_or(time).to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-06 00:00 UTC.
    const DAY0: f64 = 1_796_515_200_000.0;

    fn row(at: f64, ttft: Option<f64>, failed: bool) -> FieldRow {
        let mut figures = super::super::row::Figures::default();
        figures.set("ttft", ttft);
        FieldRow {
            at_unix_ms: at,
            browser: None,
            model: None,
            site: None,
            figures,
            stalls: 0,
            qoe: None,
            failed,
            sample_rate: None,
        }
    }

    #[test]
    fn a_minute_of_requests_is_cut_in_seconds_with_empty_buckets_kept() {
        let mut rows: Vec<FieldRow> = (0..10)
            .map(|i| row(DAY0 + 500.0 + f64::from(i) * 50.0, Some(f64::from(i) * 10.0), false))
            .collect();
        rows.push(row(DAY0 + 3_200.0, None, true));
        let t = Timeline::of(&rows);
        assert_eq!(t.bucket_ms, 1000.0);
        assert_eq!(t.buckets.iter().map(|b| b.requests).collect::<Vec<_>>(), [10, 0, 0, 1]);
        assert_eq!(t.buckets[0].start_unix_ms, DAY0);
        assert_eq!(t.buckets[0].ttft_p50_ms, Some(45.0));
        assert_eq!(t.buckets[0].ttft_p90_ms, Some(81.0));
        assert_eq!((t.buckets[3].failed, t.buckets[3].ttft_p50_ms), (1, None));
        assert_eq!(t.label(t.buckets[3].start_unix_ms), "00:00:03");
        assert_eq!(t.width(), "1 s");
        assert_eq!(
            t.buckets.iter().map(|b| b.requests).sum::<usize>(),
            rows.len(),
            "every request in one bucket"
        );
    }

    #[test]
    fn longer_spans_take_wider_buckets_aligned_to_utc() {
        // 51 hours after midnight: 52 hourly buckets (6 h would be fewer, but 1 h fits).
        let rows =
            [row(DAY0 + 1_800_000.0, Some(1.0), false), row(DAY0 + 51.0 * 3_600_000.0, Some(2.0), false)];
        let t = Timeline::of(&rows);
        assert_eq!(t.bucket_ms, 3_600_000.0);
        assert_eq!(t.buckets.len(), 52);
        assert_eq!(t.buckets[0].start_unix_ms, DAY0, "an hour starts at :00");
        assert_eq!(t.label(t.buckets[27].start_unix_ms), "12-07 03:00");
        assert_eq!(t.width(), "1 h");
        // A month: days.
        let month =
            [row(DAY0 + 7.0 * 3_600_000.0, None, false), row(DAY0 + 30.0 * 86_400_000.0, None, false)];
        let t = Timeline::of(&month);
        assert_eq!((t.bucket_ms, t.buckets.len()), (86_400_000.0, 31));
        assert_eq!(t.label(t.buckets[1].start_unix_ms), "2026-12-07");
        assert_eq!(t.width(), "1 day");
        // Three years: whole weeks, within the limit.
        let years = [row(DAY0, None, false), row(DAY0 + 3.0 * 365.0 * 86_400_000.0, None, false)];
        let t = Timeline::of(&years);
        assert_eq!(t.bucket_ms % 604_800_000.0, 0.0);
        assert_eq!(t.width(), format!("{} weeks", t.bucket_ms / 604_800_000.0));
        assert_eq!(Timeline { bucket_ms: 900_000.0, buckets: vec![] }.width(), "15 min");
        assert!(t.buckets.len() <= MAX_BUCKETS, "{}", t.buckets.len());
        assert_eq!(t.buckets.iter().map(|b| b.requests).sum::<usize>(), 2);
    }

    #[test]
    fn no_rows_no_buckets() {
        assert!(Timeline::of(&[]).buckets.is_empty());
        assert!(Timeline::of(&[row(f64::NAN, None, false)]).buckets.is_empty());
    }
}
