//! Blind, randomized perception studies of latency profiles.
//!
//! A [`Study`] is a JSON document: the conditions (each a latency profile,
//! or one recorded request), the text participants read (the stream shown),
//! the questions, repetitions and order. [`plan`] turns it into the trials of
//! one participant; [`results`] collects answers, summarizes them and exports
//! CSV/JSON; [`design`] has the designer's edits; [`flow`] is one participant's way through it (consent,
//! trials, answers) as a state machine; [`inference`] has the statistics (t intervals, the exact
//! binomial test); [`submit`] checks an answer sent to a study server against the design;
//! [`delivery`] says what a server's reply means for an answer waiting in a participant's outbox;
//! [`hosting`] has the study server's reply bodies; [`threshold`] measures just-noticeable differences adaptively; [`confound`] finds conditions that differ in more than latency (length, text, seed);
//! [`version`] freezes a design once it has answers (an edit makes a new version); [`timing`] is what a
//! participant's browser could show, recorded with each answer.
//!
//! - **Rating trial**: one condition plays; each rating question (a Likert
//!   scale of 5 or 7 points) is answered.
//! - **Choice trial** (2AFC): two conditions play side by side, labelled only
//!   "A" and "B"; the participant picks the one the question asks for
//!   ("which felt faster?"). Every pair appears in both placements.
//! - Participants only ever see blind labels ("Sample 3", "A", "B"), never a
//!   condition's name or profile.

pub mod answer;
pub mod confound;
pub mod delivery;
pub mod design;
pub mod flow;
pub mod hosting;
pub mod inference;
pub mod plan;
pub mod results;
pub mod session;
pub mod submit;
pub mod threshold;
pub mod timing;
pub mod version;

use serde::{Deserialize, Serialize};

use crate::replay::profile::{Profile, ProfileError};
use crate::replay::smooth::Smoothing;
use crate::trace::RequestTrace;

/// Current study file version.
pub const STUDY_SCHEMA_VERSION: u32 = 1;
/// Most conditions in a study.
pub const MAX_CONDITIONS: usize = 12;
/// Most repetitions.
pub const MAX_REPETITIONS: u32 = 20;

/// What a condition plays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConditionSource {
    /// A profile in its compact spec form (`ttft=300,tpot=20,…`) or a
    /// preset name.
    Profile(String),
    /// One recorded request, replayed exactly.
    Recorded(Box<RequestTrace>),
}

/// One condition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    /// Stable id (`c1`, …), used in results.
    pub id: String,
    /// The researcher's name for it (never shown to participants).
    pub name: String,
    /// What it plays.
    pub source: ConditionSource,
    /// How its text is paced onto the screen (as a chat front end would).
    #[serde(default, skip_serializing_if = "Smoothing::is_off")]
    pub smoothing: Smoothing,
}

impl Condition {
    /// The profile, for profile conditions.
    pub fn profile(&self) -> Result<Option<Profile>, ProfileError> {
        match &self.source {
            ConditionSource::Profile(spec) => {
                let p = crate::replay::profile::preset(spec).map_or_else(|| spec.parse::<Profile>(), Ok)?;
                Ok(Some(p))
            }
            ConditionSource::Recorded(_) => Ok(None),
        }
    }
}

/// A question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// A rating scale after each single-condition trial.
    Rating {
        /// Id used in results.
        id: String,
        /// The question.
        prompt: String,
        /// 5 or 7.
        points: u8,
        /// Label of 1.
        low: String,
        /// Label of the top.
        high: String,
    },
    /// A two-alternative forced choice after each pair trial.
    Choice {
        /// Id used in results.
        id: String,
        /// The question ("Which felt faster?").
        prompt: String,
    },
}

impl Question {
    /// Its id.
    pub fn id(&self) -> &str {
        match self {
            Self::Rating { id, .. } | Self::Choice { id, .. } => id,
        }
    }

    /// What it asks.
    pub fn prompt(&self) -> &str {
        match self {
            Self::Rating { prompt, .. } | Self::Choice { prompt, .. } => prompt,
        }
    }
}

/// How trials are ordered per participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Order {
    /// Shuffled with a seed (the participant number is mixed in, so each
    /// participant gets a different, reproducible order).
    Random {
        /// Seed.
        seed: u64,
    },
    /// Balanced Latin square (Williams design): participant p gets row
    /// p mod rows; every condition appears equally often at every position.
    LatinSquare,
}

/// A study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// File version.
    pub schema_version: u32,
    /// Id (results carry it).
    pub id: String,
    /// Title.
    pub title: String,
    /// Instructions shown before the first trial.
    #[serde(default)]
    pub instructions: String,
    /// Consent text the participant must accept, if any.
    #[serde(default)]
    pub consent: Option<String>,
    /// The stream's text: a sample name (`chat`, `article`, `code`).
    #[serde(default = "default_text")]
    pub text: String,
    /// Conditions.
    pub conditions: Vec<Condition>,
    /// Questions.
    pub questions: Vec<Question>,
    /// How often each condition (or pair) is shown.
    #[serde(default = "one")]
    pub repetitions: u32,
    /// Order.
    pub order: Order,
    /// Set for a threshold study: its pairs are chosen by this design's
    /// procedure ([`threshold::in_study`]) and `conditions` stay empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<threshold::design::ThresholdDesign>,
}

fn default_text() -> String {
    "chat".into()
}

fn one() -> u32 {
    1
}

/// Why a study cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StudyError {
    /// Not JSON or not a study.
    #[error("not a study file: {0}")]
    Parse(String),
    /// Made by a newer lab.
    #[error("study version {0} is newer than this lab reads ({STUDY_SCHEMA_VERSION})")]
    Version(u32),
    /// Too few or too many conditions.
    #[error("a study needs 2 to {MAX_CONDITIONS} conditions (it has {0})")]
    Conditions(usize),
    /// Duplicate ids.
    #[error("two conditions or questions share the id \"{0}\"")]
    DuplicateId(String),
    /// A condition's profile does not parse.
    #[error("condition \"{name}\": {message}")]
    Profile {
        /// The condition.
        name: String,
        /// Why.
        message: String,
    },
    /// No question.
    #[error("a study needs at least one question")]
    NoQuestion,
    /// Bad scale.
    #[error("question \"{0}\": a rating scale has 5 or 7 points")]
    Points(String),
    /// Bad repetitions.
    #[error("repetitions must be 1 to {MAX_REPETITIONS}")]
    Repetitions,
    /// A threshold study's design.
    #[error("threshold study: {0}")]
    Threshold(String),
}

impl Study {
    /// Reads and validates a study file.
    pub fn from_json(text: &str) -> Result<Self, StudyError> {
        let s: Study =
            serde_json::from_str(text).map_err(|e| StudyError::Parse(crate::trace::json_error::plain(&e)))?;
        s.validate()?;
        Ok(s)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The study as participants' browsers get it from a study server:
    /// each condition's name (the researcher's, which may say what the
    /// condition is) replaced by its id. Timings, text and questions stay:
    /// they are what the participant plays.
    pub fn blinded(&self) -> Study {
        let mut s = self.clone();
        for c in &mut s.conditions {
            c.name.clone_from(&c.id);
        }
        s
    }

    /// Checks everything a participant session relies on.
    pub fn validate(&self) -> Result<(), StudyError> {
        if self.schema_version > STUDY_SCHEMA_VERSION {
            return Err(StudyError::Version(self.schema_version));
        }
        if let Some(d) = &self.threshold {
            return self.validate_threshold(d);
        }
        if !(2..=MAX_CONDITIONS).contains(&self.conditions.len()) {
            return Err(StudyError::Conditions(self.conditions.len()));
        }
        if self.questions.is_empty() {
            return Err(StudyError::NoQuestion);
        }
        if !(1..=MAX_REPETITIONS).contains(&self.repetitions) {
            return Err(StudyError::Repetitions);
        }
        let mut ids: Vec<&str> = self.conditions.iter().map(|c| c.id.as_str()).collect();
        ids.extend(self.questions.iter().map(Question::id));
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(StudyError::DuplicateId((*id).to_string()));
            }
        }
        for c in &self.conditions {
            c.profile().map_err(|e| StudyError::Profile { name: c.name.clone(), message: e.to_string() })?;
        }
        for q in &self.questions {
            if let Question::Rating { id, points, .. } = q
                && !matches!(points, 5 | 7)
            {
                return Err(StudyError::Points(id.clone()));
            }
        }
        Ok(())
    }

    fn validate_threshold(&self, d: &threshold::design::ThresholdDesign) -> Result<(), StudyError> {
        d.validate().map_err(|e| StudyError::Threshold(e.to_string()))?;
        if !self.conditions.is_empty() {
            return Err(StudyError::Threshold("its pairs come from the design, not from conditions".into()));
        }
        match self.questions.as_slice() {
            [] => Err(StudyError::NoQuestion),
            [Question::Choice { .. }] => Ok(()),
            _ => Err(StudyError::Threshold("it asks exactly one A/B question of each pair".into())),
        }
    }

    /// A ready-made example: three profiles with the same tokens/s and
    /// different TTFT and jitter, a 7-point responsiveness rating and a
    /// "which felt faster" choice.
    pub fn example() -> Self {
        let c = |id: &str, name: &str, spec: &str| Condition {
            id: id.into(),
            name: name.into(),
            source: ConditionSource::Profile(spec.into()),
            smoothing: Smoothing::Off,
        };
        Study {
            schema_version: STUDY_SCHEMA_VERSION,
            id: "ttft-vs-jitter".into(),
            title: "Does the wait or the stutter matter more?".into(),
            instructions: "You will see a few answers stream in. Watch each one until it is complete, then answer. There are no right answers.".into(),
            consent: Some("I agree that my answers and response times are recorded anonymously for this study.".into()),
            text: "chat".into(),
            conditions: vec![
                c("c1", "fast start, steady", "ttft=200,tpot=40,jitter=constant,tokens=60,text=chat"),
                c("c2", "slow start, fast stream", "ttft=1500,tpot=20,jitter=constant,tokens=60,text=chat"),
                c("c3", "fast start, jittery", "ttft=200,tpot=40,jitter=gamma:1.2,tokens=60,text=chat,seed=5"),
            ],
            questions: vec![
                Question::Rating {
                    id: "responsive".into(),
                    prompt: "How responsive did this answer feel?".into(),
                    points: 7,
                    low: "very sluggish".into(),
                    high: "very responsive".into(),
                },
                Question::Choice { id: "faster".into(), prompt: "Which one felt faster?".into() },
            ],
            repetitions: 1,
            order: Order::LatinSquare,
            threshold: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_validates_and_round_trips() {
        let s = Study::example();
        s.validate().unwrap();
        assert_eq!(Study::from_json(&s.to_json()).unwrap(), s);
    }

    #[test]
    fn a_blinded_study_keeps_what_plays_and_drops_the_names() {
        let s = Study::example();
        let b = s.blinded();
        b.validate().unwrap();
        assert!(!b.to_json().contains("jittery") && !b.to_json().contains("slow start"));
        assert_eq!(b.conditions.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["c1", "c2", "c3"]);
        assert_eq!(crate::study::plan::plan(&b, 4), crate::study::plan::plan(&s, 4), "same trials");
        assert_eq!(
            b.conditions.iter().map(|c| &c.source).collect::<Vec<_>>(),
            s.conditions.iter().map(|c| &c.source).collect::<Vec<_>>()
        );
    }

    #[test]
    fn bad_studies_say_why() {
        let mut s = Study::example();
        s.conditions.truncate(1);
        assert_eq!(s.validate(), Err(StudyError::Conditions(1)));
        let mut s = Study::example();
        s.conditions[1].id = "c1".into();
        assert_eq!(s.validate(), Err(StudyError::DuplicateId("c1".into())));
        let mut s = Study::example();
        s.conditions[0].source = ConditionSource::Profile("ttft=fast".into());
        assert!(matches!(s.validate(), Err(StudyError::Profile { .. })));
        let mut s = Study::example();
        s.schema_version = 9;
        assert_eq!(s.validate(), Err(StudyError::Version(9)));
        assert!(matches!(Study::from_json("{"), Err(StudyError::Parse(_))));
        let mut s = Study::example();
        if let Question::Rating { points, .. } = &mut s.questions[0] {
            *points = 4;
        }
        assert_eq!(s.validate(), Err(StudyError::Points("responsive".into())));
    }
}
