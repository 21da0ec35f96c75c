//! What a threshold study varies, and how one trial is built from a level.
//!
//! The **reference** is a profile (a spec, e.g. `ttft=200,tpot=30,
//! jitter=constant,tokens=60`). The **dimension** says what the test
//! sample changes, by the level:
//!
//! | dimension | test sample | level unit |
//! |---|---|---|
//! | TTFT | time to first token + level | ms |
//! | pace | time per output token + level | ms per token |
//! | jitter | gaps drawn from a gamma distribution with CV = reference CV + level | CV |
//! | stall | one pause of `level` ms before the middle token ([`Dimension::stall_token`]) | ms |
//! | smoothing | both samples' gaps gamma with CV = level; the reference is smoothed on screen ([`SMOOTHED`]), the test shown as it arrives | CV |
//!
//! Everything else (length, text, seed) is the reference's, so only the
//! dimension differs. The smoothing dimension asks at which burstiness
//! display smoothing becomes noticeable at the reference's pace. Each trial shows both, A and B; which side holds the
//! reference is drawn per trial from the study's seed, the participant's
//! number and the trial index ([`reference_first`]), so placement cannot
//! be learnt and is rebuilt identically by a study server. An answer is
//! **correct** when the participant picks the reference as the faster
//! (smoother) one.

use serde::{Deserialize, Serialize};

use super::Procedure;
use crate::measure::score::ScoreMetric;
use crate::replay::profile::{Jitter, Profile, ProfileError, StallModel};
use crate::replay::rng::Rng;
use crate::replay::smooth::Smoothing;

/// How the reference is shown in a smoothing study: frame pacing at 60 Hz
/// draining within 100 ms (the lab's default frame smoothing).
pub const SMOOTHED: Smoothing = Smoothing::Frames {
    frame_ms: crate::replay::smooth::FRAME_MS,
    window_ms: crate::replay::smooth::DEFAULT_WINDOW_MS,
};

/// What the test sample changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Time to first token.
    Ttft,
    /// Time per output token (the pace).
    Pace,
    /// Jitter: the coefficient of variation of the gaps.
    Jitter,
    /// One stall of the level's length in the middle of the answer.
    Stall,
    /// Display smoothing on (reference) or off (test) over a stream whose
    /// gaps vary with CV = level.
    Smoothing,
}

/// Every dimension, in the designer's order.
pub const DIMENSIONS: [Dimension; 5] =
    [Dimension::Ttft, Dimension::Pace, Dimension::Jitter, Dimension::Stall, Dimension::Smoothing];

impl Dimension {
    /// Its id (`ttft`, `pace`, …), as in the study file.
    pub fn id(self) -> &'static str {
        match self {
            Self::Ttft => "ttft",
            Self::Pace => "pace",
            Self::Jitter => "jitter",
            Self::Stall => "stall",
            Self::Smoothing => "smoothing",
        }
    }

    /// The dimension of id `id`.
    pub fn from_id(id: &str) -> Option<Self> {
        DIMENSIONS.into_iter().find(|d| d.id() == id)
    }

    /// Its name in the designer.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ttft => "TTFT (wait before the first token)",
            Self::Pace => "Pace (time per output token)",
            Self::Jitter => "Jitter (CV of the gaps)",
            Self::Stall => "Stall length (one pause mid-answer)",
            Self::Smoothing => "Smoothing on/off (by burstiness)",
        }
    }

    /// What the difference is, for sentences ("a TTFT increase").
    pub fn what(self) -> &'static str {
        match self {
            Self::Ttft => "a TTFT increase",
            Self::Pace => "a slower pace",
            Self::Jitter => "more jitter",
            Self::Stall => "a stall",
            Self::Smoothing => "smoothing on a stream whose gaps vary by a",
        }
    }

    /// A level in its unit, rounded as people read it ("95 ms", "0.35
    /// CV", "4.5 ms per token").
    pub fn format(self, level: f64) -> String {
        format!("{} {}", self.number(level), self.unit())
    }

    /// A level's number alone, rounded as [`Dimension::format`] does.
    pub fn number(self, level: f64) -> String {
        match self {
            Self::Ttft | Self::Stall => format!("{level:.0}"),
            Self::Pace => format!("{level:.1}"),
            Self::Jitter | Self::Smoothing => format!("{level:.2}"),
        }
    }

    /// Unit of the level.
    pub fn unit(self) -> &'static str {
        match self {
            Self::Ttft | Self::Stall => "ms",
            Self::Pace => "ms per token",
            Self::Jitter | Self::Smoothing => "CV",
        }
    }

    /// The question each pair asks.
    pub fn question(self) -> &'static str {
        match self {
            Self::Ttft | Self::Pace => "Which one felt faster?",
            Self::Jitter | Self::Stall | Self::Smoothing => "Which one felt smoother?",
        }
    }

    /// A range that suits a reference of this dimension.
    pub fn default_range(self) -> (f64, f64) {
        match self {
            Self::Ttft => (10.0, 1000.0),
            Self::Pace => (2.0, 200.0),
            Self::Jitter | Self::Smoothing => (0.05, 2.0),
            Self::Stall => (20.0, 2000.0),
        }
    }

    /// The scenario metric its thresholds place tiers on (`None` for
    /// smoothing: no metric measures a display setting).
    pub fn metric(self) -> Option<ScoreMetric> {
        match self {
            Self::Ttft => Some(ScoreMetric::Ttft),
            Self::Pace => Some(ScoreMetric::Tpot),
            Self::Jitter => Some(ScoreMetric::ItlCv),
            Self::Stall => Some(ScoreMetric::LongestStall),
            Self::Smoothing => None,
        }
    }

    /// The reference's own value on this dimension.
    pub fn reference_value(self, reference: &Profile) -> f64 {
        match self {
            Self::Ttft => reference.ttft_ms,
            Self::Pace => reference.tpot_ms,
            Self::Jitter => match reference.jitter {
                Jitter::Normal { cv } | Jitter::LogNormal { cv } | Jitter::Gamma { cv } => cv,
                Jitter::Constant | Jitter::Empirical { .. } => 0.0,
            },
            Self::Stall | Self::Smoothing => 0.0,
        }
    }

    /// The value a scenario metric has at the reference, where the tiers
    /// start: the reference's own value, except for a stall, whose gap is
    /// the reference's time per token plus the pause.
    pub fn metric_reference(self, reference: &Profile) -> f64 {
        match self {
            Self::Stall => reference.tpot_ms,
            _ => self.reference_value(reference),
        }
    }

    /// The token a stall study pauses before: the middle of the answer.
    pub fn stall_token(reference: &Profile) -> u32 {
        (reference.output_tokens / 2).max(1)
    }

    /// The reference sample of a trial at `level` (itself, except in a
    /// smoothing study, where both samples have the level's gaps).
    pub fn reference_sample(self, reference: &Profile, level: f64) -> Profile {
        let mut p = reference.clone();
        if self == Self::Smoothing {
            p.jitter = Jitter::Gamma { cv: level };
        }
        p
    }

    /// The test sample at `level`.
    pub fn test_profile(self, reference: &Profile, level: f64) -> Profile {
        let mut p = reference.clone();
        match self {
            Self::Ttft => p.ttft_ms += level,
            Self::Pace => p.tpot_ms += level,
            Self::Jitter => p.jitter = Jitter::Gamma { cv: self.reference_value(reference) + level },
            Self::Stall => {
                p.stall = Some(StallModel {
                    probability: 0.0,
                    mean_ms: level,
                    cv: 0.0,
                    at_token: Some(Self::stall_token(reference)),
                });
            }
            Self::Smoothing => p.jitter = Jitter::Gamma { cv: level },
        }
        p
    }

    /// How the reference and the test are shown on screen.
    pub fn smoothing(self) -> (Smoothing, Smoothing) {
        match self {
            Self::Smoothing => (SMOOTHED, Smoothing::Off),
            _ => (Smoothing::Off, Smoothing::Off),
        }
    }

    /// The two samples of a pair at `level`, A first (the reference on
    /// the left when `reference_first`), and how each is shown.
    pub fn sides(
        self,
        reference: &Profile,
        level: f64,
        reference_first: bool,
    ) -> ([Profile; 2], [Smoothing; 2]) {
        let (r, t) = (self.reference_sample(reference, level), self.test_profile(reference, level));
        let (shown_r, shown_t) = self.smoothing();
        if reference_first { ([r, t], [shown_r, shown_t]) } else { ([t, r], [shown_t, shown_r]) }
    }
}

/// A threshold study's design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThresholdDesign {
    /// What varies.
    pub dimension: Dimension,
    /// The reference profile's spec.
    pub reference: String,
    /// Smallest and largest level presented.
    pub range: (f64, f64),
    /// How the next level is chosen.
    pub procedure: Procedure,
    /// Seed of the placements.
    pub seed: u64,
}

/// Why a threshold design is unusable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DesignError {
    /// The reference spec.
    #[error("reference profile: {0}")]
    Reference(#[from] ProfileError),
    /// The range.
    #[error("the range must run from a positive level to a larger one ({0} – {1})")]
    Range(f64, f64),
    /// The test sample at the top of the range is not a valid profile.
    #[error("at the top of the range the test sample is invalid: {0}")]
    Top(ProfileError),
    /// The procedure's settings.
    #[error("{0}")]
    Procedure(&'static str),
}

/// Most trials one participant may be given.
pub const MAX_TRIALS: u32 = 200;

impl ThresholdDesign {
    /// A new design of `dimension` over the reference `reference`, with
    /// its default range and a 2-down-1-up staircase.
    pub fn new(dimension: Dimension, reference: String, seed: u64) -> Self {
        Self {
            dimension,
            reference,
            range: dimension.default_range(),
            procedure: Procedure::Staircase(super::staircase::Rule::default()),
            seed,
        }
    }

    /// Most trials one participant is given.
    pub fn max_trials(&self) -> u32 {
        match self.procedure {
            Procedure::Staircase(r) => r.max_trials,
            Procedure::Psi { trials } => trials,
        }
    }

    /// The reference profile.
    pub fn reference_profile(&self) -> Result<Profile, ProfileError> {
        crate::replay::profile::preset(&self.reference).map_or_else(|| self.reference.parse::<Profile>(), Ok)
    }

    /// Checks everything a session relies on.
    pub fn validate(&self) -> Result<(), DesignError> {
        let reference = self.reference_profile()?;
        let (lo, hi) = self.range;
        if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
            return Err(DesignError::Range(lo, hi));
        }
        self.dimension.test_profile(&reference, hi).validate().map_err(DesignError::Top)?;
        if self.dimension == Dimension::Stall && reference.output_tokens < 2 {
            return Err(DesignError::Procedure("a stall study needs a reference of at least 2 tokens"));
        }
        match self.procedure {
            Procedure::Staircase(r) => {
                if !(1..=4).contains(&r.down) {
                    return Err(DesignError::Procedure(
                        "the staircase goes down after 1 to 4 correct answers",
                    ));
                }
                if !(r.first_step > 1.0 && r.step > 1.0 && r.first_step <= 4.0 && r.step <= 4.0) {
                    return Err(DesignError::Procedure("staircase steps must be factors from above 1 to 4"));
                }
                if r.average == 0 || r.average > r.reversals || r.max_trials == 0 || r.max_trials > MAX_TRIALS
                {
                    return Err(DesignError::Procedure(
                        "the staircase averages 1 to all of its reversals and gives 1 to 200 trials",
                    ));
                }
            }
            Procedure::Psi { trials } => {
                if !(10..=MAX_TRIALS).contains(&trials) {
                    return Err(DesignError::Procedure("the Psi method needs 10 to 200 trials"));
                }
            }
        }
        Ok(())
    }
}

/// Whether the reference plays on the left (A) in trial `trial` of
/// participant `number`.
pub fn reference_first(seed: u64, number: u32, trial: usize) -> bool {
    let mix = seed ^ (u64::from(number) << 32) ^ (trial as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    Rng::new(mix).uniform() < 0.5
}

/// Whether picking side `chosen` (0 = A, 1 = B) picked the reference.
pub fn correct(reference_first: bool, chosen: u8) -> bool {
    (chosen == 0) == reference_first
}

#[cfg(test)]
mod tests {
    use super::super::staircase::Rule;
    use super::*;

    fn design() -> ThresholdDesign {
        ThresholdDesign {
            dimension: Dimension::Ttft,
            reference: "ttft=200,tpot=30,jitter=constant,tokens=60,seed=4".into(),
            range: (10.0, 1000.0),
            procedure: Procedure::Staircase(Rule::default()),
            seed: 1,
        }
    }

    #[test]
    fn only_the_dimension_differs_in_the_test_sample() {
        let d = design();
        let r = d.reference_profile().unwrap();
        let t = Dimension::Ttft.test_profile(&r, 95.0);
        assert_eq!(t.ttft_ms, 295.0);
        assert_eq!(
            (t.tpot_ms, t.output_tokens, t.seed, &t.text),
            (r.tpot_ms, r.output_tokens, r.seed, &r.text)
        );
        assert_eq!(Dimension::Pace.test_profile(&r, 5.0).tpot_ms, 35.0);
        assert_eq!(Dimension::Jitter.test_profile(&r, 0.4).jitter, Jitter::Gamma { cv: 0.4 });
        assert_eq!(
            Dimension::Jitter.reference_value(&"ttft=1,tpot=9,jitter=gamma:0.2".parse().unwrap()),
            0.2
        );
        d.validate().unwrap();
        let stall = Dimension::Stall.test_profile(&r, 300.0);
        let gaps = |p: &Profile| -> Vec<f64> {
            let s = p.schedule(0, 0, None);
            s.chunks.windows(2).map(|w| w[1].due_ms - w[0].due_ms).collect()
        };
        let (plain, stalled) = (gaps(&r), gaps(&stall));
        let differ: Vec<usize> = (0..plain.len()).filter(|&i| plain[i] != stalled[i]).collect();
        assert_eq!(differ, [29], "one gap, before token 30 of 60");
        assert_eq!(stalled[29] - plain[29], 300.0);
        let (a, b) =
            (Dimension::Smoothing.reference_sample(&r, 0.8), Dimension::Smoothing.test_profile(&r, 0.8));
        assert_eq!(a, b, "a smoothing study differs only in how it is shown");
        assert_eq!(a.jitter, Jitter::Gamma { cv: 0.8 });
        assert_eq!(Dimension::Smoothing.smoothing(), (SMOOTHED, Smoothing::Off));
        for d in DIMENSIONS {
            assert_eq!(Dimension::from_id(d.id()), Some(d));
            let design = ThresholdDesign::new(d, "ttft=200,tpot=30,tokens=40".into(), 1);
            design.validate().unwrap_or_else(|e| panic!("{d:?}: {e}"));
        }
    }

    #[test]
    fn bad_designs_say_why() {
        let bad = |f: &dyn Fn(&mut ThresholdDesign)| {
            let mut d = design();
            f(&mut d);
            d.validate().unwrap_err()
        };
        assert!(matches!(bad(&|d| d.reference = "ttft=fast".into()), DesignError::Reference(_)));
        assert_eq!(bad(&|d| d.range = (0.0, 10.0)), DesignError::Range(0.0, 10.0));
        assert_eq!(bad(&|d| d.range = (50.0, 20.0)), DesignError::Range(50.0, 20.0));
        assert!(matches!(
            bad(&|d| {
                d.dimension = Dimension::Jitter;
                d.range = (0.1, 50.0);
            }),
            DesignError::Top(_)
        ));
        assert!(matches!(bad(&|d| d.procedure = Procedure::Psi { trials: 5 }), DesignError::Procedure(_)));
        let rule = Rule { average: 20, ..Rule::default() };
        assert!(matches!(bad(&|d| d.procedure = Procedure::Staircase(rule)), DesignError::Procedure(_)));
    }

    #[test]
    fn placement_is_random_per_trial_and_the_same_when_rebuilt() {
        let firsts: Vec<bool> = (0..400).map(|t| reference_first(1, 3, t)).collect();
        let left = firsts.iter().filter(|f| **f).count();
        assert!((170..=230).contains(&left), "{left} of 400 on the left");
        assert_eq!(firsts, (0..400).map(|t| reference_first(1, 3, t)).collect::<Vec<_>>());
        assert_ne!(firsts, (0..400).map(|t| reference_first(1, 4, t)).collect::<Vec<_>>(), "per participant");
        assert!(correct(true, 0) && correct(false, 1) && !correct(true, 1) && !correct(false, 0));
    }
}
