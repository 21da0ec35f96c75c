//! Study designs and participant sessions in IndexedDB (through the
//! [`Library`]'s database): designs in [`idb::STUDIES`] keyed by study id,
//! sessions in [`idb::SESSIONS`] keyed `study/participant`. A session is
//! written after every answer and the write waits for its commit, so a
//! reload (or a crash) loses no answer. The session in progress is named by
//! a pointer ([`ACTIVE_KEY`]) so a reload returns to it.

use lab_core::study::Study;
use lab_core::study::results::Session;
use serde::{Deserialize, Serialize};

use crate::browser::idb;
use crate::browser::library::Library;

/// Key of the pointer to the session in progress (in the sessions store).
pub const ACTIVE_KEY: &str = "~active";
/// Key of the study open in the designer (in the studies store).
pub const CURRENT_KEY: &str = "~current";

/// Names a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRef {
    /// The study's id.
    pub study_id: String,
    /// The participant's id.
    pub participant: String,
}

/// Key of a session.
pub fn session_key(study_id: &str, participant: &str) -> String {
    format!("{study_id}/{participant}")
}

/// Saves a study design and makes it the designer's current one.
pub async fn save_study(lib: &Library, study: &Study) -> Result<(), String> {
    lib.put_doc(idb::STUDIES, &study.id, study.to_json()).await?;
    let current = serde_json::json!({ "id": study.id }).to_string();
    lib.put_doc(idb::STUDIES, CURRENT_KEY, current).await
}

/// A saved study.
pub async fn study(lib: &Library, id: &str) -> Result<Option<Study>, String> {
    match lib.get_doc(idb::STUDIES, id).await? {
        Some(text) => Study::from_json(&text).map(Some).map_err(|e| e.to_string()),
        None => Ok(None),
    }
}

/// Every saved study (designs that no longer validate are skipped).
pub async fn studies(lib: &Library) -> Result<Vec<Study>, String> {
    Ok(lib.all_docs(idb::STUDIES).await?.iter().filter_map(|t| Study::from_json(t).ok()).collect())
}

/// The study open in the designer last time.
pub async fn current_study(lib: &Library) -> Option<Study> {
    let text = lib.get_doc(idb::STUDIES, CURRENT_KEY).await.ok()??;
    let id = serde_json::from_str::<serde_json::Value>(&text).ok()?.get("id")?.as_str()?.to_string();
    study(lib, &id).await.ok()?
}

/// Saves a session (after every answer).
pub async fn save_session(lib: &Library, session: &Session) -> Result<(), String> {
    let json = serde_json::to_string(session).map_err(|e| e.to_string())?;
    lib.put_doc(idb::SESSIONS, &session_key(&session.study_id, &session.participant), json).await
}

/// Every session of a study in this browser.
pub async fn sessions(lib: &Library, study_id: &str) -> Result<Vec<Session>, String> {
    Ok(lib
        .all_docs(idb::SESSIONS)
        .await?
        .iter()
        .filter_map(|t| serde_json::from_str::<Session>(t).ok())
        .filter(|s| s.study_id == study_id)
        .collect())
}

/// Deletes a session.
pub async fn delete_session(lib: &Library, study_id: &str, participant: &str) -> Result<(), String> {
    lib.delete_doc(idb::SESSIONS, &session_key(study_id, participant)).await
}

/// Names (or clears) the session in progress.
pub async fn set_active(lib: &Library, active: Option<&SessionRef>) -> Result<(), String> {
    match active {
        Some(r) => lib.put_doc(idb::SESSIONS, ACTIVE_KEY, serde_json::to_string(r).unwrap_or_default()).await,
        None => lib.delete_doc(idb::SESSIONS, ACTIVE_KEY).await,
    }
}

/// The session in progress, with its study, if any.
pub async fn active(lib: &Library) -> Option<(Study, Session)> {
    let text = lib.get_doc(idb::SESSIONS, ACTIVE_KEY).await.ok()??;
    let r: SessionRef = serde_json::from_str(&text).ok()?;
    let study = study(lib, &r.study_id).await.ok()??;
    let text = lib.get_doc(idb::SESSIONS, &session_key(&r.study_id, &r.participant)).await.ok()??;
    let session: Session = serde_json::from_str(&text).ok()?;
    Some((study, session))
}
