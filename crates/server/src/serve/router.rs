//! The routes of `serve`, put together: the replay API with open CORS, the
//! study server, health checks and metrics, the built-in load, the field
//! collector and the app's files; every request counted and logged.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, Method};
use axum::routing::{get, post};
use lab_core::serve::protocol::{GROUND_TRUTH_PATH, REQUEST_ID_HEADER};
use tower_http::cors::{AllowHeaders, Any, CorsLayer};

use crate::health::Ops;
use crate::ops::observe::{Observer, observe};
use crate::replay::api::{self, Api};
use crate::site::header;
use crate::studies::http::StudyApi;

/// The API routes.
pub fn api_router(api: Arc<Api>) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([HeaderName::from_static(REQUEST_ID_HEADER), HeaderName::from_static("retry-after")])
        .max_age(std::time::Duration::from_secs(600));
    Router::new()
        .route("/v1/models", get(api::models))
        .route("/v1/chat/completions", post(api::chat))
        .route("/v1/completions", post(api::completions))
        .route("/v1/responses", post(api::responses))
        .route("/v1/messages", post(api::messages))
        .route("/v1beta/models", get(api::gemini_models))
        .route("/v1beta/models/{model_action}", post(api::gemini))
        // Gemini's stable version: google-genai (Python) calls it by default.
        .route("/v1/models/{model_action}", post(api::gemini))
        .route("/api/tags", get(api::ollama_tags))
        .route("/api/chat", post(api::ollama_chat))
        .route("/api/generate", post(api::ollama_generate))
        .route("/v1/lab/{page_stream}", post(api::page_stream).get(crate::replay::pages::page_get))
        .route(&format!("{GROUND_TRUTH_PATH}{{id}}"), get(api::ground_truth))
        .with_state(api)
        // Bodies up to the replay endpoint's own limit reach it, which
        // refuses one over it in the route's wire.
        .layer(axum::extract::DefaultBodyLimit::max(api::MAX_BODY_BYTES))
        .layer(header("timing-allow-origin", "*"))
        .layer(header("cross-origin-resource-policy", "cross-origin"))
        .layer(cors)
}

/// What every serving thread's router serves ([`super::Server::open`]
/// opens it from a [`super::Config`]).
#[derive(Clone)]
pub struct Routes {
    /// The replay endpoint (its pacer is the thread's own: [`Routes::on_thread`]).
    pub api: Arc<Api>,
    /// The built app, unless `--api-only`.
    pub dist: Option<PathBuf>,
    /// The study server.
    pub studies: Arc<StudyApi>,
    /// Health checks and metrics.
    pub ops: Arc<Ops>,
    /// Counts and logs every request.
    pub observer: Arc<Observer>,
    /// The built-in load and the traffic it is read beside ([`crate::replay::load`]).
    pub load: Arc<crate::replay::load::LoadApi>,
    /// The field collector ([`crate::field`]).
    pub field: Arc<crate::field::http::FieldApi>,
}

/// The whole router: API, study server ([`crate::studies::http`]), health
/// checks and metrics ([`crate::health`]: `/healthz`, `/readyz`, `/metrics`,
/// and `/health` as vLLM has it, which benchmark tools such as guidellm
/// probe), app files with SPA fallback; every request counted and logged.
pub fn router(site: &Routes) -> Router {
    let app = crate::health::router(Arc::clone(&site.ops))
        .route("/openapi.json", get(|| async { axum::Json(super::routes::openapi()) }))
        .merge(crate::studies::http::router(Arc::clone(&site.studies)))
        .merge(crate::replay::load::router(Arc::clone(&site.load)));
    let app = match &site.dist {
        Some(dist) => {
            crate::site::strict(app.merge(crate::site::files(dist)), dist).merge(crate::site::book(dist))
        }
        None => app,
    };
    app.layer(header("cross-origin-opener-policy", "same-origin"))
        .layer(header("cross-origin-embedder-policy", "require-corp"))
        .merge(api_router(Arc::clone(&site.api)))
        .merge(crate::field::http::router(Arc::clone(&site.field)))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&site.observer), observe))
}

impl Routes {
    /// The same routes for another serving thread, with a pacer of its own
    /// (a firing is then a local wake-up, not a cross-thread one).
    pub fn on_thread(&self) -> Self {
        Self { api: Arc::new(self.api.on_thread(crate::replay::pacer::Pacer::new())), ..self.clone() }
    }
}
