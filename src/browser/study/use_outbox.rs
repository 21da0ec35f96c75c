//! The answer outbox: a participant's answers on their way to the study
//! server. Each answer is written to IndexedDB first (so closing the tab,
//! a crash or going offline loses nothing), then sent; it leaves the
//! outbox when the server has kept it. What a reply means and when to try
//! again is `lab_core::study::delivery`'s (doubling waits up to 30 s, the
//! server's `Retry-After`, at once when the browser is back online). The
//! outbox is flushed when the page opens, so answers queued before a
//! reload or a server restart arrive then.

use lab_core::study::delivery::{Delivery, OutboxProblem, backoff_ms, sort_for_sending};
use lab_core::study::submit::Submission;
use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};

use super::server;
use crate::browser::idb;
use crate::browser::library::Library;

/// Key prefix of queued answers (sessions store).
pub const OUTBOX_KEY: &str = "~outbox/";

/// An answer waiting for the server.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Queued {
    /// The study server's id of the study.
    server_id: String,
    /// The answer.
    answer: Submission,
}

impl Queued {
    fn key(&self) -> String {
        let a = &self.answer;
        format!("{OUTBOX_KEY}{}/{}/{}/{}", self.server_id, a.participant, a.trial, a.question)
    }
}

/// The outbox's state, for the participant's status line.
#[derive(Clone, Copy)]
pub struct UseOutbox {
    /// Answers not yet kept by the server.
    pub waiting: RwSignal<usize>,
    /// Answers the server confirmed since the page opened.
    pub delivered: RwSignal<usize>,
    /// Why answers are waiting, or were refused.
    pub problem: RwSignal<Option<OutboxProblem>>,
    lib: Library,
    /// Answers pushed and not yet written to IndexedDB (counted as waiting).
    writing: StoredValue<usize>,
    attempt: StoredValue<u32>,
    busy: StoredValue<bool>,
    again: StoredValue<bool>,
    timer: StoredValue<Option<TimeoutHandle>>,
}

/// Opens the outbox and sends what it holds.
pub fn use_outbox(lib: Library) -> UseOutbox {
    let o = UseOutbox {
        waiting: RwSignal::new(0),
        delivered: RwSignal::new(0),
        problem: RwSignal::new(None),
        lib,
        writing: StoredValue::new(0),
        attempt: StoredValue::new(0),
        busy: StoredValue::new(false),
        again: StoredValue::new(false),
        timer: StoredValue::new(None),
    };
    let online = window_event_listener(ev::online, move |_| o.flush());
    on_cleanup(move || {
        online.remove();
        if let Some(t) = o.timer.try_get_value().flatten() {
            t.clear();
        }
    });
    o.flush();
    o
}

impl UseOutbox {
    /// Queues an answer to published study `server_id` and sends it.
    pub fn push(&self, server_id: String, answer: Submission) {
        let o = *self;
        let q = Queued { server_id, answer };
        // Waiting from now: "saved to the study server" must not show
        // before this answer is there.
        o.writing.update_value(|n| *n += 1);
        o.waiting.update(|n| *n += 1);
        spawn_local(async move {
            let json = serde_json::to_string(&q).unwrap_or_default();
            if let Err(e) = o.lib.put_doc(idb::SESSIONS, &q.key(), json).await {
                o.problem.set(Some(OutboxProblem::NotQueued(e.to_string())));
            }
            o.writing.update_value(|n| *n = n.saturating_sub(1));
            o.attempt.set_value(0);
            o.flush();
        });
    }

    /// Sends every queued answer now (one flush at a time; a flush asked
    /// for meanwhile runs after it).
    pub fn flush(&self) {
        let o = *self;
        if o.busy.get_value() {
            o.again.set_value(true);
            return;
        }
        if let Some(t) = o.timer.get_value() {
            t.clear();
            o.timer.set_value(None);
        }
        o.busy.set_value(true);
        spawn_local(async move {
            o.send_all().await;
            o.busy.set_value(false);
            if o.again.get_value() {
                o.again.set_value(false);
                o.flush();
            }
        });
    }

    /// Queued answers in the order they were given (keys sort trial 10
    /// before trial 2; a threshold study's server takes its trials in
    /// order only).
    async fn queued(&self) -> Vec<Queued> {
        let docs = self.lib.all_docs(idb::SESSIONS).await.unwrap_or_default();
        let mut q: Vec<Queued> = docs.iter().filter_map(|t| serde_json::from_str::<Queued>(t).ok()).collect();
        sort_for_sending(&mut q, |q| (q.server_id.as_str(), q.answer.participant.as_str(), q.answer.trial));
        q
    }

    async fn send_all(&self) {
        let mut queued = self.queued().await;
        let waiting = |left: usize| left + self.writing.get_value();
        self.waiting.set(waiting(queued.len()));
        while let Some(q) = queued.first().cloned() {
            match server::send_answer(&q.server_id, &q.answer).await {
                Delivery::Delivered => self.delivered.update(|n| *n += 1),
                Delivery::Refused(why) => self.problem.set(Some(OutboxProblem::Refused(why))),
                Delivery::Retry(after) => return self.retry_later(waiting(queued.len()), after),
            }
            let _ = self.lib.delete_doc(idb::SESSIONS, &q.key()).await;
            queued.remove(0);
            self.waiting.set(waiting(queued.len()));
        }
        self.attempt.set_value(0);
        if self.problem.with_untracked(|p| p.as_ref().is_some_and(OutboxProblem::ends_when_delivered)) {
            self.problem.set(None);
        }
    }

    fn retry_later(&self, waiting: usize, server_ms: Option<f64>) {
        let attempt = self.attempt.get_value();
        let wait = backoff_ms(attempt, server_ms);
        self.attempt.set_value(attempt + 1);
        self.problem.set(Some(OutboxProblem::Waiting { waiting, retry_in_ms: wait }));
        let o = *self;
        let handle =
            set_timeout_with_handle(move || o.flush(), std::time::Duration::from_millis(wait as u64));
        self.timer.set_value(handle.ok());
    }
}
