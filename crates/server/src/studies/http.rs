//! The study server's routes (docs/src/guide/study-server.md documents each
//! with curl):
//!
//! | route | who | does |
//! |---|---|---|
//! | `POST /api/studies` | researcher | publishes a study (body: the study JSON) → 201 `{id, link}` |
//! | `GET /api/studies` | researcher | the published studies with their counts |
//! | `GET /api/studies/{id}` | anyone with the link | the study a participant plays (condition names replaced by ids), and whether it is open |
//! | `POST /api/studies/{id}/participants` | participant page | joins: the server's participant id and number |
//! | `POST /api/studies/{id}/answers` | participant page | one answer ([`lab_core::study::submit::Submission`]) → 201 saved, 200 kept before |
//! | `GET /api/studies/{id}/design` | researcher | the design as published (condition names included): what the answers were collected with |
//! | `GET /api/studies/{id}/results` | researcher | every answer as a results file (`?format=csv`: CSV) |
//! | `POST /api/studies/{id}/close` | researcher | stops new answers |
//! | `GET /s/{id}` | participant | the participant link: opens the app on the study |
//!
//! Researcher routes need `Authorization: Bearer <token>` (compared in
//! constant time), rate-limited per client address. Participant writes are
//! taken from the lab's own pages only (a browser's `Origin`, when sent,
//! must be the public URL or this machine's loopback address:
//! [`crate::ops::address::Origins`]; other sites' pages cannot post), and
//! carry no CORS headers. Links are built from `--public-url`, never from
//! the `Host` header. Every refusal is a 4xx
//! with `{"error": "…"}` saying why; nothing is stored.

use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use lab_core::serve::limit::{RESEARCHER, RateLimiter};
use lab_core::serve::token;
use lab_core::study::hosting::{Hosted, PublishedReply, link_path};
use lab_core::study::results::to_csv;
use lab_core::study::submit::MAX_SUBMISSION_BYTES;
use serde_json::json;

use super::service::{AnswerFailure, MAX_STUDY_BYTES, Publication, PublishError, Studies, Submitted};
use crate::db::Database;
use crate::db::StoreError;
use crate::db::setup::random;
use crate::error::{ApiError, WholeBody, refuse};
use crate::ops::address::{Origins, PublicUrl};
use crate::ops::metrics::Metrics;
use crate::ops::observe::ClientIp;

/// The study server's state.
pub struct StudyApi {
    studies: Studies<Database>,
    token: String,
    researcher: Mutex<RateLimiter>,
    start: Instant,
    origins: Origins,
    public: Option<PublicUrl>,
    metrics: Arc<Metrics>,
}

/// Where the study server is reached.
pub struct Reach {
    /// The pages whose writes are taken.
    pub origins: Origins,
    /// The public address links are built from.
    pub public: Option<PublicUrl>,
}

impl StudyApi {
    /// The routes' state over a store, with the researcher token.
    pub fn new(store: Database, token: String, reach: Reach, metrics: Arc<Metrics>) -> Self {
        Self {
            studies: Studies::new(store),
            token,
            researcher: Mutex::new(RateLimiter::new(RESEARCHER)),
            start: Instant::now(),
            origins: reach.origins,
            public: reach.public,
            metrics,
        }
    }

    /// Whether the database answers with its migrations applied (`/readyz`).
    pub async fn ready(&self) -> Result<(), StoreError> {
        self.studies.store().ready().await
    }

    /// Closes the database (after the last request).
    pub async fn close(&self) {
        self.studies.store().close().await;
    }

    /// The participant link of study `id`, when the public address is known.
    fn url(&self, id: &str) -> Option<String> {
        self.public.as_ref().map(|p| p.link(&link_path(id)))
    }

    /// Why a researcher request from `client` is refused (rate, then
    /// token), if it is.
    pub fn researcher(&self, headers: &HeaderMap, client: Option<IpAddr>) -> Option<Response> {
        let key = client.map_or_else(|| "unknown".to_string(), |ip| ip.to_string());
        let taken = self.researcher.lock().unwrap_or_else(PoisonError::into_inner).take(&key, self.now_ms());
        if let Err(ms) = taken {
            return Some(ApiError::too_many(ms).into_response());
        }
        let given = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(token::bearer);
        match given {
            Some(t) if token::matches(t, &self.token) => None,
            Some(_) => Some(refuse(StatusCode::UNAUTHORIZED, "wrong researcher token")),
            None => Some(refuse(
                StatusCode::UNAUTHORIZED,
                "researcher token missing: send \"Authorization: Bearer <token>\" (serve printed it on first start; it is in the token file)",
            )),
        }
    }

    /// Runs a database write, timing it as `write`.
    async fn timed<T>(&self, write: &'static str, f: impl std::future::Future<Output = T>) -> T {
        let start = Instant::now();
        let out = f.await;
        self.metrics.write(write, start.elapsed().as_secs_f64());
        out
    }

    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }
}

type Shared = State<Arc<StudyApi>>;
type Client = Option<Extension<ClientIp>>;

fn ip(c: Client) -> Option<IpAddr> {
    c.map(|Extension(ClientIp(ip))| ip)
}

fn store_failed(e: &StoreError) -> Response {
    tracing::error!("study database: {e}");
    refuse(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the study database failed; nothing was saved (the server log says why)",
    )
}

fn status(code: u16) -> StatusCode {
    StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST)
}

/// Participant writes come from the lab's own pages (or from no browser
/// at all: scripts send no `Origin`); the refusal otherwise.
fn cross_origin(api: &StudyApi, headers: &HeaderMap) -> Option<Response> {
    (!api.origins.allows_request(headers))
        .then(|| refuse(StatusCode::FORBIDDEN, "answers are taken only from the study's own page"))
}

fn answer_failure(e: &AnswerFailure) -> Response {
    match e {
        AnswerFailure::RateLimited(ms) => ApiError::too_many(*ms).into_response(),
        AnswerFailure::Store(e) => store_failed(e),
        other => refuse(status(other.status()), other),
    }
}

async fn publish(
    State(api): Shared,
    client: Client,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Response {
    if let Some(r) = api.researcher(&headers, ip(client)) {
        return r;
    }
    let mut failed = None;
    let publishing = api.studies.publish(&body, || {
        random::<5>().unwrap_or_else(|e| {
            failed = Some(e.to_string());
            [0; 5]
        })
    });
    let published = api.timed("publish", publishing).await;
    if let Some(e) = failed {
        return refuse(StatusCode::INTERNAL_SERVER_ERROR, e);
    }
    match published {
        Ok(Publication { published: p, already }) => {
            let reply = PublishedReply {
                link: link_path(&p.id),
                url: api.url(&p.id),
                id: p.id,
                study_id: p.study.id,
                already,
            };
            let status = if already { StatusCode::OK } else { StatusCode::CREATED };
            (status, Json(reply)).into_response()
        }
        Err(PublishError::TooLarge) => refuse(StatusCode::PAYLOAD_TOO_LARGE, PublishError::TooLarge),
        Err(PublishError::Store(e)) => store_failed(&e),
        Err(e @ PublishError::NoId) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e),
        Err(e) => refuse(StatusCode::BAD_REQUEST, format!("not a valid study: {e}")),
    }
}

async fn list(State(api): Shared, client: Client, headers: HeaderMap) -> Response {
    if let Some(r) = api.researcher(&headers, ip(client)) {
        return r;
    }
    match api.studies.list().await {
        Ok(mut list) => {
            for l in &mut list {
                l.url = api.url(&l.id);
            }
            Json(list).into_response()
        }
        Err(e) => store_failed(&e),
    }
}

async fn study(State(api): Shared, Path(id): Path<String>) -> Response {
    match api.studies.study(&id).await {
        // Participants get the study without the researcher's condition names.
        Ok(Some(p)) => Json(Hosted { id: p.id, open: p.open, study: p.study.blinded() }).into_response(),
        Ok(None) => refuse(StatusCode::NOT_FOUND, format!("no study \"{id}\" on this server")),
        Err(e) => store_failed(&e),
    }
}

/// The design as it was published, for the researcher: results are
/// computed from it, never from a draft edited since.
async fn design(State(api): Shared, Path(id): Path<String>, client: Client, headers: HeaderMap) -> Response {
    if let Some(r) = api.researcher(&headers, ip(client)) {
        return r;
    }
    match api.studies.study(&id).await {
        Ok(Some(p)) => Json(p.study).into_response(),
        Ok(None) => refuse(StatusCode::NOT_FOUND, format!("no study \"{id}\" on this server")),
        Err(e) => store_failed(&e),
    }
}

async fn join(State(api): Shared, Path(id): Path<String>, headers: HeaderMap) -> Response {
    if let Some(r) = cross_origin(&api, &headers) {
        return r;
    }
    let bytes = match random::<5>() {
        Ok(b) => b,
        Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, e),
    };
    match api.timed("join", api.studies.join(&id, api.now_ms(), bytes)).await {
        Ok(j) => (StatusCode::CREATED, Json(j)).into_response(),
        Err(e) => answer_failure(&e),
    }
}

async fn answer(
    State(api): Shared,
    Path(id): Path<String>,
    headers: HeaderMap,
    WholeBody(body): WholeBody,
) -> Response {
    if let Some(r) = cross_origin(&api, &headers) {
        return r;
    }
    match api.timed("answer", api.studies.answer(&id, &body, api.now_ms())).await {
        Ok(Submitted::Saved) => {
            api.metrics.answers_stored.inc();
            (StatusCode::CREATED, Json(json!({ "saved": true }))).into_response()
        }
        Ok(Submitted::AlreadySaved) => Json(json!({ "saved": true, "duplicate": true })).into_response(),
        Err(e) => answer_failure(&e),
    }
}

#[derive(serde::Deserialize)]
struct ResultsQuery {
    format: Option<String>,
}

async fn results(
    State(api): Shared,
    Path(id): Path<String>,
    Query(q): Query<ResultsQuery>,
    client: Client,
    headers: HeaderMap,
) -> Response {
    if let Some(r) = api.researcher(&headers, ip(client)) {
        return r;
    }
    match api.studies.results(&id).await {
        Ok(Some(r)) if q.format.as_deref() == Some("csv") => {
            ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], to_csv(&r)).into_response()
        }
        Ok(Some(r)) => ([(header::CONTENT_TYPE, "application/json")], r.to_json()).into_response(),
        Ok(None) => refuse(StatusCode::NOT_FOUND, format!("no study \"{id}\" on this server")),
        Err(e) => store_failed(&e),
    }
}

async fn close(State(api): Shared, Path(id): Path<String>, client: Client, headers: HeaderMap) -> Response {
    if let Some(r) = api.researcher(&headers, ip(client)) {
        return r;
    }
    match api.timed("close", api.studies.close(&id)).await {
        Ok(true) => Json(json!({ "id": id, "open": false })).into_response(),
        Ok(false) => refuse(StatusCode::NOT_FOUND, format!("no study \"{id}\" on this server")),
        Err(e) => store_failed(&e),
    }
}

/// The participant link opens the app on the study (a fragment route, so
/// the app works the same from any static host).
async fn link(Path(id): Path<String>) -> Response {
    if id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return refuse(StatusCode::NOT_FOUND, "not a study link");
    }
    Redirect::to(&format!("/#{}{id}", lab_core::share::route::PUBLISHED)).into_response()
}

/// Largest body of a participant request read before it is refused with
/// the plain size message (bigger ones are cut by the body limit).
const MAX_ANSWER_READ: usize = 16 * MAX_SUBMISSION_BYTES;

/// The study routes.
pub fn router(api: Arc<StudyApi>) -> Router {
    Router::new()
        .route("/api/studies", post(publish).get(list).layer(DefaultBodyLimit::max(MAX_STUDY_BYTES + 1024)))
        .route("/api/studies/{id}", get(study))
        .route("/api/studies/{id}/participants", post(join))
        .route("/api/studies/{id}/answers", post(answer).layer(DefaultBodyLimit::max(MAX_ANSWER_READ)))
        .route("/api/studies/{id}/design", get(design))
        .route("/api/studies/{id}/results", get(results))
        .route("/api/studies/{id}/close", post(close))
        .route("/s/{id}", get(link))
        .with_state(api)
}
