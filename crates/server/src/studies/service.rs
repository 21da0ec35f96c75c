//! The rules of a study server, over any [`StudyStore`]: publishing a study
//! (validated, size-limited, given a short id), taking participants'
//! answers (the study must be open; each answer is checked against the
//! design by `lab_core::study::submit`, rate-limited per participant and
//! kept once), closing a study and reading its results.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use lab_core::serve::limit::{ANSWERS, JOINS, RateLimiter};
use lab_core::study::Study;
pub use lab_core::study::hosting::Joined;
use lab_core::study::results::StudyResults;
use lab_core::study::submit::{self, Submission, SubmitError};

use super::store::{Listed, Published, StudyStore};
use crate::db::StoreError;

/// Largest study a researcher may publish (bytes; recorded conditions
/// carry their traces).
pub const MAX_STUDY_BYTES: usize = 4 * 1024 * 1024;

/// Characters of a study id (Crockford base32 of 40 random bits: no
/// look-alike letters, easy to read out).
pub const ID_CHARS: usize = 8;

const BASE32: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The id written from 5 random bytes.
pub fn study_id(random: [u8; 5]) -> String {
    let mut bits = random.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
    let mut out = vec![0u8; ID_CHARS];
    for c in out.iter_mut().rev() {
        *c = BASE32[(bits & 31) as usize];
        bits >>= 5;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A publish's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    /// The published version.
    pub published: Published,
    /// It was published before with this very design and is still open.
    pub already: bool,
}

/// Why a study was not published.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// Over [`MAX_STUDY_BYTES`].
    #[error("the study is over 4 MiB")]
    TooLarge,
    /// Not a valid study.
    #[error("{0}")]
    Invalid(#[from] lab_core::study::StudyError),
    /// Ten random ids in a row were taken (never in practice).
    #[error("no free study id")]
    NoId,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What happened to an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    /// Kept now.
    Saved,
    /// Kept before (a retry): nothing changed.
    AlreadySaved,
}

/// Why an answer was not kept (each maps to an HTTP status).
#[derive(Debug, thiserror::Error)]
pub enum AnswerFailure {
    /// No such study.
    #[error("no study \"{0}\" on this server")]
    NotFound(String),
    /// The researcher closed it.
    #[error("this study is closed and takes no more answers")]
    Closed,
    /// Too many answers too fast from one participant.
    #[error("too many answers at once; try again in {0:.0} ms")]
    RateLimited(f64),
    /// The participant id was not handed out by this study.
    #[error("participant \"{0}\" has not joined this study: open the study link again")]
    NotJoined(String),
    /// Not an answer this study asks for.
    #[error(transparent)]
    Invalid(#[from] SubmitError),
    /// The store failed: the answer is not saved.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AnswerFailure {
    /// The HTTP status of the failure.
    pub fn status(&self) -> u16 {
        match self {
            Self::NotFound(_) => 404,
            Self::Closed => 410,
            Self::RateLimited(_) => 429,
            Self::NotJoined(_) => 400,
            Self::Invalid(SubmitError::TooLarge) => 413,
            Self::Invalid(_) => 400,
            Self::Store(_) => 500,
        }
    }
}

/// The id of participant `number`: their number (1-based) and 8 random
/// characters, so ids are never guessed from the number alone.
pub fn participant_id(number: u32, random: [u8; 5]) -> String {
    format!("p{:03}-{}", u64::from(number) + 1, study_id(random))
}

/// Designs kept parsed in memory (a design never changes once published;
/// only whether it is open does, and that is read from the store on every
/// answer, so a study closed by another server sharing the database stops
/// taking answers here at once).
pub const CACHED_DESIGNS: usize = 1_000;

/// A study server's rules over a store.
pub struct Studies<S> {
    store: S,
    designs: Mutex<HashMap<String, Arc<Study>>>,
    limiter: Mutex<RateLimiter>,
    joins: Mutex<RateLimiter>,
}

impl<S: StudyStore> Studies<S> {
    /// The rules over `store`.
    pub fn new(store: S) -> Self {
        Self {
            store,
            designs: Mutex::default(),
            limiter: Mutex::new(RateLimiter::new(ANSWERS)),
            joins: Mutex::new(RateLimiter::new(JOINS)),
        }
    }

    /// The store under the rules.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// A new participant of study `id` at `now_ms`: numbered by the server
    /// (joining order), so remote participants fill the Latin square's
    /// rows in turn.
    pub async fn join(&self, id: &str, now_ms: f64, random: [u8; 5]) -> Result<Joined, AnswerFailure> {
        self.taking_answers(id).await?;
        self.joins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(id, now_ms)
            .map_err(AnswerFailure::RateLimited)?;
        let name = move |number: u32| participant_id(number, random);
        let (number, participant) =
            self.store.join(id, &name).await?.ok_or_else(|| AnswerFailure::NotFound(id.to_string()))?;
        Ok(Joined { participant, number })
    }

    /// A published study.
    pub async fn study(&self, id: &str) -> Result<Option<Published>, StoreError> {
        self.store.study(id).await
    }

    /// Every published study.
    pub async fn list(&self) -> Result<Vec<Listed>, StoreError> {
        self.store.list().await
    }

    /// Publishes a study; `random` gives 5 fresh random bytes per try. A
    /// design identical to an open published one (a second click, another
    /// tab) is not published again: that version comes back, with its link
    /// and answers, and [`Publication::already`] says so.
    pub async fn publish(
        &self,
        body: &[u8],
        mut random: impl FnMut() -> [u8; 5],
    ) -> Result<Publication, PublishError> {
        if body.len() > MAX_STUDY_BYTES {
            return Err(PublishError::TooLarge);
        }
        let study = Study::from_json(&String::from_utf8_lossy(body))?;
        study.validate()?;
        for listed in self.store.list().await? {
            if listed.open
                && listed.study_id == study.id
                && let Some(p) = self.store.study(&listed.id).await?
                && p.study == study
            {
                return Ok(Publication { published: p, already: true });
            }
        }
        for _ in 0..10 {
            let p = Published { id: study_id(random()), study: study.clone(), open: true };
            if self.store.publish(&p).await? {
                return Ok(Publication { published: p, already: false });
            }
        }
        Err(PublishError::NoId)
    }

    /// Study `id` exists and is open (read from the store every time: a
    /// close by another server sharing the database counts at once).
    async fn taking_answers(&self, id: &str) -> Result<(), AnswerFailure> {
        match self.store.is_open(id).await? {
            None => Err(AnswerFailure::NotFound(id.to_string())),
            Some(false) => Err(AnswerFailure::Closed),
            Some(true) => Ok(()),
        }
    }

    /// The design of study `id`, parsed once.
    async fn design(&self, id: &str) -> Result<Option<Arc<Study>>, StoreError> {
        if let Some(d) = self.designs.lock().unwrap_or_else(PoisonError::into_inner).get(id) {
            return Ok(Some(Arc::clone(d)));
        }
        let Some(p) = self.store.study(id).await? else { return Ok(None) };
        let d = Arc::new(p.study);
        let mut cache = self.designs.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= CACHED_DESIGNS {
            cache.clear();
        }
        cache.insert(id.to_string(), Arc::clone(&d));
        Ok(Some(d))
    }

    /// Takes one answer to study `id` at `now_ms`.
    pub async fn answer(&self, id: &str, body: &[u8], now_ms: f64) -> Result<Submitted, AnswerFailure> {
        self.taking_answers(id).await?;
        let sub = Submission::from_json(body)?;
        if self.store.number(id, &sub.participant).await? != Some(sub.number) {
            return Err(AnswerFailure::NotJoined(sub.participant));
        }
        let key = format!("{id}/{}", sub.participant);
        self.limiter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(&key, now_ms)
            .map_err(AnswerFailure::RateLimited)?;
        let study = self.design(id).await?.ok_or_else(|| AnswerFailure::NotFound(id.to_string()))?;
        let earlier = match study.threshold {
            Some(_) => self.store.answers_of(id, &sub.participant).await?,
            None => Vec::new(),
        };
        let response = submit::accept(&study, &sub, &earlier)?;
        Ok(if self.store.add_answer(id, &response).await? {
            Submitted::Saved
        } else {
            Submitted::AlreadySaved
        })
    }

    /// Stops study `id` taking answers (`false`: no such study).
    pub async fn close(&self, id: &str) -> Result<bool, StoreError> {
        self.store.close(id).await
    }

    /// Every answer to study `id`, as a results file.
    pub async fn results(&self, id: &str) -> Result<Option<StudyResults>, StoreError> {
        let Some(design) = self.design(id).await? else { return Ok(None) };
        Ok(Some(StudyResults::new(&design.id, self.store.answers(id).await?)))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::store::MemoryStore;
    use super::*;
    use lab_core::study::plan::plan;
    use lab_core::study::results::Answer;
    use lab_core::study::session::Session;
    use lab_core::study::{Question, Study};

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    /// The body of a participant's answer to the first question of `trial`.
    pub(crate) fn answer_body(study: &Study, who: &Joined, trial: usize) -> Vec<u8> {
        let t = &plan(study, who.number)[trial];
        let q = Session::questions(study, t)[0];
        let answer = match q {
            Question::Rating { .. } => Answer::Rating(4),
            Question::Choice { .. } => Answer::Choice(0),
        };
        let s = Submission {
            participant: who.participant.clone(),
            number: who.number,
            trial,
            question: q.id().into(),
            answer,
            rt_ms: 900.0,
            level: None,
            timing: None,
        };
        serde_json::to_vec(&s).unwrap()
    }

    #[test]
    fn publish_answer_once_close() {
        block_on(async {
            let studies = Studies::new(MemoryStore::default());
            let study = Study::example();
            let mut n = 0u8;
            let p = studies
                .publish(study.to_json().as_bytes(), || {
                    n += 1;
                    [n; 5]
                })
                .await
                .unwrap()
                .published;
            assert_eq!(p.id.len(), ID_CHARS);
            let p1 = studies.join(&p.id, 0.0, [1; 5]).await.unwrap();
            assert_eq!((p1.number, p1.participant.as_str()), (0, "p001-040g2081"));
            let body = answer_body(&study, &p1, 0);
            let stranger = Joined { participant: "p009-x".into(), number: 8 };
            let e = studies.answer(&p.id, &answer_body(&study, &stranger, 0), 0.0).await.unwrap_err();
            assert_eq!(e.status(), 400, "a participant the server did not number");
            assert_eq!(studies.answer(&p.id, &body, 0.0).await.unwrap(), Submitted::Saved);
            assert_eq!(studies.answer(&p.id, &body, 1.0).await.unwrap(), Submitted::AlreadySaved);
            let r = studies.results(&p.id).await.unwrap().unwrap();
            assert_eq!((r.study_id.as_str(), r.responses.len()), (study.id.as_str(), 1));
            assert!(studies.close(&p.id).await.unwrap());
            let e = studies.answer(&p.id, &answer_body(&study, &p1, 1), 2.0).await.unwrap_err();
            assert_eq!(e.status(), 410);
            assert_eq!(studies.join(&p.id, 2.0, [2; 5]).await.unwrap_err().status(), 410);
            let e = studies.answer("nope", &body, 3.0).await.unwrap_err();
            assert_eq!(e.status(), 404);
        });
    }

    #[test]
    fn bad_studies_and_answers_say_why_with_a_status() {
        block_on(async {
            let studies = Studies::new(MemoryStore::default());
            assert!(matches!(studies.publish(b"{", || [1; 5]).await, Err(PublishError::Invalid(_))));
            let big = vec![b' '; MAX_STUDY_BYTES + 1];
            assert!(matches!(studies.publish(&big, || [1; 5]).await, Err(PublishError::TooLarge)));
            let study = Study::example();
            let p = studies.publish(study.to_json().as_bytes(), || [7; 5]).await.unwrap();
            assert!(!p.already);
            let p = p.published;
            // The same design again, still open: the same version, not a
            // second one beside it (issue 44: a second click made a new
            // link with 0 answers).
            let again = studies.publish(study.to_json().as_bytes(), || [9; 5]).await.unwrap();
            assert!(again.already && again.published == p, "{again:?}");
            // Another design whose random id is taken: the next bytes are tried.
            let mut other = study.clone();
            other.title.push_str(" (v2)");
            let mut tries = vec![[7; 5], [8; 5]].into_iter();
            let q = studies.publish(other.to_json().as_bytes(), || tries.next().unwrap()).await.unwrap();
            assert!(!q.already);
            assert_ne!(p.id, q.published.id);
            let e = studies.answer(&p.id, br#"{"participant":1}"#, 0.0).await.unwrap_err();
            assert_eq!(e.status(), 400);
            let e = studies.answer(&p.id, &vec![b' '; 5000], 0.0).await.unwrap_err();
            assert_eq!(e.status(), 413);
            // Once closed, the same design publishes a new version.
            assert!(studies.close(&p.id).await.unwrap());
            let reopened = studies.publish(study.to_json().as_bytes(), || [10; 5]).await.unwrap();
            assert!(!reopened.already && reopened.published.id != p.id);
        });
    }

    #[test]
    fn a_participant_answering_too_fast_is_slowed_down() {
        block_on(async {
            let studies = Studies::new(MemoryStore::default());
            let study = Study::example();
            let p = studies.publish(study.to_json().as_bytes(), || [3; 5]).await.unwrap().published;
            let fast = studies.join(&p.id, 0.0, [1; 5]).await.unwrap();
            let other = studies.join(&p.id, 0.0, [2; 5]).await.unwrap();
            assert_eq!(other.number, 1);
            let body = answer_body(&study, &fast, 0);
            let burst = ANSWERS.burst as usize;
            for _ in 0..burst {
                studies.answer(&p.id, &body, 0.0).await.unwrap();
            }
            let e = studies.answer(&p.id, &body, 0.0).await.unwrap_err();
            assert_eq!(e.status(), 429);
            assert!(
                studies.answer(&p.id, &answer_body(&study, &other, 0), 0.0).await.is_ok(),
                "per participant"
            );
            assert!(studies.answer(&p.id, &body, 1000.0).await.is_ok(), "tokens come back");
        });
        assert_eq!(study_id([0; 5]), "00000000");
        assert_eq!(study_id([255; 5]), "zzzzzzzz");
    }
}
