//! What a study server and the app say to each other: the bodies of the
//! study server's replies (`latency-lab serve`'s routes, docs/src/guide/study-server.md), defined once for the server that writes them and the
//! browser that reads them.

use serde::{Deserialize, Serialize};

use super::Study;

/// Reply to publishing (`POST /api/studies`: 201, or 200 when this very
/// design is published and open already).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishedReply {
    /// Short id (8 characters).
    pub id: String,
    /// The participant link's path, `/s/<id>`.
    pub link: String,
    /// The whole participant link, when the server knows its public
    /// address (`serve --public-url`); the page's own origin otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The design's own id (in results files).
    pub study_id: String,
    /// This design was published before and is still open: this is that
    /// version (its link and answers), not a new one.
    #[serde(default)]
    pub already: bool,
}

/// A published study as the researcher's list shows it (`GET /api/studies`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listed {
    /// Short id.
    pub id: String,
    /// The study's title.
    pub title: String,
    /// The design's own id (in results files).
    pub study_id: String,
    /// Taking answers.
    pub open: bool,
    /// Participants who joined.
    pub participants: u64,
    /// Answers kept.
    pub answers: u64,
    /// The participant link, when the server knows its public address
    /// (`serve --public-url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A study as participants get it (`GET /api/studies/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hosted {
    /// Short id.
    pub id: String,
    /// Taking answers.
    pub open: bool,
    /// The design.
    pub study: Study,
}

/// A participant who joined (`POST /api/studies/{id}/participants`, 201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// Their anonymous id (sent with every answer).
    pub participant: String,
    /// Their number, which picks their row of the Latin square (or seeds
    /// their random order).
    pub number: u32,
}

/// Path of the participant link of study `id`.
pub fn link_path(id: &str) -> String {
    format!("/s/{id}")
}
