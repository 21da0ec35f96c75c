//! What participants' answers add up to (answers themselves:
//! [`super::answer`]; a participant's run: [`super::session`]).
//!
//! - [`StudyResults`] gathers the answers of one or many participants (the
//!   files participants export merge without duplicates).
//! - [`summarize`]: per condition and rating question, the mean rating with
//!   its 95% t-interval; per pair of conditions and choice question, how
//!   often each was chosen with an exact two-sided binomial test against
//!   50/50; the share of "A" (left) choices as a placement-bias check; and a
//!   per-participant table.
//! - [`to_csv`]: one row per answer (RFC 4180 quoting).

use serde::{Deserialize, Serialize};

pub use super::answer::{Answer, AnswerError, Response};
use super::plan::Block;
use super::timing::Engine;
use super::{Question, Study};
use crate::study::inference::{MeanCi, binomial_test, mean_ci95};

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
    /// test sessions ([`super::answer::is_test`]).
    pub fn without_tests(&self) -> StudyResults {
        let responses =
            self.responses.iter().filter(|r| !super::answer::is_test(&r.participant)).cloned().collect();
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
        self.participants().into_iter().filter(|p| super::answer::is_test(p)).collect()
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

pub(crate) fn csv_field(s: &str) -> String {
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

    /// A rating of 3 by `participant` in `trial`.
    fn rating(participant: &str, trial: usize, timing: Option<crate::study::timing::Timing>) -> Response {
        Response {
            participant: participant.into(),
            trial,
            block: crate::study::plan::Block::Rating,
            conditions: vec!["c1".into()],
            question: "q".into(),
            answer: Answer::Rating(3),
            rt_ms: 1.0,
            level: None,
            timing,
        }
    }

    #[test]
    fn answers_from_imprecise_playbacks_are_counted_by_engine_and_left_out_on_request() {
        use crate::study::timing::{SchedulerPath, Timing};
        let timing = |engine, scheduler| Timing { engine, isolated: true, scheduler, ..Timing::default() };
        let rows = [
            ("p1", Some(timing(Engine::Blink, SchedulerPath::Workers))),
            ("p2", Some(timing(Engine::WebKit, SchedulerPath::Workers))),
            ("p2", Some(timing(Engine::WebKit, SchedulerPath::MainThread))),
            ("p3", Some(timing(Engine::WebKit, SchedulerPath::Workers))),
            ("p4", None),
        ];
        let responses = rows.iter().enumerate().map(|(i, (p, t))| rating(p, i, *t)).collect();
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
            r.responses.push(rating(p, 0, None));
        }
        assert_eq!(r.test_participants(), ["test-001-b"]);
        assert_eq!(r.without_tests().participants(), ["p001-a", "p002-c"]);
    }
}
