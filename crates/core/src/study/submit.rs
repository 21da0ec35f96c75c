//! An answer sent to a study server, checked against the study's design
//! before it is stored (what `latency-lab serve` accepts from participants
//! of a published study).
//!
//! A participant's browser sends each answer as it is given: who (the
//! anonymous participant id and number), which trial, which question, the
//! value and the response time. The server trusts none of it beyond its
//! shape: [`accept`] rebuilds the trial from the design (the participant's
//! plan, [`super::plan::plan`]) and takes the block and the conditions
//! shown from there, never from the client; the question must be asked in
//! that trial and the value must be in its range. Nothing else is stored:
//! no free text, so nothing invites personal data the design did not ask
//! for.
//!
//! **Idempotency**: an answer is identified by (participant, trial,
//! question) ([`Submission::key`]); a retry of the same answer is a no-op,
//! and a file merged later ([`super::results::StudyResults::merge`]) counts
//! each answer once by the same key.

use serde::{Deserialize, Serialize};

use super::answer::{Answer, Response};
use super::plan::plan;
use super::session::Session;
use super::timing::{Timing, TimingError};
use super::{Question, Study};

/// Largest answer body the server reads (bytes).
pub const MAX_SUBMISSION_BYTES: usize = 4 * 1024;

/// Longest participant id (characters).
pub const MAX_PARTICIPANT_ID: usize = 64;

/// Highest participant number (the Latin-square row is number mod rows).
pub const MAX_PARTICIPANT_NUMBER: u32 = 1_000_000;

/// Longest response time kept (ms): one hour.
pub use super::answer::MAX_RT_MS;

/// One answer as a participant's browser sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// Anonymous participant id (letters, digits, `-`, `_`).
    pub participant: String,
    /// The participant's number (picks the plan).
    pub number: u32,
    /// Trial index in the participant's plan.
    pub trial: usize,
    /// Question id.
    pub question: String,
    /// The answer.
    pub answer: Answer,
    /// Time from the end of playback to the answer (ms).
    pub rt_ms: f64,
    /// The level the browser showed, in a threshold study: the server
    /// keeps its own (rebuilt from the design) and refuses the answer when
    /// the two differ by more than rounding ([`SAME_LEVEL`]), so an answer
    /// is never stored against a pair the participant did not see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// What the browser could show in this trial ([`super::timing`]):
    /// enums and bounded numbers only, checked by [`Timing::check`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

/// Relative difference within which the browser's level and the
/// server's are the same (the browser's wasm and the server's native
/// `ln`/`exp` may differ in the last bits).
pub const SAME_LEVEL: f64 = 1e-9;

/// Why an answer was refused (each a 4xx for the server).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SubmitError {
    /// Over [`MAX_SUBMISSION_BYTES`].
    #[error("the answer is over {MAX_SUBMISSION_BYTES} bytes")]
    TooLarge,
    /// Not the JSON of an answer.
    #[error("not an answer: {0}")]
    Shape(String),
    /// A participant id of the wrong shape.
    #[error("the participant id must be 1-64 letters, digits, '-' or '_'")]
    Participant,
    /// A participant number out of range.
    #[error("participant number out of range")]
    Number,
    /// No such trial in this participant's plan.
    #[error("trial {0} is not in this participant's plan")]
    Trial(usize),
    /// The question is not asked in that trial.
    #[error("question \"{0}\" is not asked in this trial")]
    Question(String),
    /// The browser showed another level than the design gives.
    #[error("trial {0} was not shown at the level this study gives it")]
    Shown(usize),
    /// The value is out of the question's range.
    #[error("answer out of range for question \"{0}\"")]
    Range(String),
    /// A response time that is not a number from 0 to an hour.
    #[error("the response time must be 0 to 3,600,000 ms")]
    ResponseTime,
    /// A browser timing no browser reports.
    #[error("the browser's timing: {0}")]
    Timing(#[from] TimingError),
}

impl Submission {
    /// Reads an answer body (size-limited, unknown fields refused).
    pub fn from_json(body: &[u8]) -> Result<Self, SubmitError> {
        if body.len() > MAX_SUBMISSION_BYTES {
            return Err(SubmitError::TooLarge);
        }
        serde_json::from_slice(body).map_err(|e| SubmitError::Shape(crate::trace::json_error::plain(&e)))
    }

    /// What a participant's browser sends for `response`, given in the
    /// session of participant `number` (the inverse of [`accept`]).
    pub fn of(response: &Response, number: u32) -> Self {
        Self {
            participant: response.participant.clone(),
            number,
            trial: response.trial,
            question: response.question.clone(),
            answer: response.answer.clone(),
            rt_ms: response.rt_ms,
            level: response.level,
            timing: response.timing,
        }
    }

    /// What makes two submissions the same answer.
    pub fn key(&self) -> (String, usize, String) {
        (self.participant.clone(), self.trial, self.question.clone())
    }
}

fn valid_participant(id: &str) -> bool {
    (1..=MAX_PARTICIPANT_ID).contains(&id.chars().count())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The response to store for `s`, checked against `study`; `earlier` are
/// the answers this participant gave before (a threshold study's next
/// trial depends on them: [`super::threshold::in_study::trials_after`]
/// rebuilds the trials, so a threshold answer must come after the one
/// before it; other studies ignore them).
pub fn accept(study: &Study, s: &Submission, earlier: &[Response]) -> Result<Response, SubmitError> {
    if !valid_participant(&s.participant) {
        return Err(SubmitError::Participant);
    }
    if s.number > MAX_PARTICIPANT_NUMBER {
        return Err(SubmitError::Number);
    }
    if !(s.rt_ms.is_finite() && (0.0..=MAX_RT_MS).contains(&s.rt_ms)) {
        return Err(SubmitError::ResponseTime);
    }
    if let Some(t) = &s.timing {
        t.check()?;
    }
    let trials = match &study.threshold {
        Some(d) => super::threshold::in_study::trials_after(d, &s.participant, s.number, earlier),
        None => plan(study, s.number),
    };
    let trial = trials.iter().find(|t| t.index == s.trial).ok_or(SubmitError::Trial(s.trial))?;
    let q = Session::questions(study, trial)
        .into_iter()
        .find(|q| q.id() == s.question)
        .ok_or_else(|| SubmitError::Question(s.question.clone()))?;
    let in_range = match (q, &s.answer) {
        (Question::Rating { points, .. }, Answer::Rating(v)) => (1..=*points).contains(v),
        (Question::Choice { .. }, Answer::Choice(side)) => *side <= 1,
        _ => false,
    };
    if !in_range {
        return Err(SubmitError::Range(s.question.clone()));
    }
    if let (Some(mine), Some(shown)) = (trial.level, s.level)
        && (mine - shown).abs() > SAME_LEVEL * mine.abs().max(1.0)
    {
        return Err(SubmitError::Shown(trial.index));
    }
    Ok(Response {
        participant: s.participant.clone(),
        trial: trial.index,
        block: trial.block,
        conditions: trial.conditions.clone(),
        question: s.question.clone(),
        answer: s.answer.clone(),
        rt_ms: s.rt_ms,
        level: trial.level,
        timing: s.timing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::timing::{Engine, SchedulerPath};

    fn study() -> Study {
        Study::example()
    }

    fn first_answer(study: &Study, number: u32) -> Submission {
        let trial = &plan(study, number)[0];
        let q = Session::questions(study, trial)[0];
        let answer = match q {
            Question::Rating { .. } => Answer::Rating(3),
            Question::Choice { .. } => Answer::Choice(1),
        };
        Submission {
            participant: "p-1".into(),
            number,
            trial: 0,
            question: q.id().to_string(),
            answer,
            rt_ms: 850.0,
            level: None,
            timing: Some(Timing {
                engine: Engine::WebKit,
                isolated: true,
                clock_step_ms: Some(0.02),
                refresh_hz: Some(60.0),
                scheduler: SchedulerPath::MainThread,
            }),
        }
    }

    #[test]
    fn an_answer_is_stored_with_what_the_design_showed() {
        let st = study();
        let s = first_answer(&st, 2);
        let r = accept(&st, &s, &[]).unwrap();
        let trial = &plan(&st, 2)[0];
        assert_eq!((r.trial, r.block, &r.conditions), (0, trial.block, &trial.conditions));
        assert_eq!(s.key(), ("p-1".to_string(), 0, s.question.clone()));
        let body = serde_json::to_vec(&s).unwrap();
        assert_eq!(Submission::from_json(&body).unwrap(), s);
        assert_eq!(Submission::of(&r, 2), s, "the browser's answer from its stored response");
        // The same answer once more is the same key: a retry, not a second answer.
        assert_eq!(Submission::from_json(&body).unwrap().key(), s.key());
    }

    #[test]
    fn what_the_design_does_not_ask_is_refused() {
        let st = study();
        let ok = first_answer(&st, 0);
        let bad = |f: &dyn Fn(&mut Submission)| {
            let mut s = ok.clone();
            f(&mut s);
            accept(&st, &s, &[]).unwrap_err()
        };
        assert_eq!(bad(&|s| s.participant = "a b".into()), SubmitError::Participant);
        assert_eq!(bad(&|s| s.participant = "x".repeat(65)), SubmitError::Participant);
        assert_eq!(bad(&|s| s.participant = String::new()), SubmitError::Participant);
        assert_eq!(bad(&|s| s.number = MAX_PARTICIPANT_NUMBER + 1), SubmitError::Number);
        assert_eq!(bad(&|s| s.trial = 10_000), SubmitError::Trial(10_000));
        assert_eq!(bad(&|s| s.question = "nope".into()), SubmitError::Question("nope".into()));
        assert_eq!(bad(&|s| s.rt_ms = f64::NAN), SubmitError::ResponseTime);
        assert_eq!(bad(&|s| s.rt_ms = -1.0), SubmitError::ResponseTime);
        let off = |s: &mut Submission| s.timing = s.timing.map(|t| Timing { clock_step_ms: Some(-1.0), ..t });
        assert_eq!(bad(&off), SubmitError::Timing(TimingError::ClockStep));
        let q = ok.question.clone();
        assert_eq!(
            bad(&|s| s.answer = match s.answer {
                Answer::Rating(_) => Answer::Rating(99),
                Answer::Choice(_) => Answer::Choice(2),
            }),
            SubmitError::Range(q.clone())
        );
        assert_eq!(
            bad(&|s| s.answer = match s.answer {
                Answer::Rating(_) => Answer::Choice(0),
                Answer::Choice(_) => Answer::Rating(1),
            }),
            SubmitError::Range(q)
        );
        assert_eq!(Submission::from_json(&vec![b' '; MAX_SUBMISSION_BYTES + 1]), Err(SubmitError::TooLarge));
        assert!(matches!(Submission::from_json(b"{\"participant\":\"p\"}"), Err(SubmitError::Shape(_))));
        let mut extra = serde_json::to_value(&ok).unwrap();
        extra["email"] = serde_json::json!("someone@example.com");
        let body = serde_json::to_vec(&extra).unwrap();
        assert!(matches!(Submission::from_json(&body), Err(SubmitError::Shape(_))), "no free fields");
    }
}
