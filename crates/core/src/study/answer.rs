//! Who answered what: an answer, one participant's answer to one question
//! of one trial ([`Response`], with its response time and, since issue 29,
//! what the browser could show: [`super::timing`]), why an answer is
//! refused, and participant ids (anonymous, and the researcher's own test
//! runs, [`is_test`]).
//!
//! The lowest study module: sessions ([`super::session`]), results files
//! ([`super::results`]), the answers a server accepts ([`super::submit`])
//! and threshold studies build on it.

use serde::{Deserialize, Serialize};

use super::plan::Block;
use super::timing::Timing;

/// Longest response time kept (ms): one hour.
pub const MAX_RT_MS: f64 = 3_600_000.0;

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

/// An anonymous participant id: the participant's number (1-based, three
/// digits) and six hex digits from `random` in `[0, 1)`.
pub fn participant_id(number: u32, random: f64) -> String {
    format!("p{:03}-{:06x}", number + 1, (random.clamp(0.0, 1.0) * 16_777_215.0) as u32)
}

/// Start of the ids of the researcher's own test sessions ("Run as
/// participant" in the designer): results leave them out unless asked.
pub const TEST_PREFIX: &str = "test-";

/// The id of the researcher's test session `number` (`test-001-3fa2c1`).
pub fn test_participant_id(number: u32, random: f64) -> String {
    format!("{TEST_PREFIX}{}", &participant_id(number, random)[1..])
}

/// Whether a participant id is a researcher's test session.
pub fn is_test(participant: &str) -> bool {
    participant.starts_with(TEST_PREFIX)
}
