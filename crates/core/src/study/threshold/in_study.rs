//! A threshold study inside the lab's study machinery: a [`Study`] whose
//! `threshold` is set runs its pairs through the same participant flow,
//! session storage, answer outbox, study server and results files as any
//! study, with these rules:
//!
//! - **Trials** are chosen one at a time: [`trials_after`] replays the
//!   participant's answers through the procedure and appends the next
//!   pair. Each trial is a choice trial whose conditions are
//!   [`REFERENCE`] and [`TEST`] in their placement (A first), with the
//!   trial's `level`; the study's one A/B question is asked of it.
//! - **Answers** keep the level ([`crate::study::answer::Response::level`])
//!   and the placement (the conditions), so a results file carries every
//!   trial whole: [`trials_of`] reads them back as [`ThresholdTrial`]s.
//! - A **study server** rebuilds the same trials from the participant's
//!   stored answers (`study::submit::accept`), so level and placement are
//!   the design's, never the browser's; answers therefore arrive in order.
//! - **Panes** ([`pair_panes`]): both samples stream the study's text;
//!   only the dimension differs (and, in a smoothing study, the display).

use super::analysis::ThresholdTrial;
use super::design::ThresholdDesign;
use super::session::ThresholdSession;
use crate::replay::pane::{PaneConfig, PaneSource, ProfileDraft};
use crate::replay::profile::TextSource;
use crate::study::answer::{Answer, Response};
use crate::study::plan::{Block, Trial};
use crate::study::{Order, Question, STUDY_SCHEMA_VERSION, Study};

/// Condition id of the reference sample in a threshold trial.
pub const REFERENCE: &str = "reference";
/// Condition id of the test sample in a threshold trial.
pub const TEST: &str = "test";
/// Id of a threshold study's question.
pub const QUESTION: &str = "pick";

/// The threshold trial an answer records (`None` for other answers).
pub fn trial_of(r: &Response) -> Option<ThresholdTrial> {
    let (level, Answer::Choice(chosen)) = (r.level?, &r.answer) else { return None };
    Some(ThresholdTrial {
        participant: r.participant.clone(),
        trial: r.trial,
        level,
        reference_first: r.conditions.first().is_some_and(|c| c == REFERENCE),
        chosen: *chosen,
        rt_ms: r.rt_ms,
    })
}

/// Every threshold trial among `responses`, by participant then trial.
pub fn trials_of(responses: &[Response]) -> Vec<ThresholdTrial> {
    let mut out: Vec<ThresholdTrial> = responses.iter().filter_map(trial_of).collect();
    out.sort_by(|a, b| (&a.participant, a.trial).cmp(&(&b.participant, b.trial)));
    out
}

/// The trials of participant `participant` (number `number`) so far: one
/// per answer in `responses` (as shown then), and the next pair while
/// the procedure goes on.
pub fn trials_after(
    design: &ThresholdDesign,
    participant: &str,
    number: u32,
    responses: &[Response],
) -> Vec<Trial> {
    let mut session = ThresholdSession::new(participant.to_string(), number);
    session.trials = trials_of(responses).into_iter().filter(|t| t.participant == participant).collect();
    let mut out: Vec<Trial> =
        session.trials.iter().map(|t| trial(t.trial, t.level, t.reference_first)).collect();
    if let Ok(Some(pair)) = session.next(design) {
        out.push(trial(pair.trial, pair.level, pair.reference_first));
    }
    out
}

fn trial(index: usize, level: f64, reference_first: bool) -> Trial {
    let conditions = if reference_first { [REFERENCE, TEST] } else { [TEST, REFERENCE] };
    Trial {
        index,
        block: Block::Choice,
        conditions: conditions.iter().map(|c| (*c).to_string()).collect(),
        level: Some(level),
    }
}

/// The two panes of threshold trial `t`, titled A and B.
pub fn pair_panes(design: &ThresholdDesign, text: &str, t: &Trial) -> Vec<PaneConfig> {
    let (Ok(reference), Some(level)) = (design.reference_profile(), t.level) else { return Vec::new() };
    let first = t.conditions.first().is_some_and(|c| c == REFERENCE);
    let (sides, smoothing) = design.dimension.sides(&reference, level, first);
    sides
        .into_iter()
        .zip(smoothing)
        .zip(["A", "B"])
        .map(|((mut profile, smoothing), title)| {
            profile.text = TextSource::Sample { id: text.to_string() };
            PaneConfig {
                title: title.to_string(),
                source: PaneSource::Profile(ProfileDraft { profile, prompt_tokens: 0 }),
                smoothing,
            }
        })
        .collect()
}

impl Study {
    /// A new threshold study of `design`: one A/B question (the
    /// dimension's "which felt faster/smoother?"), no conditions.
    pub fn new_threshold(design: ThresholdDesign) -> Self {
        let question = design.dimension.question().to_string();
        Study {
            schema_version: STUDY_SCHEMA_VERSION,
            id: format!("{}-threshold", design.dimension.id()),
            title: "Which one felt faster?".into(),
            instructions: "Each time, two answers stream in side by side, A and B. Watch both until they are complete, then pick the one that felt faster. When you cannot tell, pick the one you think it was: there is always an answer.".into(),
            consent: None,
            text: "chat".into(),
            conditions: Vec::new(),
            questions: vec![Question::Choice { id: QUESTION.into(), prompt: question }],
            repetitions: 1,
            order: Order::LatinSquare,
            threshold: Some(design),
        }
    }

    /// Whether it is a threshold study.
    pub fn is_threshold(&self) -> bool {
        self.threshold.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Procedure;
    use super::super::analysis::summarize;
    use super::super::design::Dimension;
    use super::super::psychometric::{Psychometric, Shape};
    use super::*;
    use crate::replay::rng::Rng;
    use crate::study::flow::{AfterAnswer, Flow, trial_panes};
    use crate::study::results::StudyResults;
    use crate::study::submit::{Submission, SubmitError, accept};

    fn study() -> Study {
        let mut d =
            ThresholdDesign::new(Dimension::Ttft, "ttft=200,tpot=20,jitter=constant,tokens=20".into(), 5);
        d.procedure = Procedure::Psi { trials: 30 };
        Study::new_threshold(d)
    }

    /// Plays a whole session as an observer of `truth` who sees the TTFTs.
    fn participate(s: &Study, number: u32, truth: &Psychometric, rng: &mut Rng) -> Flow {
        let mut f = Flow::begin(s.clone(), number, 0.25);
        f.start_trials();
        loop {
            let panes = f.play().expect("a pair plays");
            let ttft = |i: usize| match &panes[i].source {
                crate::replay::pane::PaneSource::Profile(p) => p.profile.ttft_ms,
                PaneSource::Recorded { .. } => unreachable!(),
            };
            let (faster, level) = (u8::from(ttft(1) < ttft(0)), (ttft(1) - ttft(0)).abs());
            f.playback_ended(1000.0, None);
            let pick = if rng.uniform() < truth.p(level) { faster } else { 1 - faster };
            if f.answer(QUESTION, Answer::Choice(pick), 1400.0).unwrap() == AfterAnswer::Done {
                return f;
            }
        }
    }

    #[test]
    fn a_threshold_study_runs_through_the_flow_and_its_results_file() {
        let s = study();
        s.validate().unwrap();
        assert_eq!(Study::from_json(&s.to_json()).unwrap(), s, "round-trips");
        let truth = Psychometric { shape: Shape::Logistic, alpha: 80.0, beta: 3.0, lapse: 0.02 };
        let mut rng = Rng::new(2);
        let mut all = StudyResults::new(&s.id, Vec::new());
        for number in 0..4 {
            let f = participate(&s, number, &truth, &mut rng);
            assert_eq!(f.session.responses.len(), 30);
            assert_eq!(f.progress_text(), "30 done (at most 30)");
            let t = &f.session.trials[3];
            let panes = trial_panes(&s, t);
            assert_eq!((panes[0].title.as_str(), panes[1].title.as_str()), ("A", "B"), "blind titles");
            all.merge(&StudyResults::from_json(&f.session.results().to_json()).unwrap()).unwrap();
        }
        let trials = trials_of(&all.responses);
        assert_eq!(trials.len(), 120, "every trial comes back from the file whole");
        let summary = summarize(s.threshold.as_ref().unwrap(), &trials, 1);
        assert_eq!(summary.participants.len(), 4);
        let fit = summary.pooled.unwrap();
        assert!(fit.alpha_ci.0 < 80.0 && 80.0 < fit.alpha_ci.1, "{fit:?}");
    }

    #[test]
    fn a_server_rebuilds_each_trial_from_the_answers_before_it() {
        let s = study();
        let truth = Psychometric { shape: Shape::Logistic, alpha: 80.0, beta: 3.0, lapse: 0.02 };
        let f = participate(&s, 3, &truth, &mut Rng::new(7));
        let who = f.session.participant.clone();
        let mut kept: Vec<Response> = Vec::new();
        for r in &f.session.responses {
            let sub = Submission::of(r, 3);
            if r.trial == 4 {
                let early = Submission { trial: 5, ..sub.clone() };
                assert_eq!(accept(&s, &early, &kept), Err(SubmitError::Trial(5)), "in order only");
            }
            let stored = accept(&s, &sub, &kept).unwrap();
            assert_eq!(&stored, r, "the server's level and placement are the browser's");
            kept.push(stored);
        }
        // A level the design does not give (beyond rounding) is refused.
        let next = Submission::of(&f.session.responses[0], 3);
        let off = Submission { level: next.level.map(|l| l * 1.001), ..next.clone() };
        assert_eq!(accept(&s, &off, &[]), Err(SubmitError::Shown(0)));
        let rounded = Submission { level: next.level.map(|l| l * (1.0 + 1e-13)), ..next };
        assert!(accept(&s, &rounded, &[]).is_ok(), "the last bits may differ between wasm and native");
        // A retry of an earlier answer is the same response (stored once).
        assert_eq!(accept(&s, &Submission::of(&kept[2], 3), &kept).unwrap(), kept[2]);
        // Another participant number places the pairs differently.
        let other = Submission { number: 4, ..Submission::of(&kept[0], 3) };
        let r = accept(&s, &other, &[]).unwrap();
        assert_eq!(r.level, kept[0].level, "the first level is the procedure's");
        let after = trials_after(s.threshold.as_ref().unwrap(), &who, 3, &kept);
        assert_eq!(after.len(), 30, "no trial after the last");
    }
}
