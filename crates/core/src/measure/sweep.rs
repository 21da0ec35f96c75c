//! Run shapes and load curves: the same request once, N times in a row,
//! N at once or at increasing concurrency, and where latency starts to
//! degrade (the saturation point).
//!
//! A [`RunMode`] is a list of **levels** `(concurrency, batches)`: one
//! request is `(1, 1)`; N in a row `(1, N)`; N at once `(N, 1)`; a sweep
//! to `max` with `rounds` batches per level is `(1, rounds), (2, rounds),
//! (4, rounds) …` doubling while the concurrency is at most `max`. A batch
//! starts its requests together and ends when the last one does.
//!
//! Per level (all requests run at that concurrency):
//! - **user tokens/s** = the median over requests of output tokens / E2EL
//!   (what one person sees);
//! - **system tokens/s** = all output tokens / the level's wall time;
//! - TTFT and TPOT percentiles as in [`crate::measure::metrics`].
//!
//! **Saturation point**: the first level (after the lowest) where adding
//! users stops paying: system tokens/s grew by less than
//! [`MIN_THROUGHPUT_GAIN`] over the previous level while the median TTFT or
//! TPOT rose by more than [`MAX_LATENCY_GROWTH`], or the median TTFT more
//! than doubled against the lowest level. Below that point more concurrency
//! buys throughput almost for free; beyond it, users pay in latency.

use serde::{Deserialize, Serialize};

use crate::measure::metrics::RunMetrics;
use crate::measure::stats::Summary;

/// Throughput growth below which a level is not worth its latency (10 %).
pub const MIN_THROUGHPUT_GAIN: f64 = 0.10;
/// Latency growth that counts as degradation (20 %).
pub const MAX_LATENCY_GROWTH: f64 = 0.20;

/// How many requests, and how many at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunMode {
    /// One request.
    Single,
    /// N requests one after another.
    Repeat {
        /// N.
        n: u32,
    },
    /// N requests at once.
    Concurrent {
        /// N.
        n: u32,
    },
    /// Concurrency 1, 2, 4 … up to `max`, each level run `rounds` times.
    Sweep {
        /// Highest concurrency.
        max: u32,
        /// Batches per level.
        rounds: u32,
    },
}

impl RunMode {
    /// The concurrency levels and the batches of each (every count at
    /// least 1).
    pub fn levels(self) -> Vec<(u32, u32)> {
        match self {
            Self::Single => vec![(1, 1)],
            Self::Repeat { n } => vec![(1, n.max(1))],
            Self::Concurrent { n } => vec![(n.max(1), 1)],
            Self::Sweep { max, rounds } => std::iter::successors(Some(1u32), |c| c.checked_mul(2))
                .take_while(|c| *c <= max.max(1))
                .map(|c| (c, rounds.max(1)))
                .collect(),
        }
    }

    /// The mode a run form names: `single`, `repeat`, `concurrent` or
    /// `sweep` (anything else is a single request), with its N and rounds.
    pub fn from_choice(kind: &str, n: u32, rounds: u32) -> Self {
        let (n, rounds) = (n.max(1), rounds.max(1));
        match kind {
            "repeat" => Self::Repeat { n },
            "concurrent" => Self::Concurrent { n },
            "sweep" => Self::Sweep { max: n, rounds },
            _ => Self::Single,
        }
    }

    /// Requests the run sends in all.
    pub fn requests(self) -> usize {
        self.levels().iter().map(|(c, b)| *c as usize * *b as usize).sum()
    }

    /// The highest concurrency it reaches.
    pub fn max_concurrency(self) -> u32 {
        self.levels().iter().map(|(c, _)| *c).max().unwrap_or(1)
    }
}

/// One concurrency level's results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// Requests in flight at once.
    pub concurrency: u32,
    /// Requests run.
    pub requests: usize,
    /// Completed requests.
    pub completed: usize,
    /// TTFT.
    pub ttft_ms: Option<Summary>,
    /// TPOT.
    pub tpot_ms: Option<Summary>,
    /// E2EL.
    pub e2el_ms: Option<Summary>,
    /// Median per-request output tokens/s.
    pub user_tokens_per_s: Option<f64>,
    /// System output tokens/s.
    pub system_tokens_per_s: Option<f64>,
}

impl Level {
    /// Summarises one level's run.
    pub fn of(concurrency: u32, m: &RunMetrics) -> Self {
        Self {
            concurrency,
            requests: m.requests,
            completed: m.completed,
            ttft_ms: m.ttft_ms,
            tpot_ms: m.tpot_ms,
            e2el_ms: m.e2el_ms,
            user_tokens_per_s: m.user_output_tokens_per_s.map(|s| s.median),
            system_tokens_per_s: m.output_tokens_per_s,
        }
    }
}

/// Where and why latency starts to degrade.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Saturation {
    /// The first degraded level.
    pub concurrency: u32,
    /// The sentence explaining it.
    pub explanation: String,
}

fn growth(new: f64, old: f64) -> f64 {
    if old > 0.0 { new / old - 1.0 } else { 0.0 }
}

/// Finds the saturation point of levels sorted by concurrency.
pub fn saturation(levels: &[Level]) -> Option<Saturation> {
    let base_ttft = levels.first()?.ttft_ms?.median;
    for w in levels.windows(2) {
        let (prev, cur) = (&w[0], &w[1]);
        let (Some(pt), Some(ct)) = (prev.ttft_ms, cur.ttft_ms) else { continue };
        let tput = growth(cur.system_tokens_per_s.unwrap_or(0.0), prev.system_tokens_per_s.unwrap_or(0.0));
        let ttft = growth(ct.median, pt.median);
        let tpot = match (prev.tpot_ms, cur.tpot_ms) {
            (Some(a), Some(b)) => growth(b.median, a.median),
            _ => 0.0,
        };
        let latency = ttft.max(tpot);
        let doubled = ct.median > 2.0 * base_ttft;
        if (tput < MIN_THROUGHPUT_GAIN && latency > MAX_LATENCY_GROWTH) || doubled {
            let which = if ttft >= tpot { "median TTFT" } else { "median TPOT" };
            let explanation = if doubled && !(tput < MIN_THROUGHPUT_GAIN && latency > MAX_LATENCY_GROWTH) {
                format!(
                    "At {} concurrent requests the median TTFT is {:.0} ms, more than twice the {:.0} ms of {} request(s): users wait noticeably longer for the first token.",
                    cur.concurrency, ct.median, base_ttft, levels[0].concurrency
                )
            } else {
                format!(
                    "Going from {} to {} concurrent requests raises system throughput by only {:.0}% while the {} grows {:.0}%: the server is saturated.",
                    prev.concurrency,
                    cur.concurrency,
                    tput * 100.0,
                    which,
                    latency * 100.0
                )
            };
            return Some(Saturation { concurrency: cur.concurrency, explanation });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::RunMode;

    #[test]
    fn run_modes_are_levels_of_batches() {
        assert_eq!(RunMode::Single.levels(), [(1, 1)]);
        assert_eq!(RunMode::Repeat { n: 5 }.levels(), [(1, 5)]);
        assert_eq!(RunMode::Concurrent { n: 8 }.levels(), [(8, 1)]);
        assert_eq!(RunMode::Sweep { max: 8, rounds: 2 }.levels(), [(1, 2), (2, 2), (4, 2), (8, 2)]);
        assert_eq!(RunMode::Sweep { max: 6, rounds: 1 }.levels(), [(1, 1), (2, 1), (4, 1)]);
        assert_eq!(RunMode::Sweep { max: 0, rounds: 0 }.levels(), [(1, 1)]);
        assert_eq!(RunMode::Repeat { n: 0 }.levels(), [(1, 1)], "never zero requests");
        assert_eq!(RunMode::Sweep { max: 8, rounds: 2 }.requests(), 30);
        assert_eq!(RunMode::Sweep { max: u32::MAX, rounds: 1 }.max_concurrency(), 1 << 31);
        assert_eq!(RunMode::Concurrent { n: 8 }.max_concurrency(), 8);
        assert_eq!(RunMode::from_choice("sweep", 8, 0), RunMode::Sweep { max: 8, rounds: 1 });
        assert_eq!(RunMode::from_choice("repeat", 0, 5), RunMode::Repeat { n: 1 });
        assert_eq!(RunMode::from_choice("concurrent", 4, 5), RunMode::Concurrent { n: 4 });
        assert_eq!(RunMode::from_choice("bogus", 4, 5), RunMode::Single);
        let json = serde_json::to_string(&RunMode::Sweep { max: 4, rounds: 3 }).unwrap();
        assert_eq!(json, r#"{"kind":"sweep","max":4,"rounds":3}"#);
    }

    use super::*;

    fn s(median: f64) -> Option<Summary> {
        Some(Summary {
            count: 1,
            mean: median,
            median,
            std: 0.0,
            min: median,
            max: median,
            p50: median,
            p90: median,
            p95: median,
            p99: median,
        })
    }

    fn level(c: u32, ttft: f64, tpot: f64, system: f64) -> Level {
        Level {
            concurrency: c,
            requests: 4,
            completed: 4,
            ttft_ms: s(ttft),
            tpot_ms: s(tpot),
            e2el_ms: None,
            user_tokens_per_s: None,
            system_tokens_per_s: Some(system),
        }
    }

    #[test]
    fn finds_the_knee() {
        let levels = [
            level(1, 100.0, 20.0, 50.0),
            level(2, 105.0, 21.0, 95.0),
            level(4, 110.0, 24.0, 170.0),
            level(8, 150.0, 40.0, 180.0), // +6 % throughput, TPOT +67 %
            level(16, 400.0, 80.0, 182.0),
        ];
        let sat = saturation(&levels).unwrap();
        assert_eq!(sat.concurrency, 8);
        assert!(sat.explanation.contains("from 4 to 8"), "{}", sat.explanation);
        assert!(sat.explanation.contains("median TPOT grows 67%"), "{}", sat.explanation);
    }

    #[test]
    fn doubling_ttft_is_saturation_even_with_throughput_gains() {
        let levels = [level(1, 100.0, 20.0, 50.0), level(2, 250.0, 20.0, 100.0)];
        let sat = saturation(&levels).unwrap();
        assert_eq!(sat.concurrency, 2);
        assert!(sat.explanation.contains("more than twice"));
    }

    #[test]
    fn no_knee_when_scaling_is_free() {
        let levels =
            [level(1, 100.0, 20.0, 50.0), level(2, 101.0, 20.0, 100.0), level(4, 102.0, 20.0, 199.0)];
        assert!(saturation(&levels).is_none());
        assert!(saturation(&[]).is_none());
    }
}
