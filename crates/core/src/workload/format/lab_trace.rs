//! The lab's own trace (one JSON document, [`crate::trace`]): each
//! request's send time and its tokens, so a recorded run can be sent again.

use super::{Head, Layout, Spec};
use crate::trace::Trace;
use crate::workload::{Request, WorkloadError};

/// What the readers need to know of it.
pub const SPEC: Spec =
    Spec { label: "Latency Lab trace", layout: Layout::Trace, timed: true, block_tokens: None, detect };

/// A JSON document that names the trace format near its top.
fn detect(head: &Head<'_>) -> bool {
    let end = (0..=head.text.len().min(4096)).rev().find(|i| head.text.is_char_boundary(*i)).unwrap_or(0);
    let near = &head.text[..end];
    head.first.starts_with('{') && near.contains(&format!("\"{}\"", crate::trace::FORMAT))
}

/// The requests of a lab trace: each request's send time, its prompt
/// tokens (usage, else the trace's count) and the tokens that came back.
pub fn read(text: &str) -> Result<Vec<Request>, WorkloadError> {
    let trace = Trace::from_json(text).map_err(|e| WorkloadError::Unknown(e.to_string()))?;
    Ok(trace
        .requests
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let usage = r.usage.as_ref();
            let input = usage.and_then(|u| u.prompt_tokens).or(r.prompt_tokens).unwrap_or(0);
            let output = usage
                .and_then(|u| u.completion_tokens)
                .unwrap_or_else(|| r.chunks.iter().map(|c| u64::from(c.tokens)).sum());
            Request {
                at_ms: r.scheduled_ms.unwrap_or(r.sent_ms),
                input_tokens: u32::try_from(input).unwrap_or(u32::MAX),
                output_tokens: u32::try_from(output).unwrap_or(u32::MAX),
                turn: r.turn.map(|t| t + 1),
                line: i + 1,
                ..Request::default()
            }
        })
        .collect())
}
