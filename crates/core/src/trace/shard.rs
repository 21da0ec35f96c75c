//! The clocks of a run's shards (`latency-lab run --shard I/N --start-at T`
//! on several machines). Every shard puts its 0 at the same wall-clock
//! instant `T`, so their requests can be merged onto one clock; a shard
//! whose 0 is elsewhere — it started after `T`, or was given another
//! `--start-at` — would shift all its requests against the others'.
//!
//! A shard records where its 0 really is (`meta.clock_epoch_ms`, Unix ms),
//! where it was asked to be (`meta.start_at_ms`) and which shard it is
//! (`meta.shard`). [`check`] compares them before a merge and names the
//! shard that disagrees, with the figures.

use serde::{Deserialize, Serialize};

use super::TraceMeta;

/// How far two shards' clocks (or a shard's clock and its `--start-at`) may
/// differ and still be one run's clock (ms).
///
/// Why 2 ms: a shard that starts on time puts its 0 at `--start-at`
/// exactly (the runner sleeps towards that instant rather than measuring
/// it; the wall clocks of machines kept by NTP agree to about a
/// millisecond), so shards of one run agree to well under a millisecond
/// and any larger difference is a shard that started late. The runner's
/// own send lateness, which the trace records per request, stays under
/// 2 ms at P99 at its rated 500 streams per 2 cores (0.16–0.17 ms measured;
/// BENCHMARKS.md, "The open-loop runner"), and README's sizing advice adds
/// shards when it grows past a few ms. A start offset up to that bound is
/// no larger than the lateness a healthy shard already shows; past it, the
/// offset moves every request of the shard more than the runner's own
/// precision and the merged run's arrival times are no longer the
/// workload's.
pub const CLOCK_TOLERANCE_MS: f64 = 2.0;

/// One shard of a run: `I/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardId {
    /// This shard, 0-based.
    pub index: u64,
    /// How many shards the run has.
    pub count: u64,
}

impl std::fmt::Display for ShardId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How much later than its `--start-at` a run put its 0 (ms, 0 when on
/// time), when it says both.
pub fn late_start_ms(meta: &TraceMeta) -> Option<f64> {
    Some((meta.clock_epoch_ms? - meta.start_at_ms?).max(0.0))
}

/// What a run that started `late_ms` after its `--start-at` (Unix ms) says
/// on stderr and in its trace's notes; `None` when within
/// [`CLOCK_TOLERANCE_MS`].
pub fn late_start_note(late_ms: f64, start_at_ms: f64) -> Option<String> {
    (late_ms > CLOCK_TOLERANCE_MS).then(|| {
        format!(
            "started {late_ms:.3} ms after --start-at {:.3} (more than the {CLOCK_TOLERANCE_MS} ms shards \
             of one run may differ by): time 0 is when it started, so its requests are that much behind \
             those of shards that started on time, and merging it with them is refused",
            start_at_ms / 1000.0
        )
    })
}

/// Why shards' clocks cannot be one run's clock. `part` and `other` name a
/// shard as the caller does (its file) with its `I/N` when recorded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClockError {
    /// A shard started later than its `--start-at`.
    #[error(
        "{part} started {late_ms:.3} ms after its --start-at {:.3} (clock_epoch_ms {:.3}; shards of one \
         run may differ by {CLOCK_TOLERANCE_MS} ms): its requests are that much behind the others'; \
         run the shards again with a --start-at every one of them reaches in time",
        start_at_ms / 1000.0,
        start_at_ms + late_ms
    )]
    LateStart {
        /// The shard.
        part: String,
        /// How late (ms).
        late_ms: f64,
        /// Its `--start-at` (Unix ms).
        start_at_ms: f64,
    },
    /// Two shards' 0s are further apart than [`CLOCK_TOLERANCE_MS`].
    #[error(
        "{part} has its clock's 0 at {epoch_ms:.3} (clock_epoch_ms, Unix ms), {:.3} ms {} {other}'s at \
         {other_epoch_ms:.3}; shards of one run start at one --start-at, within {CLOCK_TOLERANCE_MS} ms",
        (epoch_ms - other_epoch_ms).abs(),
        if epoch_ms > other_epoch_ms { "after" } else { "before" }
    )]
    Disagree {
        /// The shard that disagrees.
        part: String,
        /// Its 0 (Unix ms).
        epoch_ms: f64,
        /// The shard it was compared with.
        other: String,
        /// That shard's 0 (Unix ms).
        other_epoch_ms: f64,
    },
    /// One shard says when its clock started and another does not.
    #[error(
        "{part} does not say when its clock started (meta.clock_epoch_ms) and {other} does, so they \
         cannot be put on one clock: record the shard again with this version of the lab"
    )]
    NoEpoch {
        /// The shard without an epoch.
        part: String,
        /// One with.
        other: String,
    },
}

/// A shard's name: `shard I/N (NAME)`, or `NAME` when it does not say.
pub fn describe(name: &str, meta: &TraceMeta) -> String {
    meta.shard.map_or_else(|| name.to_string(), |s| format!("shard {s} ({name})"))
}

/// Checks that the shards (each named as the caller names it) share one
/// clock: none started more than [`CLOCK_TOLERANCE_MS`] after its
/// `--start-at`, and every one's 0 is within it of the first's. `Ok(false)`
/// when none says when its clock started (traces of older labs): there is
/// nothing to compare, and the caller says so.
pub fn check(parts: &[(&str, &TraceMeta)]) -> Result<bool, ClockError> {
    for (name, meta) in parts {
        if let (Some(late_ms), Some(start_at_ms)) = (late_start_ms(meta), meta.start_at_ms)
            && late_ms > CLOCK_TOLERANCE_MS
        {
            return Err(ClockError::LateStart { part: describe(name, meta), late_ms, start_at_ms });
        }
    }
    let Some((first, first_epoch)) = parts.iter().find_map(|(n, m)| Some(((n, m), m.clock_epoch_ms?))) else {
        return Ok(false);
    };
    let other = || describe(first.0, first.1);
    for (name, meta) in parts {
        let Some(epoch_ms) = meta.clock_epoch_ms else {
            return Err(ClockError::NoEpoch { part: describe(name, meta), other: other() });
        };
        if (epoch_ms - first_epoch).abs() > CLOCK_TOLERANCE_MS {
            return Err(ClockError::Disagree {
                part: describe(name, meta),
                epoch_ms,
                other: other(),
                other_epoch_ms: first_epoch,
            });
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-05T10:00:00Z.
    const T: f64 = 1_796_508_000_000.0;

    fn meta(index: u64, epoch: Option<f64>, start_at: Option<f64>) -> TraceMeta {
        TraceMeta {
            shard: Some(ShardId { index, count: 3 }),
            clock_epoch_ms: epoch,
            start_at_ms: start_at,
            ..TraceMeta::default()
        }
    }

    fn check3(metas: &[TraceMeta]) -> Result<bool, ClockError> {
        let names = ["a.json", "b.json", "c.json"];
        let parts: Vec<_> = names.iter().copied().zip(metas).collect();
        check(&parts)
    }

    #[test]
    fn shards_on_one_clock_pass_up_to_the_tolerance() {
        let on_time: Vec<_> = (0..3).map(|i| meta(i, Some(T), Some(T))).collect();
        assert_eq!(check3(&on_time), Ok(true));
        // Just inside the bound: late by 1.99 ms, 0s 1.99 ms apart either way.
        let near =
            [meta(0, Some(T), Some(T)), meta(1, Some(T + 1.99), Some(T)), meta(2, Some(T - 1.99), None)];
        assert_eq!(check3(&near), Ok(true));
        // Exactly at it.
        let at =
            [meta(0, Some(T), None), meta(1, Some(T + CLOCK_TOLERANCE_MS), None), meta(2, Some(T), None)];
        assert_eq!(check3(&at), Ok(true));
        // No shard says when its clock started: nothing to compare.
        assert_eq!(check3(&[meta(0, None, None), meta(1, None, Some(T))]), Ok(false));
    }

    #[test]
    fn a_shard_that_started_late_is_named_with_its_figures() {
        // Just past the bound.
        let late = [meta(0, Some(T), Some(T)), meta(1, Some(T + 2.01), Some(T)), meta(2, Some(T), Some(T))];
        let e = check3(&late).unwrap_err();
        assert!(matches!(&e, ClockError::LateStart { part, .. } if part == "shard 1/3 (b.json)"), "{e:?}");
        let said = e.to_string();
        assert!(
            said.starts_with("shard 1/3 (b.json) started 2.010 ms after its --start-at 1796508000.000"),
            "{said}"
        );
        assert!(said.contains("clock_epoch_ms 1796508000002.010"), "{said}");
        // The late shard is named even when it is the first (the others are
        // not blamed for disagreeing with it).
        let first_late =
            [meta(0, Some(T + 500.0), Some(T)), meta(1, Some(T), Some(T)), meta(2, Some(T), Some(T))];
        let e = check3(&first_late).unwrap_err();
        assert!(e.to_string().starts_with("shard 0/3 (a.json) started 500.000 ms after"), "{e}");
        // Early is not late: a 0 before --start-at is compared with the others'.
        assert_eq!(late_start_ms(&meta(0, Some(T - 10.0), Some(T))), Some(0.0));
    }

    #[test]
    fn a_shard_whose_clock_disagrees_is_named_with_both_figures() {
        // Just past the bound, after the first, without a --start-at.
        let after = [meta(0, Some(T), None), meta(1, Some(T), None), meta(2, Some(T + 2.01), None)];
        let e = check3(&after).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shard 2/3 (c.json) has its clock's 0 at 1796508000002.010 (clock_epoch_ms, Unix ms), 2.010 ms \
             after shard 0/3 (a.json)'s at 1796508000000.000; shards of one run start at one --start-at, \
             within 2 ms"
        );
        // Before it: another --start-at, each shard on time by its own.
        let other_start = [meta(0, Some(T), Some(T)), meta(1, Some(T - 2.01), Some(T - 2.01))];
        let e = check3(&other_start).unwrap_err();
        assert!(
            matches!(&e, ClockError::Disagree { part, .. } if part == "shard 1/3 (b.json)")
                && e.to_string().contains("2.010 ms before shard 0/3 (a.json)'s"),
            "{e}"
        );
        // A shard that does not record its I/N is named by its file.
        let unnamed = TraceMeta { clock_epoch_ms: Some(T + 60_000.0), ..TraceMeta::default() };
        let e = check(&[("a.json", &meta(0, Some(T), None)), ("old.json", &unnamed)]).unwrap_err();
        assert!(e.to_string().starts_with("old.json has its clock's 0 at"), "{e}");
        // One says when its clock started, another does not.
        let e = check3(&[meta(0, Some(T), None), meta(1, None, None)]).unwrap_err();
        assert_eq!(
            e,
            ClockError::NoEpoch { part: "shard 1/3 (b.json)".into(), other: "shard 0/3 (a.json)".into() }
        );
    }

    #[test]
    fn a_late_start_is_noted_past_the_tolerance_only() {
        assert_eq!(late_start_note(1.99, T), None);
        assert_eq!(late_start_note(CLOCK_TOLERANCE_MS, T), None);
        let note = late_start_note(2.01, T).unwrap();
        assert!(note.starts_with("started 2.010 ms after --start-at 1796508000.000"), "{note}");
    }
}
