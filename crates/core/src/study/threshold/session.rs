//! One participant's way through a threshold study: the procedure picks
//! the level, the design builds the pair (reference and test, placement
//! drawn per trial), the answer goes back to the procedure, until it
//! stops. The session is plain data, saved after every answer, so a reload
//! resumes it; [`ThresholdSession::check`] replays the participant's
//! earlier trials, so a trial's level and placement must be the ones the
//! design would have shown. (Inside the app's study machinery the same
//! replay builds each next trial: [`super::in_study`].)

use serde::{Deserialize, Serialize};

use super::Adaptive;
use super::analysis::ThresholdTrial;
use super::design::{ThresholdDesign, reference_first};
use crate::replay::profile::Profile;
use crate::replay::smooth::Smoothing;

/// The pair shown in one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// Trial index.
    pub trial: usize,
    /// The test's difference from the reference.
    pub level: f64,
    /// The reference plays on the left (A).
    pub reference_first: bool,
    /// Profiles for A and B.
    pub sides: [Profile; 2],
    /// How A and B are shown on screen.
    pub smoothing: [Smoothing; 2],
}

/// Why a trial does not fit the session.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrialError {
    /// The procedure has stopped.
    #[error("the procedure has ended: no trial {0}")]
    Ended(usize),
    /// Not the next trial.
    #[error("trial {got} is not the next one ({want})")]
    Order {
        /// Submitted index.
        got: usize,
        /// Expected index.
        want: usize,
    },
    /// Level or placement differ from what the design shows.
    #[error("trial {0} was not shown at this level or placement")]
    Shown(usize),
    /// Side out of range, or a response time out of 0–1 h.
    #[error("the answer must pick A or B within an hour")]
    Answer,
    /// The reference profile does not parse.
    #[error("the reference profile is invalid")]
    Design,
}

/// A participant's threshold session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThresholdSession {
    /// Participant id.
    pub participant: String,
    /// Participant number (seeds the placements).
    pub number: u32,
    /// Answered trials, in order.
    pub trials: Vec<ThresholdTrial>,
}

impl ThresholdSession {
    /// A new session.
    pub fn new(participant: String, number: u32) -> Self {
        Self { participant, number, trials: Vec::new() }
    }

    /// The procedure after the answered trials.
    pub fn procedure(&self, design: &ThresholdDesign) -> Adaptive {
        let mut a = Adaptive::new(design.procedure, design.range);
        for t in &self.trials {
            a.record(t.level, t.correct());
        }
        a
    }

    /// The next pair to show (`None` once the procedure has stopped).
    pub fn next(&self, design: &ThresholdDesign) -> Result<Option<Pair>, TrialError> {
        let Some(level) = self.procedure(design).next_level() else { return Ok(None) };
        let reference = design.reference_profile().map_err(|_| TrialError::Design)?;
        let trial = self.trials.len();
        let first = reference_first(design.seed, self.number, trial);
        let (sides, smoothing) = design.dimension.sides(&reference, level, first);
        Ok(Some(Pair { trial, level, reference_first: first, sides, smoothing }))
    }

    /// Checks a submitted trial against what the design shows next.
    pub fn check(&self, design: &ThresholdDesign, t: &ThresholdTrial) -> Result<(), TrialError> {
        let want = self.trials.len();
        if t.trial != want {
            return Err(TrialError::Order { got: t.trial, want });
        }
        let pair = self.next(design)?.ok_or(TrialError::Ended(t.trial))?;
        let same_level = (pair.level - t.level).abs() <= 1e-9 * pair.level.abs().max(1.0);
        if !same_level || pair.reference_first != t.reference_first {
            return Err(TrialError::Shown(t.trial));
        }
        if t.chosen > 1
            || !(t.rt_ms.is_finite() && (0.0..=crate::study::answer::MAX_RT_MS).contains(&t.rt_ms))
        {
            return Err(TrialError::Answer);
        }
        Ok(())
    }

    /// Answers the next pair: side `chosen` (0 = A) after `rt_ms`.
    pub fn answer(&mut self, design: &ThresholdDesign, chosen: u8, rt_ms: f64) -> Result<(), TrialError> {
        let pair = self.next(design)?.ok_or(TrialError::Ended(self.trials.len()))?;
        let t = ThresholdTrial {
            participant: self.participant.clone(),
            trial: pair.trial,
            level: pair.level,
            reference_first: pair.reference_first,
            chosen,
            rt_ms,
        };
        self.check(design, &t)?;
        self.trials.push(t);
        Ok(())
    }

    /// Whether the procedure has stopped.
    pub fn done(&self, design: &ThresholdDesign) -> bool {
        self.procedure(design).next_level().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Procedure;
    use super::super::design::Dimension;
    use super::super::psychometric::{Psychometric, Shape};
    use super::*;
    use crate::replay::rng::Rng;

    fn design(procedure: Procedure) -> ThresholdDesign {
        ThresholdDesign {
            dimension: Dimension::Ttft,
            reference: "ttft=200,tpot=30,jitter=constant,tokens=40".into(),
            range: (10.0, 800.0),
            procedure,
            seed: 3,
        }
    }

    /// A participant who sees the pair and answers as `truth` says.
    fn play(d: &ThresholdDesign, truth: &Psychometric, seed: u64) -> ThresholdSession {
        let mut s = ThresholdSession::new("p001-x".into(), 2);
        let mut rng = Rng::new(seed);
        while let Some(pair) = s.next(d).unwrap() {
            // The reference is the side with the shorter TTFT.
            let reference_side = u8::from(pair.sides[1].ttft_ms < pair.sides[0].ttft_ms);
            assert_eq!(reference_side == 0, pair.reference_first);
            let noticed = rng.uniform() < truth.p(pair.level);
            s.answer(d, if noticed { reference_side } else { 1 - reference_side }, 800.0).unwrap();
        }
        s
    }

    #[test]
    fn a_session_runs_each_procedure_to_its_end_and_survives_a_reload() {
        let truth = Psychometric { shape: Shape::Logistic, alpha: 90.0, beta: 3.0, lapse: 0.02 };
        for procedure in [Procedure::Staircase(Default::default()), Procedure::Psi { trials: 30 }] {
            let d = design(procedure);
            let s = play(&d, &truth, 8);
            assert!(s.done(&d));
            let json = serde_json::to_string(&s).unwrap();
            let back: ThresholdSession = serde_json::from_str(&json).unwrap();
            assert_eq!(back.procedure(&d), s.procedure(&d), "a reload rebuilds the same procedure");
            let (t, _) = s.procedure(&d).threshold().unwrap();
            assert!((t / 90.0).ln().abs() < 0.8, "{procedure:?}: {t}");
        }
    }

    /// 5th, 50th and 95th percentiles of `v`.
    fn spread(mut v: Vec<f64>) -> (f64, f64, f64) {
        v.sort_by(f64::total_cmp);
        let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        (at(0.05), at(0.5), at(0.95))
    }

    #[test]
    fn sessions_recover_the_truth_as_closely_as_the_simulation_shows() {
        // Simulated participants through whole sessions (200 staircases,
        // 40 Psi runs: Psi's posterior grid is slow in a debug build). The
        // staircase estimates the level it converges to (70.7% correct),
        // Psi the function's α. ln(estimate / truth) measured on these seeds
        // (2026-12-04): staircase P5 −0.44, median +0.02, P95 +0.43; Psi
        // (30 trials) P5 −0.57, median −0.09, P95 +0.39 (on 400 seeds:
        // −0.71, −0.10, +0.40). Bounds add about 0.1: one participant may
        // be off by ×1.6, the median may not be off by more than ×1.13
        // (staircase) or ×1.2 (Psi); an estimator off by ×1.5 fails.
        let truth = Psychometric { shape: Shape::Logistic, alpha: 90.0, beta: 3.0, lapse: 0.02 };
        let rule = super::super::staircase::Rule::default();
        let cases = [
            (Procedure::Staircase(rule), 200, truth.level_at(rule.target()).unwrap(), (-0.55, 0.12, 0.5)),
            (Procedure::Psi { trials: 30 }, 40, truth.alpha, (-0.7, 0.2, 0.5)),
        ];
        for (procedure, n, estimand, (p5_min, median_max, p95_max)) in cases {
            let d = design(procedure);
            let logs: Vec<f64> = (0..n)
                .map(|seed| {
                    (play(&d, &truth, 1000 + seed).procedure(&d).threshold().unwrap().0 / estimand).ln()
                })
                .collect();
            let (p5, median, p95) = spread(logs);
            assert!(
                p5 >= p5_min && median.abs() <= median_max && p95 <= p95_max,
                "{procedure:?}: ln(estimate / truth) P5 {p5:.3}, median {median:.3}, P95 {p95:.3}"
            );
        }
    }

    #[test]
    fn a_server_refuses_trials_the_design_did_not_show() {
        let d = design(Procedure::Staircase(Default::default()));
        let mut s = ThresholdSession::new("p".into(), 0);
        let pair = s.next(&d).unwrap().unwrap();
        let t = ThresholdTrial {
            participant: "p".into(),
            trial: 0,
            level: pair.level,
            reference_first: pair.reference_first,
            chosen: 0,
            rt_ms: 500.0,
        };
        s.check(&d, &t).unwrap();
        assert_eq!(
            s.check(&d, &ThresholdTrial { trial: 1, ..t.clone() }),
            Err(TrialError::Order { got: 1, want: 0 })
        );
        assert_eq!(s.check(&d, &ThresholdTrial { level: 12.0, ..t.clone() }), Err(TrialError::Shown(0)));
        assert_eq!(
            s.check(&d, &ThresholdTrial { reference_first: !t.reference_first, ..t.clone() }),
            Err(TrialError::Shown(0))
        );
        assert_eq!(s.check(&d, &ThresholdTrial { chosen: 2, ..t.clone() }), Err(TrialError::Answer));
        assert_eq!(s.check(&d, &ThresholdTrial { rt_ms: f64::NAN, ..t.clone() }), Err(TrialError::Answer));
        s.answer(&d, 0, 500.0).unwrap();
        assert_eq!(s.trials.len(), 1);
    }
}
