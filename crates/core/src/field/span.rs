//! One GenAI inference span read as a request the lab measures
//! ([`FieldSpan`]), and what it could not say.
//!
//! - **With the lab's timings** ([`conventions::CHUNK_MS`](super::conventions::CHUNK_MS)): every chunk at
//!   its arrival, with its tokens and kind. Paints
//!   ([`conventions::PAINT_MS`](super::conventions::PAINT_MS)) become each chunk's `painted_ms`, the lab's
//!   own meaning: the first paint by which the share of the answer's
//!   characters on screen reached the share that chunk completes
//!   ([`conventions::PAINT_CHARS`](super::conventions::PAINT_CHARS) against [`conventions::CHUNK_CHARS`](super::conventions::CHUNK_CHARS)),
//!   and never before the chunk arrived. Shares, not counts, because what
//!   a page shows is the rendered text (Markdown's marks gone), not the
//!   stream's characters.
//! - **With only the conventions' time to first chunk**: the first token
//!   at that time and the rest spread evenly to the span's end, as the lab
//!   reads guidellm (so ITL, jitter and stalls of such spans are not
//!   measured data, and the run says so).
//! - **Paints only** (a stream the page could not read: its
//!   [`conventions::WIRE`](super::conventions::WIRE) is `unknown`, its
//!   chunk list empty): each paint that showed new text is a chunk of those
//!   characters, arriving and painted then. The answer's times are then the
//!   screen's (its TTFT is its first paint), and the run says its chunks
//!   were not recorded.
//! - **Neither**: not read (a call that did not stream, or an
//!   instrumentation that does not time the first chunk).
//!
//! A request starts at the user's action when the page recorded one
//! ([`conventions::ACTION_MS`](super::conventions::ACTION_MS): the click or Enter that
//! started it, at most a second before the send): sent at 0, everything
//! after the send that much later. Its TTFT is then what the user waited,
//! the page's own work before it sent included (an SDK's preparation, a
//! token refresh), as a page's own `performance.now()` from its send
//! handler measures it. Without one it starts at the send.

use serde::{Deserialize, Serialize};

use super::conventions as c;
use super::otlp::{AttrValue, RawSpan};
use crate::trace::{Chunk, ChunkKind, Failure, FailureKind, RequestTrace, Usage};

/// A span read as a request (as the collector stores it: no text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldSpan {
    /// The request, on its own clock (0 = sent).
    pub request: RequestTrace,
    /// When it was sent (ms since 1970).
    pub at_unix_ms: f64,
    /// `gen_ai.request.model`.
    pub model: Option<String>,
    /// The site (the lab's, else the resource's `service.name`).
    pub site: Option<String>,
    /// Browser, engine and version, when the page said.
    pub browser: Option<(String, String, String)>,
    /// The page clock's step (ms).
    pub clock_step_ms: Option<f64>,
    /// The display's refresh rate (Hz).
    pub display_hz: Option<f64>,
    /// Every chunk's arrival was recorded (else spread from the first, or
    /// taken from the paints of a stream the page could not read).
    pub chunks_recorded: bool,
    /// Paints were recorded.
    pub painted: bool,
    /// The wire it streamed in, as the page said ([`c::WIRE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<String>,
    /// The share of requests the page reported (0–1], when it said: each
    /// stored request stands for 1 / rate of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_rate: Option<f64>,
}

/// Why a span was not read as a request.
impl FieldSpan {
    /// `request` as a page of `site` that recorded its every chunk would
    /// report it, sent at `at_unix_ms`, painted when any chunk was; nothing
    /// else said (no model, browser, clock, wire or sampling).
    pub fn recorded(request: RequestTrace, at_unix_ms: f64, site: Option<&str>) -> Self {
        let painted = request.chunks.iter().any(|c| c.painted_ms.is_some());
        Self {
            request,
            at_unix_ms,
            model: None,
            site: site.map(str::to_string),
            browser: None,
            clock_step_ms: None,
            display_hz: None,
            chunks_recorded: true,
            painted,
            wire: None,
            sample_rate: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Not a GenAI span.
    NotGenAi,
    /// A GenAI operation that generates no stream (embeddings, tools).
    NotInference,
    /// Inference without a first-chunk time or chunk arrivals.
    NoFirstChunk,
}

fn num(s: &RawSpan, key: &str) -> Option<f64> {
    s.attr(key).and_then(AttrValue::as_f64)
}

fn text(s: &RawSpan, key: &str) -> Option<String> {
    s.attr(key).and_then(AttrValue::as_str).map(str::to_string)
}

fn list(s: &RawSpan, key: &str) -> Option<Vec<f64>> {
    match s.attr(key)? {
        AttrValue::Array(items) => Some(items.iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect()),
        _ => None,
    }
}

fn count(x: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0).then(|| x.round() as u64)
}

/// Reads `s` (see the module doc).
pub fn read(s: &RawSpan) -> Result<FieldSpan, Skip> {
    let operation = text(s, c::OPERATION);
    let genai =
        operation.is_some() || [c::REQUEST_MODEL, c::PROVIDER, c::SYSTEM].iter().any(|k| s.attr(k).is_some());
    if !genai {
        return Err(Skip::NotGenAi);
    }
    if operation.as_deref().is_some_and(|o| !c::INFERENCE_OPERATIONS.contains(&o)) {
        return Err(Skip::NotInference);
    }
    let duration_ms = s.end_ns.saturating_sub(s.start_ns) as f64 / 1e6;
    let output = num(s, c::OUTPUT_TOKENS).and_then(count);
    let mut request =
        RequestTrace { id: Some(s.span_id.clone()).filter(|i| !i.is_empty()), ..RequestTrace::default() };
    let (chunks_recorded, painted) = if let Some(at) = list(s, c::CHUNK_MS) {
        match (at.is_empty(), painted_chunks(s)) {
            (true, Some(chunks)) => {
                request.chunks = chunks;
                (false, true)
            }
            _ => {
                request.chunks = recorded_chunks(s, &at);
                (true, paint(s, &mut request.chunks))
            }
        }
    } else if let Some(chunks) = painted_chunks(s).filter(|_| s.attr(c::TIME_TO_FIRST_CHUNK).is_none()) {
        request.chunks = chunks;
        (false, true)
    } else if let Some(first) = num(s, c::TIME_TO_FIRST_CHUNK).map(|secs| secs * 1000.0) {
        let n = output.unwrap_or(1).max(1);
        let end = duration_ms.max(first);
        request.chunks = (0..n)
            .map(|k| {
                let t = if n == 1 { first } else { first + (end - first) * k as f64 / (n - 1) as f64 };
                Chunk::content(t, "", 1)
            })
            .collect();
        (false, false)
    } else {
        return Err(Skip::NoFirstChunk);
    };
    request.headers_ms = num(s, c::HEADERS_MS);
    // A span may end before its last recorded chunk (its clock and the
    // page's offsets are not one clock): the request ends no earlier.
    request.end_ms = Some(request.chunks.iter().map(|c| c.arrived_ms).fold(duration_ms, f64::max));
    let usage = Usage {
        prompt_tokens: num(s, c::INPUT_TOKENS).and_then(count),
        completion_tokens: output,
        cached_tokens: num(s, c::CACHE_READ_TOKENS).and_then(count),
        reasoning_tokens: None,
    };
    request.usage = (usage != Usage::default()).then_some(usage);
    request.failure = failure(s);
    // The user's action before the send, when the page recorded it: the
    // request starts there, so what the user waited through before the
    // page sent is in its TTFT, as the page's own measure has it.
    let action = num(s, c::ACTION_MS).filter(|a| (0.0..=c::ACTION_MAX_MS).contains(a)).unwrap_or(0.0);
    shift(&mut request, action);
    request.sent_ms = 0.0;
    let browser = match (text(s, c::BROWSER), text(s, c::ENGINE)) {
        (Some(b), Some(e)) => Some((b, e, text(s, c::BROWSER_VERSION).unwrap_or_default())),
        _ => None,
    };
    Ok(FieldSpan {
        request,
        at_unix_ms: s.start_ns as f64 / 1e6 - action,
        model: text(s, c::REQUEST_MODEL).or_else(|| text(s, c::RESPONSE_MODEL)),
        site: text(s, c::SITE).or_else(|| text(s, c::SERVICE_NAME)),
        browser,
        clock_step_ms: num(s, c::CLOCK_STEP_MS),
        display_hz: num(s, c::DISPLAY_HZ),
        chunks_recorded,
        painted,
        wire: text(s, c::WIRE),
        sample_rate: num(s, c::SAMPLE_RATE).filter(|r| *r > 0.0 && *r <= 1.0),
    })
}

/// The chunks of an answer known only by its paints (module doc): each
/// paint that showed more characters is a chunk of them, painted then.
fn painted_chunks(s: &RawSpan) -> Option<Vec<Chunk>> {
    let (at, shown) = (list(s, c::PAINT_MS)?, list(s, c::PAINT_CHARS)?);
    let mut before = 0.0;
    let chunks: Vec<Chunk> = at
        .iter()
        .zip(&shown)
        .filter(|(t, n)| t.is_finite() && n.is_finite())
        .filter_map(|(&t, &n)| {
            let added = n - before;
            before = before.max(n);
            (added > 0.0).then(|| {
                let mut ch = Chunk::content(t, "", 1);
                ch.chars = count(added).map(|n| n.min(u64::from(u32::MAX)) as u32);
                ch.painted_ms = Some(t);
                ch
            })
        })
        .collect();
    (!chunks.is_empty()).then_some(chunks)
}

/// Moves every time of `r` (sent, headers, chunks, paints, end) `by` ms
/// later on its clock.
pub fn shift(r: &mut RequestTrace, by: f64) {
    if by == 0.0 {
        return;
    }
    r.sent_ms += by;
    for t in [&mut r.headers_ms, &mut r.end_ms].into_iter().flatten() {
        *t += by;
    }
    for ch in &mut r.chunks {
        ch.arrived_ms += by;
        if let Some(p) = &mut ch.painted_ms {
            *p += by;
        }
    }
}

/// The chunks of [`c::CHUNK_MS`], their tokens and kinds.
fn recorded_chunks(s: &RawSpan, at: &[f64]) -> Vec<Chunk> {
    let tokens = list(s, c::CHUNK_TOKENS).unwrap_or_default();
    let kinds = list(s, c::CHUNK_KINDS).unwrap_or_default();
    let chars = list(s, c::CHUNK_CHARS).unwrap_or_default();
    at.iter()
        .enumerate()
        .filter(|(_, t)| t.is_finite())
        .map(|(i, &t)| {
            let mut ch = Chunk::content(
                t,
                "",
                tokens.get(i).copied().and_then(count).map_or(1, |n| n.min(u64::from(u32::MAX)) as u32),
            );
            ch.kind = match kinds.get(i).map(|k| k.round() as i64) {
                Some(1) => ChunkKind::Reasoning,
                Some(2) => ChunkKind::ToolCall,
                _ => ChunkKind::Content,
            };
            ch.chars = chars.get(i).copied().and_then(count).map(|n| n.min(u64::from(u32::MAX)) as u32);
            ch
        })
        .collect()
}

/// Sets each chunk's `painted_ms` from the paints (module doc); whether
/// there were any.
fn paint(s: &RawSpan, chunks: &mut [Chunk]) -> bool {
    let (Some(at), Some(shown)) = (list(s, c::PAINT_MS), list(s, c::PAINT_CHARS)) else { return false };
    let paints: Vec<(f64, f64)> = at
        .iter()
        .zip(&shown)
        .filter(|(t, n)| t.is_finite() && n.is_finite())
        .map(|(&t, &n)| (t, n))
        .collect();
    let Some(&(_, total_shown)) = paints.last() else { return false };
    // Characters each chunk added (its tokens where the page did not count).
    let chars = list(s, c::CHUNK_CHARS);
    let added: Vec<f64> = chunks
        .iter()
        .enumerate()
        .map(|(i, ch)| {
            let n = chars.as_ref().map_or(f64::from(ch.tokens), |cs| cs.get(i).copied().unwrap_or(0.0));
            if ch.kind == ChunkKind::ToolCall || !n.is_finite() { 0.0 } else { n.max(0.0) }
        })
        .collect();
    let total: f64 = added.iter().sum();
    if total <= 0.0 || total_shown <= 0.0 {
        return false;
    }
    let mut done = 0.0;
    for (ch, n) in chunks.iter_mut().zip(added) {
        if n == 0.0 {
            continue;
        }
        done += n;
        let share = done / total - 1e-9;
        ch.painted_ms = paints
            .iter()
            .find(|(t, shown)| *shown / total_shown >= share && *t >= ch.arrived_ms)
            .map(|(t, _)| *t);
    }
    true
}

/// The span's failure: stopped by the user, an HTTP status, or an error
/// the instrumentation reported.
fn failure(s: &RawSpan) -> Option<Failure> {
    if matches!(s.attr(c::ABORTED), Some(AttrValue::Bool(true))) {
        return Some(Failure {
            kind: FailureKind::Aborted,
            message: "stopped by the user".into(),
            status: None,
            body: None,
        });
    }
    let kind = text(s, c::ERROR_TYPE).or_else(|| num(s, c::ERROR_TYPE).map(|x| format!("{x:.0}")));
    if !s.error && kind.is_none() {
        return None;
    }
    let status = kind.as_deref().and_then(|k| k.parse::<u16>().ok()).filter(|c| (100..600).contains(c));
    let message = match (&s.status_message, &kind) {
        (Some(m), Some(k)) => format!("{k}: {m}"),
        (Some(m), None) => m.clone(),
        (None, Some(k)) => k.clone(),
        (None, None) => "the instrumentation marked the span as an error".into(),
    };
    Some(Failure {
        kind: if status.is_some() { FailureKind::Http } else { FailureKind::Reported },
        message,
        status,
        body: None,
    })
}
