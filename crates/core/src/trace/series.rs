//! The series a request of a conversation run belongs to
//! ([`crate::trace::RequestTrace::group`]): the lab's conversation run
//! sends every turn twice over, once keeping its first message (a server's
//! prefix cache can reuse it) and once changing it every turn (nothing can
//! be reused). Recorded here, below the rooms that send (`load`) and read
//! (`measure`) such runs, so both name the series the same way.

use serde::{Deserialize, Serialize};

/// Which first message a conversation keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prefix {
    /// The same first message every turn (cache-friendly).
    Stable,
    /// A new nonce at the start of the first message every turn (cache-busting).
    Changed,
}

impl Prefix {
    /// Its name in tables and traces.
    pub fn word(self) -> &'static str {
        match self {
            Self::Stable => "stable prefix",
            Self::Changed => "changed prefix",
        }
    }
}

impl Prefix {
    /// The series named `word` in a trace, if it is one of these.
    pub fn of(word: &str) -> Option<Self> {
        [Self::Stable, Self::Changed].into_iter().find(|p| p.word() == word)
    }
}
