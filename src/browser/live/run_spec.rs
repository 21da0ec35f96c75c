//! Everything a live run needs: the endpoint and request, the key (sent in
//! the wire's auth header only), the CORS advice, the run's shape and its
//! label.

use lab_core::load::shape::RunShape;
use lab_core::stream::endpoint::EndpointConfig;

use super::LiveRequest;

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Endpoint and request (no key).
    pub config: EndpointConfig,
    /// The key, if any (the wire's auth header only).
    pub api_key: Option<String>,
    /// CORS advice for the chosen server kind.
    pub cors_hint: String,
    /// Shape of the run.
    pub mode: RunShape,
    /// Label for the trace.
    pub label: String,
}

impl RunSpec {
    /// A request of this run with this body (the page settles before it
    /// is sent, except in a request-rate run, which sends on schedule).
    pub(super) fn request(&self, url: String, body: String) -> LiveRequest {
        let settle = !matches!(self.mode, RunShape::Rate { .. } | RunShape::Probe { .. });
        LiveRequest {
            url,
            body,
            wire: self.config.wire,
            auth: self.config.auth_headers(self.api_key.as_deref()),
            cors_hint: self.cors_hint.clone(),
            settle,
        }
    }
}
