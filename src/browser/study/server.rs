//! Calls to the study server of the `latency-lab serve` that served this
//! page (same origin; routes in `crates/server/src/studies/http.rs`). The
//! researcher token goes only into the `Authorization` header of
//! researcher calls; participants' calls carry none.

use lab_core::study::Study;
use lab_core::study::delivery::{Delivery, classify};
pub use lab_core::study::hosting::{Hosted, Joined, Listed, PublishedReply};
use lab_core::study::results::StudyResults;
use lab_core::study::submit::Submission;
use serde::Deserialize;
use web_sys::{RequestCredentials, RequestInit};

use crate::browser::fetch::{self, header, text_of};
use crate::browser::files::js_message;

/// Why a call to the study server failed; each says it in one sentence
/// for people (`what`: the call, as the researcher or participant sees it).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StudyServerError {
    /// No reply at all (network, server down).
    #[error("{what}: the study server did not answer ({detail}). Is `latency-lab serve` running?")]
    NoAnswer {
        /// The call.
        what: &'static str,
        /// What the browser said.
        detail: String,
    },
    /// A static host answered: no study server behind this page.
    #[error(
        "{what}: this page is not served by `latency-lab serve`, which hosts studies (start it with ./lab serve and open the lab from it)"
    )]
    NotHere {
        /// The call.
        what: &'static str,
    },
    /// The server refused (its message).
    #[error("{what}: HTTP {status}: {message}")]
    Http {
        /// The call.
        what: &'static str,
        /// HTTP status.
        status: u16,
        /// The server's `{"error": …}` or the body.
        message: String,
    },
    /// A success whose body is not what the lab expects.
    #[error("{what}: the server's reply is not understood ({detail})")]
    Unreadable {
        /// The call.
        what: &'static str,
        /// What did not parse.
        detail: String,
    },
}

/// What the server said (`status` is `None` when it did not answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// HTTP status.
    pub status: Option<u16>,
    /// The body.
    pub body: String,
    /// `Retry-After`, if sent.
    pub retry_after: Option<String>,
}

impl Reply {
    /// The server's `{"error": …}` message, or the body.
    pub fn message(&self) -> String {
        lab_core::serve::protocol::refusal_message(&self.body)
    }

    /// What a reply that is not a success means, for the call `what`.
    fn failure(&self, what: &'static str) -> StudyServerError {
        match self.status {
            None => StudyServerError::NoAnswer { what, detail: self.body.clone() },
            Some(404) if self.body.trim_start().starts_with('<') => StudyServerError::NotHere { what },
            Some(status) => StudyServerError::Http { what, status, message: self.message() },
        }
    }

    fn ok(&self) -> bool {
        matches!(self.status, Some(200..=299))
    }
}

/// Sends a request to this origin.
async fn call(method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> Reply {
    let init = RequestInit::new();
    init.set_method(method);
    init.set_credentials(RequestCredentials::SameOrigin);
    let pairs: &[(&str, &str)] = if body.is_some() { &[("Content-Type", "application/json")] } else { &[] };
    match fetch::headers(pairs, token) {
        Ok(h) => init.set_headers(&h),
        Err(e) => return Reply { status: None, body: js_message(&e), retry_after: None },
    }
    if let Some(b) = body {
        init.set_body(&wasm_bindgen::JsValue::from_str(b));
    }
    match fetch::send(path, &init).await {
        Ok(r) => Reply {
            status: Some(r.status()),
            retry_after: header(&r, "retry-after"),
            body: text_of(&r).await,
        },
        Err(e) => Reply { status: None, body: e.to_string(), retry_after: None },
    }
}

fn parse<T: for<'de> Deserialize<'de>>(reply: &Reply, what: &'static str) -> Result<T, StudyServerError> {
    if !reply.ok() {
        return Err(reply.failure(what));
    }
    serde_json::from_str(&reply.body)
        .map_err(|e| StudyServerError::Unreadable { what, detail: e.to_string() })
}

/// Publishes a study: its short id and, when the server knows its public
/// address, its participant link.
pub async fn publish(study: &Study, token: &str) -> Result<PublishedReply, StudyServerError> {
    let reply = call("POST", "/api/studies", Some(token), Some(&study.to_json())).await;
    parse::<PublishedReply>(&reply, "Publishing failed")
}

/// The researcher's published studies.
pub async fn list(token: &str) -> Result<Vec<Listed>, StudyServerError> {
    parse(&call("GET", "/api/studies", Some(token), None).await, "The study server's list failed")
}

/// A published study's design as it was published (the researcher's
/// copy, condition names included).
pub async fn design(id: &str, token: &str) -> Result<Study, StudyServerError> {
    let reply = call("GET", &format!("/api/studies/{id}/design"), Some(token), None).await;
    parse(&reply, "Reading the published design failed")
}

/// Every answer to a published study.
pub async fn results(id: &str, token: &str) -> Result<StudyResults, StudyServerError> {
    const WHAT: &str = "Reading the server's answers failed";
    let reply = call("GET", &format!("/api/studies/{id}/results"), Some(token), None).await;
    if !reply.ok() {
        return Err(reply.failure(WHAT));
    }
    StudyResults::from_json(&reply.body)
        .map_err(|e| StudyServerError::Unreadable { what: WHAT, detail: e.to_string() })
}

/// Stops a published study taking answers.
pub async fn close(id: &str, token: &str) -> Result<(), StudyServerError> {
    let reply = call("POST", &format!("/api/studies/{id}/close"), Some(token), None).await;
    if reply.ok() { Ok(()) } else { Err(reply.failure("Closing failed")) }
}

/// A published study, as a participant gets it.
pub async fn hosted(id: &str) -> Result<Hosted, StudyServerError> {
    parse(&call("GET", &format!("/api/studies/{id}"), None, None).await, "This study cannot open")
}

/// Joins a published study.
pub async fn join(id: &str) -> Result<Joined, StudyServerError> {
    parse(
        &call("POST", &format!("/api/studies/{id}/participants"), None, None).await,
        "This study cannot start",
    )
}

/// Sends one answer; what the reply means for it.
pub async fn send_answer(id: &str, answer: &Submission) -> Delivery {
    let body = serde_json::to_string(answer).unwrap_or_default();
    let reply = call("POST", &format!("/api/studies/{id}/answers"), None, Some(&body)).await;
    classify(reply.status, reply.retry_after.as_deref(), &reply.message())
}
