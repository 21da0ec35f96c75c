//! The health and metrics routes of `serve`: `/healthz` (the process
//! answers; `/health` as vLLM has it, which benchmark tools probe),
//! `/readyz` (the study database answers and its migrations are applied),
//! and `/metrics` ([`crate::ops::metrics`]) behind the researcher token, or
//! alone on `--metrics-bind`.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::ops::metrics::{self, Metrics};
use crate::ops::observe;
use crate::studies::http::StudyApi;

/// What the health and metrics routes read.
pub struct Ops {
    /// The study server (its database, its researcher token).
    pub studies: Arc<StudyApi>,
    /// The counters.
    pub metrics: Arc<Metrics>,
}

/// `/readyz`: 200 once the study database answers with every migration
/// applied, 503 saying why otherwise (a load balancer sends no participant
/// to a server that cannot store answers).
async fn readyz(State(ops): State<Arc<Ops>>) -> Response {
    match ops.studies.ready().await {
        Ok(()) => "ready\n".into_response(),
        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}\n")).into_response(),
    }
}

/// `/metrics` with the researcher token.
async fn metrics_guarded(
    State(ops): State<Arc<Ops>>,
    headers: HeaderMap,
    ip: Option<axum::Extension<observe::ClientIp>>,
) -> Response {
    if let Some(refused) = ops.studies.researcher(&headers, ip.map(|e| e.0.0)) {
        return refused;
    }
    metrics_text(&ops.metrics)
}

fn metrics_text(m: &Metrics) -> Response {
    ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], m.encode()).into_response()
}

/// The health routes and the guarded `/metrics`.
pub fn router(ops: Arc<Ops>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/health", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_guarded))
        .with_state(ops)
}

/// What `--metrics-bind` serves: `/metrics` without a token (the address
/// is the guard), and the health routes.
pub fn metrics_router(ops: Arc<Ops>) -> Router {
    let m = Arc::clone(&ops.metrics);
    Router::new()
        .route("/metrics", get(move || async move { metrics_text(&m) }))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(ops)
}
