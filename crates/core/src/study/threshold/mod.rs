//! Threshold studies: how large a latency difference must be before
//! people notice it (the just-noticeable difference), measured with
//! blind two-alternative pairs, reference against test, "which felt
//! faster?". The test's difference from the reference (the **level**)
//! follows an adaptive procedure, so trials gather where the answer is
//! uncertain:
//!
//! - [`staircase`]: a transformed up-down staircase (2-down-1-up by
//!   default, converging at 70.7% correct), steps in log units, stopped by
//!   reversals; threshold = geometric mean of the last reversals.
//! - [`psi`]: the Psi method, Bayesian: the most informative next level,
//!   posterior mean threshold and 95% credible interval.
//!
//! [`design`] says what varies (TTFT, pace, jitter, a stall, smoothing) and
//! builds each trial's reference and test samples with a random placement;
//! [`edit`] has the designer's edits; [`in_study`] runs a threshold study
//! through the lab's participant flow, results files and study server. [`psychometric`] fits the pooled answers of all participants with a
//! logistic or Weibull function (guess 0.5, lapse fitted) by maximum
//! likelihood, with bootstrap intervals; [`slo`] turns the fit into a
//! sentence and into a scenario's scoring tiers; [`analysis`] replays each
//! participant's trials into their threshold, pools them and exports one
//! CSV row per trial; [`session`] is one participant's way through it. [`simulate`] runs simulated
//! observers of known functions through either procedure (the tests and
//! `cargo run -p lab-core --example thresholds` use it).

pub mod analysis;
pub mod design;
pub mod edit;
pub mod in_study;
pub mod psi;
pub mod psychometric;
pub mod session;
pub mod simulate;
pub mod slo;
pub mod staircase;

use serde::{Deserialize, Serialize};

/// The procedure that picks the next level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Procedure {
    /// A transformed staircase.
    Staircase(staircase::Rule),
    /// The Psi method, for this many trials.
    Psi {
        /// Trials presented.
        trials: u32,
    },
}

/// One participant's procedure in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Adaptive {
    /// A staircase.
    Staircase(staircase::Staircase),
    /// The Psi method.
    Psi(Box<psi::Psi>),
}

impl Adaptive {
    /// A procedure over `range` (staircases start at its top, the easy end).
    pub fn new(procedure: Procedure, range: (f64, f64)) -> Self {
        match procedure {
            Procedure::Staircase(rule) => Self::Staircase(staircase::Staircase::new(rule, range, range.1)),
            Procedure::Psi { trials } => Self::Psi(Box::new(psi::Psi::new(range, trials))),
        }
    }

    /// The next level (`None` once done).
    pub fn next_level(&self) -> Option<f64> {
        match self {
            Self::Staircase(s) => s.next_level(),
            Self::Psi(p) => p.next_level(),
        }
    }

    /// Records the answer to the trial at `level`.
    pub fn record(&mut self, level: f64, correct: bool) {
        match self {
            Self::Staircase(s) => s.record(correct),
            Self::Psi(p) => p.record(level, correct),
        }
    }

    /// Trials so far.
    pub fn trials(&self) -> &[(f64, bool)] {
        match self {
            Self::Staircase(s) => &s.trials,
            Self::Psi(p) => &p.trials,
        }
    }

    /// The participant's threshold, and its 95% interval where the
    /// procedure gives one (Psi's credible interval).
    pub fn threshold(&self) -> Option<(f64, Option<(f64, f64)>)> {
        match self {
            Self::Staircase(s) => s.threshold().map(|t| (t, None)),
            Self::Psi(p) => Some((p.threshold(), Some(p.credible_interval()))),
        }
    }
}
