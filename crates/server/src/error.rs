//! [`ApiError`]: how every route of `latency-lab serve` refuses a request,
//! one type for all of them: its status, its body and `Retry-After` where
//! waiting helps (429, and 503 while a database is away).
//!
//! The lab's own routes (studies, field data, the built-in load) answer
//! `{"error": "…"}`, a sentence for people. The replay endpoint answers in
//! the shape of the wire the request came in ([`ApiError::wire`]: OpenAI's
//! `{"error": {"message", "type", …}}`, Anthropic's, Gemini's, Ollama's),
//! because the official SDKs pointed at it read their message from there.

use axum::Json;
use axum::body::Bytes;
use axum::extract::FromRequest;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lab_core::stream::wire::Wire;
use lab_core::stream::wire::encode::WireEncoder;
use serde_json::json;

/// A refusal (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    retry_after_s: Option<u64>,
    /// The wire's shape and its error type (`invalid_request_error`, …),
    /// for the replay endpoint's routes; `None`: the lab's `{"error"}`.
    wire: Option<(Wire, &'static str)>,
}

impl ApiError {
    /// A refusal of the lab's own routes: `{"error": message}`.
    pub fn new(status: StatusCode, message: impl std::fmt::Display) -> Self {
        Self { status, message: message.to_string(), retry_after_s: None, wire: None }
    }

    /// A refusal of the replay endpoint, in `wire`'s own error shape with
    /// its error type `kind`.
    pub fn wire(wire: Wire, status: StatusCode, kind: &'static str, message: impl std::fmt::Display) -> Self {
        Self { wire: Some((wire, kind)), ..Self::new(status, message) }
    }

    /// 429, to try again in `ms` (said, and `Retry-After` in whole seconds,
    /// at least one).
    pub fn too_many(ms: f64) -> Self {
        let secs = (ms / 1000.0).ceil().max(1.0) as u64;
        Self::new(StatusCode::TOO_MANY_REQUESTS, format!("too many requests; try again in {ms:.0} ms"))
            .retry_after(secs)
    }

    /// With `Retry-After: s`.
    pub fn retry_after(mut self, s: u64) -> Self {
        self.retry_after_s = Some(s);
        self
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = match self.wire {
            Some((wire, kind)) => {
                let body = WireEncoder::error_body(wire, self.status.as_u16(), kind, &self.message);
                (self.status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
            }
            None => (self.status, Json(json!({ "error": self.message }))).into_response(),
        };
        if let Some(v) = self.retry_after_s.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        r
    }
}

/// A request body read whole, up to its route's limit (axum's
/// `DefaultBodyLimit`, 2 MB unless the route sets one). A body over it, or
/// one that cannot be read, is refused as an [`ApiError`]; axum's own
/// rejection would be a plain-text line.
#[derive(Debug, Clone)]
pub struct WholeBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for WholeBody {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        Bytes::from_request(req, state)
            .await
            .map(Self)
            .map_err(|r| ApiError::new(r.status(), body_refused(&r)))
    }
}

/// Why a body was not read, in words (the size limit, or what the
/// connection said).
pub fn body_refused(r: &BytesRejection) -> String {
    match r.status() {
        StatusCode::PAYLOAD_TOO_LARGE => "the request body is larger than this route takes".to_string(),
        _ => format!("the request body could not be read: {}", r.body_text()),
    }
}

/// [`ApiError::new`], answered.
pub fn refuse(status: StatusCode, message: impl std::fmt::Display) -> Response {
    ApiError::new(status, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(e: ApiError) -> (u16, Option<String>, serde_json::Value) {
        let r = e.into_response();
        let retry = r.headers().get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_string);
        let status = r.status().as_u16();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let bytes = rt.block_on(axum::body::to_bytes(r.into_body(), 1 << 20)).unwrap();
        (status, retry, serde_json::from_slice(&bytes).unwrap())
    }

    #[test]
    fn refusals_say_why_and_when_to_come_back() {
        let (status, retry, body) =
            answer(ApiError::new(StatusCode::NOT_FOUND, "no study \"x\" on this server"));
        assert_eq!((status, retry, body), (404, None, json!({ "error": "no study \"x\" on this server" })));
        let (status, retry, body) = answer(ApiError::too_many(1200.0));
        assert_eq!((status, retry.as_deref()), (429, Some("2")), "1.2 s, rounded up");
        assert_eq!(body["error"], "too many requests; try again in 1200 ms");
        assert_eq!(answer(ApiError::too_many(3.0)).1.as_deref(), Some("1"), "never 0");
        let (status, retry, _) =
            answer(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "database away").retry_after(5));
        assert_eq!((status, retry.as_deref()), (503, Some("5")));
    }

    #[test]
    fn the_replay_endpoint_refuses_in_each_wire_s_shape() {
        let e = ApiError::wire(
            Wire::Chat,
            StatusCode::NOT_FOUND,
            "model_not_found",
            "model \"m\" is not served here",
        );
        let (status, _, body) = answer(e);
        assert_eq!(status, 404);
        assert_eq!(body["error"]["message"], "model \"m\" is not served here");
        assert_eq!(body["error"]["type"], "model_not_found");
        let (_, _, body) =
            answer(ApiError::wire(Wire::Anthropic, StatusCode::BAD_REQUEST, "invalid_request_error", "no"));
        assert_eq!((body["type"].as_str(), body["error"]["message"].as_str()), (Some("error"), Some("no")));
    }
}
