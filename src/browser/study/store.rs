//! Study designs and participant sessions in IndexedDB (through the
//! [`Library`]'s database): designs in [`idb::STUDIES`] keyed by study id,
//! sessions in [`idb::SESSIONS`] keyed `study/participant`. A session is
//! written after every answer and the write waits for its commit, so a
//! reload (or a crash) loses no answer. The session in progress is named by
//! a pointer ([`ACTIVE_KEY`]) so a reload returns to it.
//!
//! A participant's copy of a study (from a link or a study server) is kept
//! beside their session ([`save_participant_study`]), never among the
//! designer's studies: a participant who leaves the flow finds no design,
//! no condition name, in the study view. A published study's session is
//! found again from its server id ([`published_session`]), so reopening
//! the link resumes it, or shows it is done. Merged results files are kept
//! too ([`save_merged`]).

use lab_core::study::Study;
use lab_core::study::results::StudyResults;
use lab_core::study::session::Session;
use serde::{Deserialize, Serialize};

use crate::browser::idb::{self, StoreError};
use crate::browser::library::Library;

/// Key of the pointer to the session in progress (in the sessions store).
pub const ACTIVE_KEY: &str = "~active";
/// Key of the study open in the designer (in the studies store).
pub const CURRENT_KEY: &str = "~current";
/// Key prefix of participants' copies of studies (sessions store).
pub const PARTICIPANT_STUDY: &str = "~study/";
/// Key prefix of the session of a published study (sessions store).
pub const PUBLISHED_KEY: &str = "~published/";
/// Key prefix of merged results files (sessions store).
pub const MERGED_KEY: &str = "~merged/";

/// Names a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRef {
    /// The study's id.
    pub study_id: String,
    /// The participant's id.
    pub participant: String,
    /// The study server's id of the study, when it was published there
    /// (answers are then sent to it as they are given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

/// Key of a session.
pub fn session_key(study_id: &str, participant: &str) -> String {
    format!("{study_id}/{participant}")
}

/// Saves a study design and makes it the designer's current one.
pub async fn save_study(lib: &Library, study: &Study) -> Result<(), StoreError> {
    lib.put_doc(idb::STUDIES, &study.id, study.to_json()).await?;
    let current = serde_json::json!({ "id": study.id }).to_string();
    lib.put_doc(idb::STUDIES, CURRENT_KEY, current).await
}

/// Keeps a participant's copy of a study (out of the designer's list).
pub async fn save_participant_study(lib: &Library, study: &Study) -> Result<(), StoreError> {
    lib.put_doc(idb::SESSIONS, &format!("{PARTICIPANT_STUDY}{}", study.id), study.to_json()).await
}

/// The study of a session: the participant's copy, else the designer's.
async fn session_study(lib: &Library, id: &str) -> Result<Option<Study>, StoreError> {
    match lib.get_doc(idb::SESSIONS, &format!("{PARTICIPANT_STUDY}{id}")).await? {
        Some(text) => Study::from_json(&text).map(Some).map_err(|e| damaged("study", e.to_string())),
        None => study(lib, id).await,
    }
}

/// Names the session of published study `server_id` in this browser.
pub async fn set_published_session(lib: &Library, server_id: &str, r: &SessionRef) -> Result<(), StoreError> {
    let json = serde_json::to_string(r).map_err(|e| damaged("session", e.to_string()))?;
    lib.put_doc(idb::SESSIONS, &format!("{PUBLISHED_KEY}{server_id}"), json).await
}

/// The session of published study `server_id` in this browser, with its
/// study.
pub async fn published_session(lib: &Library, server_id: &str) -> Option<(SessionRef, Study, Session)> {
    let text = lib.get_doc(idb::SESSIONS, &format!("{PUBLISHED_KEY}{server_id}")).await.ok()??;
    let r: SessionRef = serde_json::from_str(&text).ok()?;
    let (study, session) = load(lib, &r).await?;
    Some((r, study, session))
}

/// Keeps a merged results file (keyed by its content: the same file merged
/// twice is kept once, two files of the same name both).
pub async fn save_merged(lib: &Library, results: &StudyResults) -> Result<(), StoreError> {
    let json = results.to_json();
    let hash =
        json.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    lib.put_doc(idb::SESSIONS, &format!("{MERGED_KEY}{}/{hash:016x}", results.study_id), json).await
}

/// The merged results files of a study.
pub async fn merged(lib: &Library, study_id: &str) -> Result<Vec<StudyResults>, StoreError> {
    Ok(lib
        .all_docs(idb::SESSIONS)
        .await?
        .iter()
        .filter_map(|t| StudyResults::from_json(t).ok())
        .filter(|r| r.study_id == study_id)
        .collect())
}

/// A saved study.
pub async fn study(lib: &Library, id: &str) -> Result<Option<Study>, StoreError> {
    match lib.get_doc(idb::STUDIES, id).await? {
        Some(text) => Study::from_json(&text).map(Some).map_err(|e| damaged("study", e.to_string())),
        None => Ok(None),
    }
}

/// Deletes a saved design (its sessions, if any, stay).
pub async fn delete_study(lib: &Library, id: &str) -> Result<(), StoreError> {
    lib.delete_doc(idb::STUDIES, id).await
}

/// Every saved study (designs that no longer validate are skipped).
pub async fn studies(lib: &Library) -> Result<Vec<Study>, StoreError> {
    Ok(lib.all_docs(idb::STUDIES).await?.iter().filter_map(|t| Study::from_json(t).ok()).collect())
}

/// The study open in the designer last time.
pub async fn current_study(lib: &Library) -> Option<Study> {
    let text = lib.get_doc(idb::STUDIES, CURRENT_KEY).await.ok()??;
    let id = serde_json::from_str::<serde_json::Value>(&text).ok()?.get("id")?.as_str()?.to_string();
    study(lib, &id).await.ok()?
}

/// Saves a session (after every answer).
pub async fn save_session(lib: &Library, session: &Session) -> Result<(), StoreError> {
    let json = serde_json::to_string(session).map_err(|e| damaged("session", e.to_string()))?;
    lib.put_doc(idb::SESSIONS, &session_key(&session.study_id, &session.participant), json).await
}

/// Every session of a study in this browser.
pub async fn sessions(lib: &Library, study_id: &str) -> Result<Vec<Session>, StoreError> {
    Ok(lib
        .all_docs(idb::SESSIONS)
        .await?
        .iter()
        .filter_map(|t| serde_json::from_str::<Session>(t).ok())
        .filter(|s| s.study_id == study_id)
        .collect())
}

/// Deletes a session.
pub async fn delete_session(lib: &Library, study_id: &str, participant: &str) -> Result<(), StoreError> {
    lib.delete_doc(idb::SESSIONS, &session_key(study_id, participant)).await
}

/// Names (or clears) the session in progress.
pub async fn set_active(lib: &Library, active: Option<&SessionRef>) -> Result<(), StoreError> {
    match active {
        Some(r) => lib.put_doc(idb::SESSIONS, ACTIVE_KEY, serde_json::to_string(r).unwrap_or_default()).await,
        None => lib.delete_doc(idb::SESSIONS, ACTIVE_KEY).await,
    }
}

/// The session in progress, with its study, if any.
pub async fn active(lib: &Library) -> Option<(SessionRef, Study, Session)> {
    let text = lib.get_doc(idb::SESSIONS, ACTIVE_KEY).await.ok()??;
    let r: SessionRef = serde_json::from_str(&text).ok()?;
    let (study, session) = load(lib, &r).await?;
    Some((r, study, session))
}

/// A named session and its study.
async fn load(lib: &Library, r: &SessionRef) -> Option<(Study, Session)> {
    let study = session_study(lib, &r.study_id).await.ok()??;
    let text = lib.get_doc(idb::SESSIONS, &session_key(&r.study_id, &r.participant)).await.ok()??;
    let session: Session = serde_json::from_str(&text).ok()?;
    Some((study, session))
}

fn damaged(what: &'static str, message: String) -> StoreError {
    StoreError::Damaged { what, message }
}
