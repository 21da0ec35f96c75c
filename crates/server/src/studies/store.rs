//! Where a study server keeps published studies and their answers: the
//! [`StudyStore`] trait, so the service's rules are tested without a
//! database ([`MemoryStore`], the test double) and the same rules run on
//! SQLite or PostgreSQL.

#[cfg(test)]
use std::collections::HashMap;
use std::future::Future;
#[cfg(test)]
use std::sync::{Mutex, PoisonError};

use lab_core::study::Study;
pub use lab_core::study::hosting::Listed;

use crate::db::StoreError;
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

/// Published studies and their answers.
pub trait StudyStore: Send + Sync {
    /// Keeps a newly published study (`false` when the id is taken).
    fn publish(&self, p: &Published) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// A published study.
    fn study(&self, id: &str) -> impl Future<Output = Result<Option<Published>, StoreError>> + Send;
    /// Whether a study takes answers (`None`: no such study).
    fn is_open(&self, id: &str) -> impl Future<Output = Result<Option<bool>, StoreError>> + Send;
    /// Stops a study taking answers (`false` when there is no such study).
    fn close(&self, id: &str) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// Numbers a new participant of study `id` (0, 1, 2, … in joining
    /// order, never twice) and keeps them under the id `name` gives their
    /// number; `None` when there is no such study.
    fn join(
        &self,
        id: &str,
        name: &Namer,
    ) -> impl Future<Output = Result<Option<(u32, String)>, StoreError>> + Send;
    /// The number of a participant who joined study `id`.
    fn number(
        &self,
        id: &str,
        participant: &str,
    ) -> impl Future<Output = Result<Option<u32>, StoreError>> + Send;
    /// Every published study, newest first.
    fn list(&self) -> impl Future<Output = Result<Vec<Listed>, StoreError>> + Send;
    /// Keeps an answer (`false` when the same participant, trial and
    /// question was kept before: a retry changes nothing).
    fn add_answer(&self, id: &str, r: &Response) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// The answers of a study, in the order they were kept.
    fn answers(&self, id: &str) -> impl Future<Output = Result<Vec<Response>, StoreError>> + Send;
    /// One participant's answers to study `id`, by trial (a threshold
    /// study's next trial is chosen from them).
    fn answers_of(
        &self,
        id: &str,
        participant: &str,
    ) -> impl Future<Output = Result<Vec<Response>, StoreError>> + Send;
}

/// Names a participant from their number.
pub type Namer = dyn Fn(u32) -> String + Sync;

#[cfg(test)]
/// Studies by id (in publishing order), answers by study id, participants'
/// numbers by study id.
type Tables = (Vec<Published>, HashMap<String, Vec<Response>>, HashMap<String, Vec<String>>);

/// The test double: everything in memory, gone with the process.
#[cfg(test)]
#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Tables>,
}

#[cfg(test)]
impl MemoryStore {
    fn with<T>(&self, f: impl FnOnce(&mut Tables) -> T) -> T {
        f(&mut self.inner.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[cfg(test)]
impl StudyStore for MemoryStore {
    async fn publish(&self, p: &Published) -> Result<bool, StoreError> {
        Ok(self.with(|(studies, ..)| {
            if studies.iter().any(|s| s.id == p.id) {
                return false;
            }
            studies.push(p.clone());
            true
        }))
    }

    async fn study(&self, id: &str) -> Result<Option<Published>, StoreError> {
        Ok(self.with(|(studies, ..)| studies.iter().find(|s| s.id == id).cloned()))
    }

    async fn is_open(&self, id: &str) -> Result<Option<bool>, StoreError> {
        Ok(self.with(|(studies, ..)| studies.iter().find(|s| s.id == id).map(|s| s.open)))
    }

    async fn close(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self
            .with(|(studies, ..)| studies.iter_mut().find(|s| s.id == id).map(|s| s.open = false).is_some()))
    }

    async fn join(&self, id: &str, name: &Namer) -> Result<Option<(u32, String)>, StoreError> {
        Ok(self.with(|(studies, _, joined)| {
            studies.iter().any(|s| s.id == id).then(|| {
                let list = joined.entry(id.to_string()).or_default();
                let number = list.len() as u32;
                list.push(name(number));
                (number, list[number as usize].clone())
            })
        }))
    }

    async fn number(&self, id: &str, participant: &str) -> Result<Option<u32>, StoreError> {
        Ok(self.with(|(_, _, joined)| {
            joined.get(id).and_then(|l| l.iter().position(|p| p == participant)).map(|n| n as u32)
        }))
    }

    async fn list(&self) -> Result<Vec<Listed>, StoreError> {
        Ok(self.with(|(studies, answers, joined)| {
            studies
                .iter()
                .rev()
                .map(|p| Listed {
                    id: p.id.clone(),
                    title: p.study.title.clone(),
                    study_id: p.study.id.clone(),
                    open: p.open,
                    participants: joined.get(&p.id).map_or(0, Vec::len) as u64,
                    answers: answers.get(&p.id).map_or(0, Vec::len) as u64,
                    url: None,
                })
                .collect()
        }))
    }

    async fn add_answer(&self, id: &str, r: &Response) -> Result<bool, StoreError> {
        Ok(self.with(|(_, answers, _)| {
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
        Ok(self.with(|(_, answers, _)| answers.get(id).cloned().unwrap_or_default()))
    }

    async fn answers_of(&self, id: &str, participant: &str) -> Result<Vec<Response>, StoreError> {
        let mut mine: Vec<Response> =
            self.answers(id).await?.into_iter().filter(|r| r.participant == participant).collect();
        mine.sort_by_key(|r| r.trial);
        Ok(mine)
    }
}
