//! One participant's run through a study's plan: answers are appended as
//! they come (with the response time: from the end of the playback to the
//! answer), so a session saved after every answer resumes exactly where it
//! stopped; a threshold study's next trial is chosen from the answers so
//! far ([`super::threshold::in_study`]).

use serde::{Deserialize, Serialize};

use super::answer::{Answer, AnswerError, Response};
use super::plan::{Block, Trial, plan};
use super::results::StudyResults;
use super::threshold::in_study;
use super::timing::Timing;
use super::{Question, Study};

/// One participant's session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The study's id.
    pub study_id: String,
    /// Participant id (random, anonymous).
    pub participant: String,
    /// The participant's number (picks the Latin-square row / seed).
    pub number: u32,
    /// Consent given.
    pub consented: bool,
    /// The plan.
    pub trials: Vec<Trial>,
    /// Answers so far.
    pub responses: Vec<Response>,
    /// The design it was run with ([`Study::fingerprint`]; absent in
    /// sessions saved before designs had versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
}

impl Session {
    /// A new session for participant `number` with id `participant`.
    pub fn new(study: &Study, participant: String, number: u32) -> Self {
        Self {
            study_id: study.id.clone(),
            number,
            consented: study.consent.is_none(),
            trials: match &study.threshold {
                Some(d) => in_study::trials_after(d, &participant, number, &[]),
                None => plan(study, number),
            },
            participant,
            responses: Vec::new(),
            design: Some(study.fingerprint()),
        }
    }

    /// Whether it was run with the design of `fingerprint`
    /// ([`Study::fingerprint`], computed once by the caller for many
    /// sessions); sessions of before design versions are taken as such.
    pub fn ran_with(&self, fingerprint: &str) -> bool {
        self.design.as_deref().is_none_or(|d| d == fingerprint)
    }

    /// Questions asked in a trial.
    pub fn questions<'a>(study: &'a Study, trial: &Trial) -> Vec<&'a Question> {
        study
            .questions
            .iter()
            .filter(|q| {
                matches!(
                    (q, trial.block),
                    (Question::Rating { .. }, Block::Rating) | (Question::Choice { .. }, Block::Choice)
                )
            })
            .collect()
    }

    /// The first trial with unanswered questions.
    pub fn current(&self, study: &Study) -> Option<&Trial> {
        self.trials.iter().find(|t| Self::questions(study, t).iter().any(|q| !self.answered(t.index, q.id())))
    }

    fn answered(&self, trial: usize, question: &str) -> bool {
        self.responses.iter().any(|r| r.trial == trial && r.question == question)
    }

    /// Trials fully answered.
    pub fn done_trials(&self, study: &Study) -> usize {
        self.trials
            .iter()
            .filter(|t| Self::questions(study, t).iter().all(|q| self.answered(t.index, q.id())))
            .count()
    }

    /// True when every trial is answered.
    pub fn is_complete(&self, study: &Study) -> bool {
        self.current(study).is_none()
    }

    /// Records an answer to `question` of the current trial.
    pub fn answer(
        &mut self,
        study: &Study,
        question: &str,
        answer: Answer,
        rt_ms: f64,
    ) -> Result<(), AnswerError> {
        self.answer_with(study, question, answer, rt_ms, None)
    }

    /// [`Self::answer`], recording what the browser could show in the trial
    /// ([`super::timing`]).
    pub fn answer_with(
        &mut self,
        study: &Study,
        question: &str,
        answer: Answer,
        rt_ms: f64,
        timing: Option<Timing>,
    ) -> Result<(), AnswerError> {
        let trial = self.current(study).ok_or(AnswerError::Done)?.clone();
        let q = Self::questions(study, &trial)
            .into_iter()
            .find(|q| q.id() == question)
            .ok_or_else(|| AnswerError::Question(question.to_string()))?;
        let ok = match (q, &answer) {
            (Question::Rating { points, .. }, Answer::Rating(v)) => (1..=*points).contains(v),
            (Question::Choice { .. }, Answer::Choice(side)) => *side <= 1,
            _ => false,
        };
        if !ok {
            return Err(AnswerError::Range(question.to_string()));
        }
        self.responses.retain(|r| !(r.trial == trial.index && r.question == question));
        self.responses.push(Response {
            participant: self.participant.clone(),
            trial: trial.index,
            block: trial.block,
            conditions: trial.conditions.clone(),
            question: question.to_string(),
            answer,
            rt_ms: if rt_ms.is_finite() { rt_ms.max(0.0) } else { 0.0 },
            level: trial.level,
            timing,
        });
        if let Some(d) = &study.threshold {
            // The procedure picks the next trial from the answers so far.
            self.trials = in_study::trials_after(d, &self.participant, self.number, &self.responses);
        }
        Ok(())
    }

    /// This session's answers as results.
    pub fn results(&self) -> StudyResults {
        StudyResults::new(&self.study_id, self.responses.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::results::{CSV_HEADER, ResultsError, csv_field, summarize, to_csv};

    fn run(
        study: &Study,
        who: &str,
        number: u32,
        rate: impl Fn(&str) -> u8,
        pick: impl Fn(&str, &str) -> u8,
    ) -> Session {
        let mut s = Session::new(study, who.into(), number);
        s.consented = true;
        while let Some(t) = s.current(study).cloned() {
            for q in Session::questions(study, &t) {
                let a = match q {
                    Question::Rating { .. } => Answer::Rating(rate(&t.conditions[0])),
                    Question::Choice { .. } => Answer::Choice(pick(&t.conditions[0], &t.conditions[1])),
                };
                s.answer(study, q.id(), a, 1000.0 + t.index as f64).unwrap();
            }
        }
        s
    }

    #[test]
    fn sessions_resume_and_refuse_bad_answers() {
        let study = Study::example();
        let mut s = Session::new(&study, "p1".into(), 0);
        assert_eq!(s.trials.len(), 3 + 6);
        assert_eq!(
            s.answer(&study, "faster", Answer::Choice(0), 1.0),
            Err(AnswerError::Question("faster".into()))
        );
        assert_eq!(
            s.answer(&study, "responsive", Answer::Rating(8), 1.0),
            Err(AnswerError::Range("responsive".into()))
        );
        s.answer(&study, "responsive", Answer::Rating(5), 900.0).unwrap();
        // Saved and reloaded mid-study: it continues at trial 1.
        let back: Session = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back.current(&study).unwrap().index, 1);
        assert_eq!(back.done_trials(&study), 1);
    }

    #[test]
    fn summary_statistics_known_values() {
        let study = Study::example();
        // Ratings: c1 → 6, c2 → 3, c3 → 4 for p1; 7, 2, 4 for p2; 5, 4, 4 for p3.
        let ratings = [[6, 3, 4], [7, 2, 4], [5, 4, 4]];
        let mut all: Option<StudyResults> = None;
        for (p, r) in ratings.iter().enumerate() {
            // Always choose c1 when shown; else the left one.
            let s = run(
                &study,
                &format!("p{p}"),
                p as u32,
                |c| r[c[1..].parse::<usize>().unwrap() - 1],
                |_, b| u8::from(b == "c1"),
            );
            assert!(s.is_complete(&study));
            match &mut all {
                None => all = Some(s.results()),
                Some(x) => x.merge(&s.results()).unwrap(),
            }
        }
        let mut all = all.unwrap();
        // Merging a file twice adds nothing.
        let before = all.responses.len();
        all.merge(&all.clone()).unwrap();
        assert_eq!(all.responses.len(), before);
        let sum = summarize(&study, &all);
        assert_eq!(sum.participants, 3);
        let c1 = sum.ratings.iter().find(|r| r.condition == "c1").unwrap().ci.unwrap();
        // 6, 7, 5: mean 6, sd 1, t(0.975, 2) = 4.302653 → ± 2.484138
        assert!((c1.mean - 6.0).abs() < 1e-12 && (c1.sd - 1.0).abs() < 1e-12);
        assert!((c1.high.unwrap() - 8.484_138).abs() < 1e-5, "{c1:?}");
        let c3 = sum.ratings.iter().find(|r| r.condition == "c3").unwrap().ci.unwrap();
        assert_eq!((c3.mean, c3.sd), (4.0, 0.0));
        // c1 vs c2: 3 participants × 2 placements, c1 always chosen: 6 of 6, p = 2/64.
        let c12 = sum.choices.iter().find(|r| r.a == "c1" && r.b == "c2").unwrap();
        assert_eq!((c12.a_chosen, c12.n), (6, 6));
        assert!((c12.p_value - 0.031_25).abs() < 1e-12);
        // c2 vs c3: always the left (A) one: 3 of 6 each.
        let c23 = sum.choices.iter().find(|r| r.a == "c2" && r.b == "c3").unwrap();
        assert_eq!((c23.a_chosen, c23.n), (3, 6));
        assert_eq!(sum.per_participant[1].mean_rating, vec![Some(7.0), Some(2.0), Some(4.0)]);

        let csv = to_csv(&all);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(lines.len(), 1 + 3 * (3 + 6));
        assert!(
            lines.iter().any(|l| l.starts_with("ttft-vs-jitter,p0,") && l.contains(",rating,responsive,"))
        );
        assert_eq!(StudyResults::from_json(&all.to_json()).unwrap(), all);
        let other = StudyResults { study_id: "x".into(), ..all.clone() };
        assert!(matches!(all.merge(&other), Err(ResultsError::OtherStudy { .. })));
        assert_eq!(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
