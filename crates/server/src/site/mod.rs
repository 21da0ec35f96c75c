//! The built app as `serve` sends it: its files precompressed
//! ([`assets`]), cached by name, a 404 for a file the build does not hold,
//! and the headers that make the page cross-origin isolated and strict
//! ([`csp`]).

pub mod assets;
pub mod csp;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue};
use axum::response::IntoResponse;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// A layer that sets one header, replacing any the route set.
pub fn header(name: &'static str, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(HeaderName::from_static(name), HeaderValue::from_static(value))
}

/// The app's files from `dist`, with the SPA fallback to `index.html`: the
/// copies `latency-lab compress` wrote, as the browser accepts them (Brotli
/// first), with `Vary: Accept-Encoding`.
pub fn files(dist: &Path) -> Router {
    let index = ServeFile::new(dist.join("index.html")).precompressed_br().precompressed_gzip();
    let files = ServeDir::new(dist).precompressed_br().precompressed_gzip().fallback(index);
    Router::new()
        .fallback_service(files)
        .layer(axum::middleware::from_fn_with_state(Arc::new(dist.to_path_buf()), missing_files))
        .layer(axum::middleware::from_fn(cache_headers))
}

/// `routes` (the app's files and the lab's own pages beside them) with the
/// page's headers ([`page_headers`]), its Content-Security-Policy read from
/// the built `index.html`.
pub fn strict(routes: Router, dist: &Path) -> Router {
    let html = std::fs::read_to_string(dist.join("index.html")).unwrap_or_default();
    let policy = HeaderValue::from_str(&csp::policy(&html, true))
        .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"));
    page_headers(routes, policy)
}

/// The headers of every page the lab serves: its Content-Security-Policy
/// `policy`, `nosniff`, no referrer, and resources for this origin only.
fn page_headers(routes: Router, policy: HeaderValue) -> Router {
    routes
        .layer(header("cross-origin-resource-policy", "same-origin"))
        .layer(SetResponseHeaderLayer::overriding(HeaderName::from_static("content-security-policy"), policy))
        .layer(header("x-content-type-options", "nosniff"))
        .layer(header("referrer-policy", "no-referrer"))
}

/// The policy of the book's pages (`/docs/`): mdBook's pages set their
/// theme and sidebar with inline scripts, so those may run there, and
/// nothing else beyond this origin. The book is the lab's own Markdown
/// (no user content), built with `./lab docs`.
pub const BOOK_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The book (`dist/docs`, built by `./lab docs`) at `/docs/`, with its own
/// policy ([`BOOK_POLICY`]) and the app's caching and page headers. A build without the book answers 404 there.
pub fn book(dist: &Path) -> Router {
    let pages = ServeDir::new(dist.join("docs")).precompressed_br().precompressed_gzip();
    let routes = Router::new().nest_service("/docs", pages).layer(axum::middleware::from_fn(cache_headers));
    page_headers(routes, HeaderValue::from_static(BOOK_POLICY))
}

/// Sets `Cache-Control` on the app's files ([`assets::cache_control`]):
/// content-hashed names are immutable, the rest revalidated.
async fn cache_headers(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let value = assets::cache_control(req.uri().path());
    let mut res = next.run(req).await;
    let headers = res.headers_mut();
    headers.insert(axum::http::header::CACHE_CONTROL, HeaderValue::from_static(value));
    // Caches keep one copy per encoding (the file is sent precompressed).
    headers.insert(axum::http::header::VARY, HeaderValue::from_static("accept-encoding"));
    res
}

/// Answers 404 for a file the build does not hold
/// ([`assets::missing_asset`]); everything else goes on to the files.
async fn missing_files(
    axum::extract::State(dist): axum::extract::State<Arc<PathBuf>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if assets::missing_asset(&dist, req.uri().path()) {
        return (axum::http::StatusCode::NOT_FOUND, "not found\n").into_response();
    }
    next.run(req).await
}
