//! # Field data: what real users' browsers saw, as OpenTelemetry spans
//!
//! A streamed completion in a real product is recorded as one GenAI
//! inference span (the OpenTelemetry GenAI semantic conventions, with the
//! lab's own timings under `latency_lab.`: [`conventions`]). This room reads
//! such spans from the files tracing systems write ([`otlp`]: OTLP/JSON, a
//! collector's file exporter, Tempo, Jaeger), whichever instrumentation
//! made them, and turns them into requests the lab measures like its own
//! ([`span`]), saying what each kind of span could not tell
//! (the trace's notes): no instrumentation but the lab's records every
//! chunk and every paint.
//!
//! [`FieldRun::read`] gives a lab trace: requests in send order on one
//! clock (0 = the first send, `meta.clock_epoch_ms` its Unix time), so
//! every figure, score and chart of the lab reads field data unchanged.
//! Prompt and answer text never enter: the readers drop every attribute
//! that carries it ([`conventions::is_text`]) and chunks hold no text.

pub mod conventions;
pub mod otlp;
pub mod row;
pub mod scores;
pub mod span;
pub mod summary;
pub mod timeline;

use crate::trace::{ClientInfo, SourceKind, Trace, TraceMeta};
use span::{FieldSpan, Skip};

/// Field data read from a file: the trace, with what it could not say in
/// its notes (`trace.meta.notes`: what the spans lack and what was left out).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldRun {
    /// The requests, on one clock.
    pub trace: Trace,
    /// The spans read, in the trace's order (model, site, browser of each).
    pub spans: Vec<FieldSpan>,
}

/// Why a file held no field data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldError {
    /// The file could not be read as spans.
    #[error(transparent)]
    Otlp(#[from] otlp::OtlpError),
    /// Spans, but no GenAI inference span with a first-chunk time.
    #[error("{spans} spans, none a streamed GenAI inference span with a time to first chunk ({why})")]
    NoRequests {
        /// Spans in the file.
        spans: usize,
        /// What they were.
        why: String,
    },
}

impl FieldRun {
    /// The field data of an OTLP/JSON, Tempo or Jaeger file.
    pub fn read(text: &str) -> Result<Self, FieldError> {
        let raw = otlp::read(text)?;
        let (mut not_genai, mut not_inference, mut no_first) = (0, 0, 0);
        let mut spans = Vec::new();
        for s in &raw {
            match span::read(s) {
                Ok(f) => spans.push(f),
                Err(Skip::NotGenAi) => not_genai += 1,
                Err(Skip::NotInference) => not_inference += 1,
                Err(Skip::NoFirstChunk) => no_first += 1,
            }
        }
        if spans.is_empty() {
            return Err(FieldError::NoRequests {
                spans: raw.len(),
                why: format!(
                    "{not_genai} not GenAI, {not_inference} GenAI operations that do not stream text, {no_first} inference without a first-chunk time"
                ),
            });
        }
        spans.sort_by(|a, b| a.at_unix_ms.total_cmp(&b.at_unix_ms));
        let mut trace = trace_of(&spans);
        if not_genai + not_inference + no_first > 0 {
            trace.meta.notes.push(format!(
                "Left out: {not_genai} spans that are not GenAI, {not_inference} GenAI operations that stream no text (embeddings, tools), {no_first} inference spans without a first-chunk time (not streamed, or not timed)."
            ));
        }
        Ok(Self { trace, spans })
    }
}

/// What `spans` could not say, for people: requests whose chunks were not
/// each recorded (spread from the first, so their cadence is not measured)
/// and requests without paints.
pub fn notes_of(spans: &[FieldSpan]) -> Vec<String> {
    let mut notes = Vec::new();
    let n = spans.len();
    let recorded = spans.iter().filter(|s| s.chunks_recorded).count();
    let painted = spans.iter().filter(|s| s.painted).count();
    let screen_only = spans.iter().filter(|s| !s.chunks_recorded && s.painted).count();
    let spread = n - recorded - screen_only;
    if spread > 0 {
        notes.push(format!(
            "{spread} of {n} requests carry only the time to first chunk (gen_ai.response.time_to_first_chunk), not each chunk's arrival: their tokens are spread evenly from it to the span's end, so their ITL, jitter and stalls are not measured data."
        ));
    }
    if screen_only > 0 {
        notes.push(format!(
            "{screen_only} of {n} requests streamed in a format the page could not read (latency_lab.wire \"unknown\"): what they show is their paints (each paint of new text is a chunk, so TTFT is first paint and the network's own times are not measured)."
        ));
    }
    if painted < n {
        notes.push(format!(
            "{} of {n} requests carry no paints (only the lab's field snippet records them): first paint, paint lag and display cadence are unknown for those.",
            n - painted
        ));
    }
    notes
}

/// Spans as one trace (0 = the first send), with what they could not say
/// in its notes ([`notes_of`]); `spans` in send order.
pub fn trace_of(spans: &[FieldSpan]) -> Trace {
    let t0 = spans.first().map_or(0.0, |s| s.at_unix_ms);
    let requests = spans
        .iter()
        .map(|s| {
            let mut r = s.request.clone();
            span::shift(&mut r, s.at_unix_ms - t0);
            r
        })
        .collect();
    let same = |f: &dyn Fn(&FieldSpan) -> Option<String>| {
        let first = spans.first().and_then(f);
        spans.iter().all(|s| f(s) == first).then_some(first).flatten()
    };
    let browser =
        same(&|s: &FieldSpan| s.browser.as_ref().map(|b| format!("{}\u{1}{}\u{1}{}", b.0, b.1, b.2)));
    let mut client = ClientInfo::default();
    if let Some(b) = browser {
        let mut parts = b.split('\u{1}').map(str::to_string);
        client.browser = parts.next();
        client.engine = parts.next();
        client.browser_version = parts.next().filter(|v| !v.is_empty());
        client.timer_resolution_ms = spans.iter().filter_map(|s| s.clock_step_ms).reduce(f64::max);
        client.display_refresh_hz = spans.iter().filter_map(|s| s.display_hz).reduce(f64::min);
    }
    let label = match same(&|s: &FieldSpan| s.site.clone()) {
        Some(site) => format!("field data: {site}"),
        None => "field data".to_string(),
    };
    Trace {
        meta: TraceMeta {
            label: Some(label),
            source: SourceKind::Import,
            tool: Some("OpenTelemetry GenAI spans".into()),
            model: same(&|s: &FieldSpan| s.model.clone()),
            duration_ms: spans.last().map(|s| s.at_unix_ms - t0 + s.request.end_ms.unwrap_or(0.0)),
            clock_epoch_ms: Some(t0),
            created_at: crate::trace::dates::iso_ms(t0),
            client,
            notes: notes_of(spans),
            ..TraceMeta::default()
        },
        requests,
        ..Trace::default()
    }
}

#[cfg(test)]
mod tests;
