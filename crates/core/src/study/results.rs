//! Participant sessions, answers and what they add up to.
//!
//! - A [`Session`] is one participant's run through the plan: answers are
//!   appended as they come (with the response time: from the end of the
//!   playback to the answer), so a session saved after every answer resumes
//!   exactly where it stopped.
//! - [`StudyResults`] gathers the answers of one or many participants (the
//!   files participants export merge without duplicates).
//! - [`summarize`]: per condition and rating question, the mean rating with
//!   its 95% t-interval; per pair of conditions and choice question, how
//!   often each was chosen with an exact two-sided binomial test against
//!   50/50; the share of "A" (left) choices as a placement-bias check; and a
//!   per-participant table.
//! - [`to_csv`]: one row per answer (RFC 4180 quoting).

use serde::{Deserialize, Serialize};

use super::plan::{Block, Trial, plan};
use super::threshold::in_study;
use super::timing::{Engine, Timing};
use super::{Question, Study};
use crate::study::inference::{MeanCi, binomial_test, mean_ci95};

/// An answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// A rating, 1 to the scale's points.
    Rating(u8),
    /// The chosen side of a pair: 0 = A (left), 1 = B (right).
    Choice(u8),
}

/// One answer to one question of one trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// Participant id.
    pub participant: String,
    /// Trial index in the participant's plan.
    pub trial: usize,
    /// Block.
    pub block: Block,
    /// Conditions shown (A, B for a choice).
    pub conditions: Vec<String>,
    /// Question id.
    pub question: String,
    /// Answer.
    pub answer: Answer,
    /// Time from the end of playback to the answer (ms).
    pub rt_ms: f64,
    /// A threshold study's level in this trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// What the participant's browser could show in this trial
    /// ([`super::timing`]; absent in answers saved before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

impl Response {
    /// False only when the trial was played with a recorded limit
    /// ([`Timing::limits`]); an answer without a timing counts as precise.
    pub fn precise(&self) -> bool {
        self.timing.is_none_or(|t| t.precise())
    }
}

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    /// The session is complete.
    #[error("the study is complete")]
    Done,
    /// Not a question of this trial.
    #[error("question \"{0}\" is not asked in this trial")]
    Question(String),
    /// Out of range.
    #[error("answer out of range for question \"{0}\"")]
    Range(String),
}

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
            timing: None,
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

/// The `format` tag of results files.
pub const RESULTS_FORMAT: &str = "latency-lab/study-results";

/// Answers of one or more participants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyResults {
    /// Always [`RESULTS_FORMAT`].
    pub format: String,
    /// The study's id.
    pub study_id: String,
    /// Answers.
    pub responses: Vec<Response>,
}

/// Why results could not be read or merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResultsError {
    /// Not a results file.
    #[error("not a study results file: {0}")]
    Parse(String),
    /// Results of another study.
    #[error("these results belong to study \"{found}\", not \"{expected}\"")]
    OtherStudy {
        /// The study being merged into.
        expected: String,
        /// The file's study.
        found: String,
    },
}

impl StudyResults {
    /// A results file of study `study_id` holding `responses`.
    pub fn new(study_id: &str, responses: Vec<Response>) -> Self {
        Self { format: RESULTS_FORMAT.into(), study_id: study_id.to_string(), responses }
    }

    /// Reads a results file.
    pub fn from_json(text: &str) -> Result<Self, ResultsError> {
        let r: StudyResults = serde_json::from_str(text)
            .map_err(|e| ResultsError::Parse(crate::trace::json_error::plain(&e)))?;
        if r.format != RESULTS_FORMAT {
            return Err(ResultsError::Parse(format!(
                "format is \"{}\", expected \"{RESULTS_FORMAT}\"",
                r.format
            )));
        }
        Ok(r)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The answers of real participants only: without the researcher's
    /// test sessions ([`super::flow::is_test`]).
    pub fn without_tests(&self) -> StudyResults {
        let responses =
            self.responses.iter().filter(|r| !super::flow::is_test(&r.participant)).cloned().collect();
        StudyResults { responses, ..self.clone() }
    }

    /// Without the answers whose trial was played with a limit
    /// ([`Response::precise`]), and how many were left out.
    pub fn precise_only(&self) -> (StudyResults, usize) {
        let responses: Vec<Response> = self.responses.iter().filter(|r| r.precise()).cloned().collect();
        let left_out = self.responses.len() - responses.len();
        (StudyResults { responses, ..self.clone() }, left_out)
    }

    /// Participants and answers per browser engine (engines in a fixed
    /// order; answers without a timing under "other").
    pub fn by_engine(&self) -> Vec<EngineRow> {
        let mut rows: Vec<(EngineRow, Vec<&str>)> = Vec::new();
        for r in &self.responses {
            let engine = r.timing.map_or(Engine::Other, |t| t.engine);
            let i = rows.iter().position(|(x, _)| x.engine == engine).unwrap_or_else(|| {
                rows.push((EngineRow { engine, participants: 0, answers: 0, imprecise: 0 }, Vec::new()));
                rows.len() - 1
            });
            let (row, seen) = &mut rows[i];
            row.answers += 1;
            row.imprecise += usize::from(!r.precise());
            if !seen.contains(&r.participant.as_str()) {
                seen.push(&r.participant);
                row.participants += 1;
            }
        }
        let mut out: Vec<EngineRow> = rows.into_iter().map(|(row, _)| row).collect();
        out.sort_by_key(|r| r.engine);
        out
    }

    /// Test sessions among these answers.
    pub fn test_participants(&self) -> Vec<String> {
        self.participants().into_iter().filter(|p| super::flow::is_test(p)).collect()
    }

    /// Adds another file's answers (same study; an answer already present,
    /// same participant, trial and question, is kept once).
    pub fn merge(&mut self, other: &StudyResults) -> Result<(), ResultsError> {
        if other.study_id != self.study_id {
            return Err(ResultsError::OtherStudy {
                expected: self.study_id.clone(),
                found: other.study_id.clone(),
            });
        }
        for r in &other.responses {
            let dup = self
                .responses
                .iter()
                .any(|x| x.participant == r.participant && x.trial == r.trial && x.question == r.question);
            if !dup {
                self.responses.push(r.clone());
            }
        }
        Ok(())
    }

    /// Participant ids, in first-answer order.
    pub fn participants(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.responses {
            if !out.contains(&r.participant) {
                out.push(r.participant.clone());
            }
        }
        out
    }
}

/// Answers from one browser engine ([`StudyResults::by_engine`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EngineRow {
    /// The engine.
    pub engine: Engine,
    /// Participants who answered in it.
    pub participants: usize,
    /// Their answers.
    pub answers: usize,
    /// Answers to trials played with a limit ([`Response::precise`]).
    pub imprecise: usize,
}

/// Ratings of one condition for one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingRow {
    /// Question id.
    pub question: String,
    /// Condition id.
    pub condition: String,
    /// Condition name.
    pub name: String,
    /// Mean and 95% CI (`None` without answers).
    pub ci: Option<MeanCi>,
    /// Points of the question's scale (1 … points).
    #[serde(default)]
    pub points: u8,
}

impl RatingRow {
    /// The interval read against the scale (clipped, flagged when
    /// uninformative).
    pub fn on_scale(&self) -> Option<super::inference::ScaleInterval> {
        super::inference::on_scale(self.ci.as_ref()?, 1.0, f64::from(self.points.max(2)))
    }

    /// The interval as results and reports write it: `low – high` on the
    /// scale, with "clipped" and "uninformative" said in words.
    pub fn interval_text(&self) -> String {
        let Some(s) = self.on_scale() else { return "– (one answer)".into() };
        let mut text = format!("{:.2} – {:.2}", s.low, s.high);
        if s.clipped {
            text.push_str(" (clipped to the scale)");
        }
        if s.uninformative {
            let n = self.ci.as_ref().map_or(0, |c| c.n);
            text.push_str(&format!("; uninformative at n = {n}: wider than the whole scale"));
        }
        text
    }
}

/// Choices between two conditions for one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChoiceRow {
    /// Question id.
    pub question: String,
    /// First condition (study order).
    pub a: String,
    /// Second condition.
    pub b: String,
    /// Times `a` was chosen.
    pub a_chosen: u64,
    /// Answers.
    pub n: u64,
    /// a_chosen / n.
    pub share_a: Option<f64>,
    /// Exact two-sided binomial p-value against 50/50.
    pub p_value: f64,
}

/// One participant's answers in short.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParticipantRow {
    /// Participant id.
    pub participant: String,
    /// Answers given.
    pub answers: usize,
    /// Mean rating per condition (study order), over all rating questions.
    pub mean_rating: Vec<Option<f64>>,
    /// Times each condition was chosen (study order).
    pub chosen: Vec<u64>,
    /// Median response time (ms).
    pub median_rt_ms: Option<f64>,
}

/// A study's results, summarized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Participants.
    pub participants: usize,
    /// Rating rows (question × condition).
    pub ratings: Vec<RatingRow>,
    /// Choice rows (question × pair).
    pub choices: Vec<ChoiceRow>,
    /// Share of choices for the left (A) placement, and its p-value against
    /// 50/50 (a placement bias check).
    pub left_share: Option<(f64, f64)>,
    /// Per participant.
    pub per_participant: Vec<ParticipantRow>,
}

fn chosen_id(r: &Response) -> Option<&str> {
    match r.answer {
        Answer::Choice(side) => r.conditions.get(usize::from(side)).map(String::as_str),
        Answer::Rating(_) => None,
    }
}

/// Summarizes the results of a study.
pub fn summarize(study: &Study, results: &StudyResults) -> Summary {
    let rs = &results.responses;
    let mut ratings = Vec::new();
    let mut choices = Vec::new();
    for q in &study.questions {
        match q {
            Question::Rating { id, points, .. } => {
                for c in &study.conditions {
                    let values: Vec<f64> = rs
                        .iter()
                        .filter(|r| &r.question == id && r.conditions.first() == Some(&c.id))
                        .filter_map(|r| match r.answer {
                            Answer::Rating(v) => Some(f64::from(v)),
                            Answer::Choice(_) => None,
                        })
                        .collect();
                    ratings.push(RatingRow {
                        question: id.clone(),
                        condition: c.id.clone(),
                        name: c.name.clone(),
                        ci: mean_ci95(&values),
                        points: *points,
                    });
                }
            }
            Question::Choice { id, .. } => {
                for (i, a) in study.conditions.iter().enumerate() {
                    for b in &study.conditions[i + 1..] {
                        let pair: Vec<&Response> = rs
                            .iter()
                            .filter(|r| {
                                &r.question == id
                                    && r.conditions.contains(&a.id)
                                    && r.conditions.contains(&b.id)
                            })
                            .collect();
                        let n = pair.len() as u64;
                        let a_chosen =
                            pair.iter().filter(|r| chosen_id(r) == Some(a.id.as_str())).count() as u64;
                        choices.push(ChoiceRow {
                            question: id.clone(),
                            a: a.id.clone(),
                            b: b.id.clone(),
                            a_chosen,
                            n,
                            share_a: (n > 0).then(|| a_chosen as f64 / n as f64),
                            p_value: binomial_test(a_chosen, n, 0.5),
                        });
                    }
                }
            }
        }
    }
    let all_choices: Vec<&Response> = rs.iter().filter(|r| matches!(r.answer, Answer::Choice(_))).collect();
    let left = all_choices.iter().filter(|r| r.answer == Answer::Choice(0)).count() as u64;
    let n = all_choices.len() as u64;
    let left_share = (n > 0).then(|| (left as f64 / n as f64, binomial_test(left, n, 0.5)));
    let per_participant = results
        .participants()
        .into_iter()
        .map(|p| {
            let mine: Vec<&Response> = rs.iter().filter(|r| r.participant == p).collect();
            let mean_rating = study
                .conditions
                .iter()
                .map(|c| {
                    let v: Vec<f64> = mine
                        .iter()
                        .filter(|r| r.conditions.first() == Some(&c.id))
                        .filter_map(|r| match r.answer {
                            Answer::Rating(v) => Some(f64::from(v)),
                            Answer::Choice(_) => None,
                        })
                        .collect();
                    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
                })
                .collect();
            let chosen = study
                .conditions
                .iter()
                .map(|c| mine.iter().filter(|r| chosen_id(r) == Some(c.id.as_str())).count() as u64)
                .collect();
            let rts = crate::measure::stats::Samples::from_finite(mine.iter().map(|r| r.rt_ms));
            ParticipantRow {
                participant: p,
                answers: mine.len(),
                mean_rating,
                chosen,
                median_rt_ms: rts.summary().map(|s| s.median),
            }
        })
        .collect::<Vec<_>>();
    Summary { participants: per_participant.len(), ratings, choices, left_share, per_participant }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// Header of [`to_csv`].
pub const CSV_HEADER: &str = "study,participant,trial,block,question,condition,condition_b,answer,chosen_condition,rt_ms,engine,precise";

/// One row per answer.
pub fn to_csv(results: &StudyResults) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for r in &results.responses {
        let (answer, chosen) = match r.answer {
            Answer::Rating(v) => (v.to_string(), String::new()),
            Answer::Choice(side) => {
                (if side == 0 { "A" } else { "B" }.to_string(), chosen_id(r).unwrap_or_default().to_string())
            }
        };
        let block = match r.block {
            Block::Rating => "rating",
            Block::Choice => "choice",
        };
        let fields = [
            csv_field(&results.study_id),
            csv_field(&r.participant),
            r.trial.to_string(),
            block.to_string(),
            csv_field(&r.question),
            csv_field(r.conditions.first().map_or("", String::as_str)),
            csv_field(r.conditions.get(1).map_or("", String::as_str)),
            answer,
            csv_field(&chosen),
            format!("{:.1}", r.rt_ms),
            r.timing.map_or("", |t| t.engine.id()).to_string(),
            r.precise().to_string(),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn answers_from_imprecise_playbacks_are_counted_by_engine_and_left_out_on_request() {
        use crate::study::timing::SchedulerPath;
        let timing = |engine, scheduler| Timing { engine, isolated: true, scheduler, ..Timing::default() };
        let rows = [
            ("p1", Some(timing(Engine::Blink, SchedulerPath::Workers))),
            ("p2", Some(timing(Engine::WebKit, SchedulerPath::Workers))),
            ("p2", Some(timing(Engine::WebKit, SchedulerPath::MainThread))),
            ("p3", Some(timing(Engine::WebKit, SchedulerPath::Workers))),
            ("p4", None),
        ];
        let responses = rows
            .iter()
            .enumerate()
            .map(|(i, (p, t))| Response {
                participant: (*p).into(),
                trial: i,
                block: crate::study::plan::Block::Rating,
                conditions: vec!["c1".into()],
                question: "q".into(),
                answer: Answer::Rating(3),
                rt_ms: 1.0,
                level: None,
                timing: *t,
            })
            .collect();
        let r = StudyResults::new("s", responses);
        let by = r.by_engine();
        let row = |e| by.iter().find(|x| x.engine == e).copied().unwrap();
        assert_eq!(
            by.iter().map(|x| x.engine).collect::<Vec<_>>(),
            [Engine::Blink, Engine::WebKit, Engine::Other]
        );
        assert_eq!(
            row(Engine::WebKit),
            EngineRow { engine: Engine::WebKit, participants: 2, answers: 3, imprecise: 1 }
        );
        assert_eq!(row(Engine::Other).answers, 1, "an answer without a timing");
        let (kept, left_out) = r.precise_only();
        assert_eq!(left_out, 1);
        assert!(kept.responses.iter().all(Response::precise));
        assert_eq!(kept.participants(), ["p1", "p2", "p3", "p4"], "p2's precise answer stays");
        let csv = to_csv(&r);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[3].ends_with(",webkit,false"), "{}", lines[3]);
        assert!(lines[5].ends_with(",,true"), "no timing: no engine, counted precise: {}", lines[5]);
    }

    #[test]
    fn test_sessions_are_left_out_on_request() {
        let mut r = StudyResults::new("s", Vec::new());
        for p in ["p001-a", "test-001-b", "p002-c"] {
            r.responses.push(Response {
                participant: p.into(),
                trial: 0,
                block: crate::study::plan::Block::Rating,
                conditions: vec!["c1".into()],
                question: "q".into(),
                answer: Answer::Rating(3),
                rt_ms: 1.0,
                level: None,
                timing: None,
            });
        }
        assert_eq!(r.test_participants(), ["test-001-b"]);
        assert_eq!(r.without_tests().participants(), ["p001-a", "p002-c"]);
    }
}
