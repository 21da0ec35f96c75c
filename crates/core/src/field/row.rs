//! What the collector keeps beside each request so a million of them
//! summarise without reading their chunks ([`super::summary`],
//! [`super::timeline`]): **TTFT** = the first chunk's arrival after the
//! send, **first paint** = the earliest paint of any chunk after the send
//! (absent for spans without paints), **failed** = the request has a
//! failure (an abort included).

use serde::{Deserialize, Serialize};

use super::span::FieldSpan;

/// What the collector keeps of a request for summaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldRow {
    /// When it was sent (ms since 1970).
    pub at_unix_ms: f64,
    /// The browser's name.
    pub browser: Option<String>,
    /// The model asked for.
    pub model: Option<String>,
    /// Time to first token (ms).
    pub ttft_ms: Option<f64>,
    /// First paint (ms).
    pub first_paint_ms: Option<f64>,
    /// It failed (or was stopped).
    pub failed: bool,
}

impl FieldRow {
    /// The row of a span.
    pub fn of(s: &FieldSpan) -> Self {
        let r = &s.request;
        let after = |t: f64| t - r.sent_ms;
        Self {
            at_unix_ms: s.at_unix_ms,
            browser: s.browser.as_ref().map(|b| b.0.clone()),
            model: s.model.clone(),
            ttft_ms: r.chunks.first().map(|c| after(c.arrived_ms)),
            first_paint_ms: r.chunks.iter().filter_map(|c| c.painted_ms).reduce(f64::min).map(after),
            failed: r.failure.is_some(),
        }
    }
}
