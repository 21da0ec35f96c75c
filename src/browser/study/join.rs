//! How a participant enters a study, and who they are:
//!
//! - **Published on a study server** (`/s/<id>` → `#s/<id>`): the server
//!   numbers participants in joining order, so the Latin square's rows go
//!   to remote people in turn (exact balance); answers are sent as given.
//! - **A study link** (`#share=…`, no server): the number is drawn at
//!   random (`lab_core::study::flow::drawn_number`), so every row is
//!   equally likely for every person and rows balance in expectation.
//! - **The researcher's test run** (the designer's "Run as participant"):
//!   numbered after this browser's test sessions, with `test-` ids that
//!   results leave out unless asked.
//!
//! Reopening a link in the same browser returns to its session: in
//! progress, it resumes; finished, it shows that it is done (with the file
//! and the server's receipt), never a new participant. Participants'
//! copies of a study stay out of the designer's list.

use lab_core::share::route::Route;
use lab_core::study::Study;
use lab_core::study::flow::{Flow, drawn_number, is_test, test_participant_id};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::server::{self, StudyServerError};
use super::store::{self, SessionRef};
use super::use_participant_flow::UseParticipantFlow;
use crate::browser::idb::StoreError;
use crate::browser::page;

/// Why a published study could not open for a participant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JoinError {
    /// The study server did not let them in.
    #[error(transparent)]
    Server(#[from] StudyServerError),
    /// The study takes no more answers.
    #[error("This study is closed: it takes no more answers. Thank you for your interest.")]
    Closed,
    /// This browser could not keep the session.
    #[error("{0}")]
    Storage(#[from] StoreError),
}

impl UseParticipantFlow {
    /// The researcher runs `study` as a test participant.
    pub fn run_test(&self, study: Study) {
        let s = *self;
        self.enter(
            async move {
                let tests = store::sessions(&s.lib, &study.id).await.unwrap_or_default();
                let number = tests.iter().filter(|x| is_test(&x.participant)).count() as u32;
                let id = test_participant_id(number, page::random());
                store::save_study(&s.lib, &study).await?;
                s.start(Flow::begin_as(study, id, number), None).await
            },
            false,
        );
    }

    /// A participant opens a study link (no server): their session of it in
    /// this browser if there is one, else a new one with a drawn number.
    pub fn open_link(&self, study: Study) {
        let s = *self;
        self.enter(
            async move {
                let mine = store::sessions(&s.lib, &study.id).await.unwrap_or_default();
                if let Some(old) = mine.into_iter().find(|x| !is_test(&x.participant)) {
                    let r = SessionRef {
                        study_id: study.id.clone(),
                        participant: old.participant.clone(),
                        published: None,
                    };
                    store::set_active(&s.lib, Some(&r)).await?;
                    s.flow.set(Some(Flow::resume(study, old)));
                    s.server.set(None);
                    return Ok(());
                }
                let number = drawn_number(page::random());
                let flow = Flow::begin(study, number, page::random());
                store::save_participant_study(&s.lib, &flow.study).await?;
                s.start(flow, None).await
            },
            true,
        );
    }

    /// A participant opens study `id` published on this server: their
    /// session of it in this browser if there is one, else they join. The
    /// error says why the study cannot open.
    pub async fn open_published(&self, id: String) -> Result<(), JoinError> {
        let s = *self;
        s.starting.set_value(true);
        let opened = async {
            if let Some((r, study, session)) = store::published_session(&s.lib, &id).await {
                store::set_active(&s.lib, Some(&r)).await.map_err(JoinError::Storage)?;
                s.server.set(Some(id.clone()));
                s.flow.set(Some(Flow::resume(study, session)));
                s.outbox.flush();
                return Ok(());
            }
            let hosted = server::hosted(&id).await?;
            if !hosted.open {
                return Err(JoinError::Closed);
            }
            let joined = server::join(&id).await?;
            let flow = Flow::begin_as(hosted.study, joined.participant, joined.number);
            store::save_participant_study(&s.lib, &flow.study).await.map_err(JoinError::Storage)?;
            s.start(flow, Some(id.clone())).await.map_err(JoinError::Storage)
        }
        .await;
        s.starting.set_value(false);
        opened.map(|()| s.route.replace(Route::Participate))
    }

    /// Opens the session in progress saved in this browser; false when
    /// there is none.
    pub async fn resume(&self) -> bool {
        match store::active(&self.lib).await {
            Some((r, study, session)) => {
                self.server.set(r.published.clone());
                self.flow.set(Some(Flow::resume(study, session)));
                true
            }
            None => false,
        }
    }

    /// Sets up a participant, then shows the flow at `#participate` (in
    /// place of the current history entry when `replace`: a link is read
    /// once).
    fn enter(
        &self,
        setup: impl std::future::Future<Output = Result<(), StoreError>> + 'static,
        replace: bool,
    ) {
        let s = *self;
        s.starting.set_value(true);
        spawn_local(async move {
            let saved = setup.await;
            s.save_failed.set(saved.is_err());
            s.error.set(saved.err().map(|e| format!("Answers cannot be saved in this browser: {e}")));
            s.starting.set_value(false);
            if replace { s.route.replace(Route::Participate) } else { s.route.go(Route::Participate) }
        });
    }

    /// Saves a new participant's session, names it as the one in progress
    /// (and as the published study's, for `server_id`), and shows it.
    async fn start(&self, flow: Flow, server_id: Option<String>) -> Result<(), StoreError> {
        let r = SessionRef {
            study_id: flow.study.id.clone(),
            participant: flow.session.participant.clone(),
            published: server_id.clone(),
        };
        self.server.set(server_id.clone());
        let session = flow.session.clone();
        self.flow.set(Some(flow));
        store::save_session(&self.lib, &session).await?;
        if let Some(id) = &server_id {
            store::set_published_session(&self.lib, id, &r).await?;
        }
        store::set_active(&self.lib, Some(&r)).await
    }
}
