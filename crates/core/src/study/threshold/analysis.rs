//! A threshold study's answers and what they say: every trial as recorded
//! ([`ThresholdTrial`], exported one row each by [`to_csv`]), each
//! participant's threshold from their own procedure (replayed from their
//! trials), and the pooled psychometric fit with its sentence.

use serde::{Deserialize, Serialize};

use super::design::{ThresholdDesign, correct};
use super::psychometric::{Fitted, Point, Shape, fit_with_ci, points};
use super::slo::{self, PerceivedError, Provenance};
use super::{Adaptive, Procedure};
use crate::measure::score::Scenario;

/// One answered trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThresholdTrial {
    /// Participant id.
    pub participant: String,
    /// Trial index in the participant's sequence.
    pub trial: usize,
    /// The test's difference from the reference.
    pub level: f64,
    /// The reference played on the left (A).
    pub reference_first: bool,
    /// Side picked: 0 = A, 1 = B.
    pub chosen: u8,
    /// Time from the end of playback to the answer (ms).
    pub rt_ms: f64,
}

impl ThresholdTrial {
    /// The reference was picked.
    pub fn correct(&self) -> bool {
        correct(self.reference_first, self.chosen)
    }
}

/// One participant's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipantThreshold {
    /// Participant id.
    pub participant: String,
    /// Their trials as (level, correct), in order (the staircase plot).
    pub track: Vec<(f64, bool)>,
    /// Trial indices that were reversals (staircase only).
    pub reversals: Vec<usize>,
    /// Their threshold, with a 95% interval when the procedure gives one.
    pub threshold: Option<(f64, Option<(f64, f64)>)>,
}

impl ParticipantThreshold {
    /// How far their answers spread around their threshold: a Psi
    /// threshold's 95% credible interval, or the lowest and highest of the
    /// staircase reversals it averages (`None` before there are enough).
    pub fn spread(&self, procedure: &Procedure) -> Option<(f64, f64)> {
        match procedure {
            Procedure::Psi { .. } => self.threshold?.1,
            Procedure::Staircase(rule) => {
                let k = rule.average as usize;
                if k == 0 || self.reversals.len() < k {
                    return None;
                }
                self.reversals[self.reversals.len() - k..]
                    .iter()
                    .filter_map(|&i| self.track.get(i).map(|t| t.0))
                    .fold(None, |acc: Option<(f64, f64)>, l| {
                        Some(acc.map_or((l, l), |(lo, hi)| (lo.min(l), hi.max(l))))
                    })
            }
        }
    }
}

/// What [`ParticipantThreshold::spread`] is for `procedure`, as a column
/// heading.
pub fn spread_heading(procedure: &Procedure) -> String {
    match procedure {
        Procedure::Psi { .. } => "95% credible interval".into(),
        Procedure::Staircase(rule) => format!("range of the last {} reversals", rule.average),
    }
}

/// The study's results.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdSummary {
    /// Per participant, in first-answer order.
    pub participants: Vec<ParticipantThreshold>,
    /// Every answer grouped by level: what the pooled fit was fitted to
    /// (and the curve's dots).
    pub data: Vec<Point>,
    /// Pooled fit (logistic), when any answers exist.
    pub pooled: Option<Fitted>,
    /// The pooled fit in one sentence.
    pub sentence: Option<String>,
}

/// Summarises `trials` of `design` (bootstrap drawn with `seed`).
pub fn summarize(design: &ThresholdDesign, trials: &[ThresholdTrial], seed: u64) -> ThresholdSummary {
    let mut ids: Vec<&str> = Vec::new();
    for t in trials {
        if !ids.contains(&t.participant.as_str()) {
            ids.push(&t.participant);
        }
    }
    let participants = ids
        .iter()
        .map(|id| {
            let mut mine: Vec<&ThresholdTrial> = trials.iter().filter(|t| t.participant == *id).collect();
            mine.sort_by_key(|t| t.trial);
            let mut a = Adaptive::new(design.procedure, design.range);
            let mut reversals = Vec::new();
            for t in &mine {
                let before = match &a {
                    Adaptive::Staircase(s) => s.reversal_levels.len(),
                    Adaptive::Psi(_) => 0,
                };
                a.record(t.level, t.correct());
                if let Adaptive::Staircase(s) = &a
                    && s.reversal_levels.len() > before
                {
                    reversals.push(t.trial);
                }
            }
            ParticipantThreshold {
                participant: (*id).to_string(),
                track: mine.iter().map(|t| (t.level, t.correct())).collect(),
                reversals,
                threshold: a.threshold(),
            }
        })
        .collect();
    let all: Vec<(f64, bool)> = trials.iter().map(|t| (t.level, t.correct())).collect();
    let data = points(&all);
    let pooled = fit_with_ci(Shape::Logistic, &data, seed);
    let sentence = pooled.as_ref().and_then(|f| {
        let reference = design.dimension.reference_value(&design.reference_profile().ok()?);
        Some(slo::summary(design.dimension, reference, f))
    });
    ThresholdSummary { participants, data, pooled, sentence }
}

/// One CSV row per trial: study, participant, trial, level, placement,
/// answer, correct, response time.
pub fn to_csv(study_id: &str, trials: &[ThresholdTrial]) -> String {
    let mut out = String::from("study,participant,trial,level,reference_side,chosen_side,correct,rt_ms\n");
    for t in trials {
        let side = |first: bool| if first { "A" } else { "B" };
        out.push_str(&format!(
            "{study_id},{},{},{},{},{},{},{:.1}\n",
            t.participant,
            t.trial,
            t.level,
            side(t.reference_first),
            side(t.chosen == 0),
            t.correct(),
            t.rt_ms
        ));
    }
    out
}

/// `base` with the tiers study `study`'s pooled fit places (the
/// scenario's id gets `-perceived`; its explanation names the study, its
/// participants and the threshold's interval).
pub fn from_study(
    study: &crate::study::Study,
    summary: &ThresholdSummary,
    base: &Scenario,
) -> Result<Scenario, PerceivedError> {
    let d = study.threshold.as_ref().ok_or(PerceivedError::NotThreshold)?;
    let metric = d.dimension.metric().ok_or(PerceivedError::NoMetric)?;
    let fit = summary.pooled.as_ref().ok_or(PerceivedError::NoFit)?;
    let reference = d.reference_profile().map_err(|_| PerceivedError::NotThreshold)?;
    let from = Provenance { study_id: study.id.clone(), participants: summary.participants.len() };
    slo::apply(base, metric, d.dimension.metric_reference(&reference), fit, &from)
        .ok_or(PerceivedError::Unreached)
}

#[cfg(test)]
mod tests {
    use super::super::design::Dimension;
    use super::super::psychometric::Psychometric;
    use super::super::staircase::Rule;
    use super::super::{Procedure, simulate};
    use super::*;
    use crate::replay::rng::Rng;

    #[test]
    fn simulated_participants_give_a_pooled_threshold_near_the_truth() {
        let design = ThresholdDesign {
            dimension: Dimension::Ttft,
            reference: "ttft=200,tpot=30,jitter=constant,tokens=60".into(),
            range: (10.0, 1000.0),
            procedure: Procedure::Staircase(Rule::default()),
            seed: 9,
        };
        let truth = Psychometric { shape: Shape::Logistic, alpha: 95.0, beta: 3.0, lapse: 0.01 };
        let mut rng = Rng::new(4);
        let mut trials = Vec::new();
        for p in 0..10u32 {
            let run = simulate::run(design.procedure, design.range, &truth, &mut rng);
            trials.extend(simulate::recorded(&design, p, &run));
        }
        let s = summarize(&design, &trials, 1);
        assert_eq!(s.participants.len(), 10);
        assert!(s.participants.iter().all(|p| p.threshold.is_some() && p.reversals.len() >= 8));
        let f = s.pooled.unwrap();
        // One seeded example (the coverage over 200 runs is in `simulate`).
        assert!(f.alpha_ci.0 < 95.0 && 95.0 < f.alpha_ci.1, "{f:?}");
        assert!(s.sentence.unwrap().starts_with("Half of your participants notice a TTFT increase of"));
        let csv = to_csv("jnd", &trials);
        assert_eq!(csv.lines().count(), trials.len() + 1);
        assert!(csv.lines().nth(1).unwrap().starts_with("jnd,p0,0,1000,"), "{}", csv.lines().nth(1).unwrap());
    }
}
