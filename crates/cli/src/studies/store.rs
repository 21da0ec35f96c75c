//! Where a study server keeps published studies and their answers: the
//! [`StudyStore`] trait, so the service's rules are tested without a
//! database ([`MemoryStore`], the test double) and the same rules run on
//! SQLite or PostgreSQL.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Mutex, PoisonError};

use lab_core::study::Study;
use lab_core::study::results::Response;

/// A published study.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// Short id (the participant link is `/s/<id>`).
    pub id: String,
    /// The design.
    pub study: Study,
    /// Taking answers.
    pub open: bool,
}

/// Why the store failed (the database's own message, for the server log
/// and a 500 that says the answer was not saved).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("study storage failed: {0}")]
pub struct StoreError(pub String);

/// Published studies and their answers.
pub trait StudyStore: Send + Sync {
    /// Keeps a newly published study (`false` when the id is taken).
    fn publish(&self, p: &Published) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// A published study.
    fn study(&self, id: &str) -> impl Future<Output = Result<Option<Published>, StoreError>> + Send;
    /// Stops a study taking answers (`false` when there is no such study).
    fn close(&self, id: &str) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Keeps an answer (`false` when the same participant, trial and
    /// question was kept before: a retry changes nothing).
    fn add_answer(&self, id: &str, r: &Response) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// The answers of a study, in the order they were kept.
    fn answers(&self, id: &str) -> impl Future<Output = Result<Vec<Response>, StoreError>> + Send;
}

/// Studies by id, and answers by study id.
type Tables = (HashMap<String, Published>, HashMap<String, Vec<Response>>);

/// The test double: everything in memory, gone with the process.
#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Tables>,
}

impl MemoryStore {
    fn with<T>(&self, f: impl FnOnce(&mut Tables) -> T) -> T {
        f(&mut self.inner.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl StudyStore for MemoryStore {
    async fn publish(&self, p: &Published) -> Result<bool, StoreError> {
        Ok(self.with(|(studies, _)| {
            if studies.contains_key(&p.id) {
                return false;
            }
            studies.insert(p.id.clone(), p.clone());
            true
        }))
    }

    async fn study(&self, id: &str) -> Result<Option<Published>, StoreError> {
        Ok(self.with(|(studies, _)| studies.get(id).cloned()))
    }

    async fn close(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.with(|(studies, _)| studies.get_mut(id).map(|s| s.open = false).is_some()))
    }

    async fn add_answer(&self, id: &str, r: &Response) -> Result<bool, StoreError> {
        Ok(self.with(|(_, answers)| {
            let list = answers.entry(id.to_string()).or_default();
            let dup = list
                .iter()
                .any(|x| x.participant == r.participant && x.trial == r.trial && x.question == r.question);
            if !dup {
                list.push(r.clone());
            }
            !dup
        }))
    }

    async fn answers(&self, id: &str) -> Result<Vec<Response>, StoreError> {
        Ok(self.with(|(_, answers)| answers.get(id).cloned().unwrap_or_default()))
    }
}
