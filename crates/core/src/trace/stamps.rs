//! Stamps as measured: which path released a replay's chunks, and stamps
//! that came out of order.
//!
//! The lab never moves a stamp to make it look right. Its methods promise
//! an order: a chunk is released no earlier than it is due (replays), and
//! painted no earlier than it arrived or was released (`painted_ms ≥
//! arrived_ms`: the paint stamp is taken inside the first animation frame
//! after the text was committed). A stamp that breaks that order is **early**:
//! it is kept as measured, and every reader of the trace counts it
//! ([`EarlyStamps`]) and says so (Live, Replay, `latency-lab analyze`),
//! because it means the clock or the method failed for that chunk, not
//! that the text was faster. Differences within [`EARLY_TOLERANCE_MS`]
//! (float rounding of converted clocks) are not early.
//!
//! A replay's chunks are released by one of three paths ([`Released`]):
//! the release-clock **workers** (the lab's precise path), the page's own
//! **main thread** (the precise scheduler's fallback, late by whatever the
//! page is drawing), or the **naive** chained `setTimeout` scheduler kept for
//! comparison. The trace counts releases per path and says why a fallback
//! happened ([`crate::trace::ReplayInfo::fallback`]), and how the workers
//! slept ([`crate::trace::ReplayInfo::clock_sleep`]: on `Atomics.wait`, or
//! on timers where the browser offers no shared memory).

use serde::{Deserialize, Serialize};

/// The workers sleep on `Atomics.wait` until a due time: sub-millisecond.
pub const CLOCK_ATOMICS: &str = "atomics";
/// The workers sleep on `setTimeout` and poll: late by whatever the
/// browser's worker timers are (several ms in some engines), because the
/// page gives them no shared memory to wait on.
pub const CLOCK_TIMERS: &str = "timers";

use crate::trace::{RequestTrace, Trace};

/// Stamps closer than this to what they follow are in order (ms): the
/// rounding of a worker's clock converted to the page's.
pub const EARLY_TOLERANCE_MS: f64 = 1e-6;

/// Releases of a replay per path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Released {
    /// By the release-clock workers.
    #[serde(default)]
    pub workers: u32,
    /// By the page's main thread (the precise scheduler without workers).
    #[serde(default)]
    pub main_thread: u32,
    /// By the naive chained-`setTimeout` scheduler.
    #[serde(default)]
    pub naive: u32,
}

/// One release path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleasePath {
    /// Release-clock workers.
    Workers,
    /// The page's main thread.
    MainThread,
    /// Chained `setTimeout`.
    Naive,
}

impl Released {
    /// Counts one release by `path`.
    pub fn add(&mut self, path: ReleasePath) {
        match path {
            ReleasePath::Workers => self.workers += 1,
            ReleasePath::MainThread => self.main_thread += 1,
            ReleasePath::Naive => self.naive += 1,
        }
    }

    /// Releases counted.
    pub fn total(&self) -> u32 {
        self.workers + self.main_thread + self.naive
    }

    /// The path in words: one path by name, a mix with its counts.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.workers, "release-clock workers"),
            (self.main_thread, "the page's main thread"),
            (self.naive, "chained setTimeout"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, name)| format!("{name} ({n})"))
        .collect();
        match parts.len() {
            0 => "no release recorded".into(),
            1 => parts[0].split(" (").next().unwrap_or_default().to_string(),
            _ => parts.join(", "),
        }
    }
}

/// Stamps of a trace that break the lab's order (module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct EarlyStamps {
    /// Chunks painted before they arrived (or were released).
    pub paints: usize,
    /// How far before, at most (ms).
    pub paint_worst_ms: f64,
    /// Replayed chunks released before they were due.
    pub releases: usize,
    /// How far before, at most (ms).
    pub release_worst_ms: f64,
}

impl EarlyStamps {
    /// The early stamps of one request.
    pub fn of_request(r: &RequestTrace) -> Self {
        let mut e = Self::default();
        for c in &r.chunks {
            if let Some(p) = c.painted_ms {
                let by = c.arrived_ms - p;
                if by > EARLY_TOLERANCE_MS {
                    e.paints += 1;
                    e.paint_worst_ms = e.paint_worst_ms.max(by);
                }
            }
            if let Some(d) = c.due_ms {
                let by = d - c.arrived_ms;
                if by > EARLY_TOLERANCE_MS {
                    e.releases += 1;
                    e.release_worst_ms = e.release_worst_ms.max(by);
                }
            }
        }
        e
    }

    /// The early stamps of every request of a trace.
    pub fn of(trace: &Trace) -> Self {
        trace.requests.iter().map(Self::of_request).fold(Self::default(), |a, b| Self {
            paints: a.paints + b.paints,
            paint_worst_ms: a.paint_worst_ms.max(b.paint_worst_ms),
            releases: a.releases + b.releases,
            release_worst_ms: a.release_worst_ms.max(b.release_worst_ms),
        })
    }

    /// True when every stamp is in order.
    pub fn is_clean(&self) -> bool {
        self.paints == 0 && self.releases == 0
    }

    /// What a reader says about them (`None` when clean).
    pub fn sentence(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.paints > 0 {
            parts.push(format!(
                "{} paint stamp(s) earlier than their chunk's arrival (by up to {:.2} ms)",
                self.paints, self.paint_worst_ms
            ));
        }
        if self.releases > 0 {
            parts.push(format!(
                "{} release(s) earlier than due (by up to {:.2} ms)",
                self.releases, self.release_worst_ms
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "Early stamps: {}. Kept as measured: the clock or the method failed for these chunks, so their lag is not a real figure.",
                parts.join("; ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Chunk;

    fn chunk(arrived: f64, painted: Option<f64>, due: Option<f64>) -> Chunk {
        Chunk { painted_ms: painted, due_ms: due, ..Chunk::content(arrived, "a", 1) }
    }

    #[test]
    fn early_paints_and_releases_are_counted_not_hidden() {
        let r = RequestTrace {
            chunks: vec![
                chunk(100.0, Some(116.0), Some(100.0)),
                chunk(120.0, Some(119.5), Some(120.25)),
                chunk(140.0, Some(140.0), None),
                chunk(160.0, Some(159.0), Some(160.0)),
            ],
            ..RequestTrace::default()
        };
        let e = EarlyStamps::of_request(&r);
        assert_eq!((e.paints, e.releases), (2, 1));
        assert!((e.paint_worst_ms - 1.0).abs() < 1e-9 && (e.release_worst_ms - 0.25).abs() < 1e-9);
        let s = e.sentence().unwrap();
        assert!(s.contains("2 paint stamp(s)") && s.contains("1.00 ms") && s.contains("1 release(s)"), "{s}");
        let t = Trace { requests: vec![r.clone(), r], ..Trace::default() };
        assert_eq!(EarlyStamps::of(&t).paints, 4);
        assert!(EarlyStamps::of_request(&RequestTrace::default()).sentence().is_none());
    }

    #[test]
    fn paths_are_named_alone_and_counted_when_mixed() {
        let mut r = Released::default();
        assert_eq!(r.describe(), "no release recorded");
        r.add(ReleasePath::Workers);
        r.add(ReleasePath::Workers);
        assert_eq!(r.describe(), "release-clock workers");
        r.add(ReleasePath::MainThread);
        assert_eq!(r.describe(), "release-clock workers (2), the page's main thread (1)");
        assert_eq!(r.total(), 3);
    }
}
