//! Every request, seen once: who sent it ([`ClientIp`], put on the request
//! for the handlers), counted in [`Metrics`], and logged in one line when
//! its response headers leave (`--log-format text|json|off`).
//!
//! A line holds the method, the route's pattern, the path without its
//! query, the status, the time to the response headers and the client's
//! address. Never a header, a query or a body: tokens, API keys and
//! answers never reach the log.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::address::client_ip;
use super::metrics::Metrics;

/// How request lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One readable line per request.
    Text,
    /// One JSON object per line (for journald, Loki, CloudWatch …).
    Json,
    /// No request lines (errors are still written).
    Off,
}

impl LogFormat {
    /// Every format by the name `--log-format` takes.
    pub const NAMES: [(&str, LogFormat); 3] =
        [("text", Self::Text), ("json", Self::Json), ("off", Self::Off)];
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::NAMES.iter().find(|(name, _)| *name == s).map(|(_, f)| *f).ok_or_else(|| {
            let names: Vec<&str> = Self::NAMES.iter().map(|(n, _)| *n).collect();
            format!("{s:?}: give one of {}", names.join(", "))
        })
    }
}

/// Starts writing logs to stderr in `format`.
pub fn init_logs(format: LogFormat) {
    let builder = tracing_subscriber::fmt().with_writer(std::io::stderr).with_target(false);
    let _ = match format {
        LogFormat::Text => builder.with_ansi(false).try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).try_init(),
        LogFormat::Off => builder.with_max_level(tracing::Level::WARN).with_ansi(false).try_init(),
    };
}

/// The client's address (see [`client_ip`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// What the middleware needs.
pub struct Observer {
    /// Where requests are counted.
    pub metrics: Arc<Metrics>,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted: Vec<IpAddr>,
}

/// A route's pattern as a label: `/api/studies/:id` (braces inside label
/// values trip simple scrapers' parsers).
pub fn route_label(pattern: &str) -> String {
    pattern.replace('{', ":").replace('}', "")
}

/// The middleware.
pub async fn observe(State(o): State<Arc<Observer>>, mut req: Request, next: Next) -> Response {
    let start = Instant::now();
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    let client = client_ip(peer, req.headers(), &o.trusted);
    req.extensions_mut().insert(ClientIp(client));
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "files".to_string(), |m| route_label(m.as_str()));
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let status = res.status().as_u16();
    o.metrics.request(&method, &route, status);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        method = %method,
        route = %route,
        path = %path,
        status,
        ms = (ms * 1000.0).round() / 1000.0,
        client = %client,
        "request"
    );
    res
}
