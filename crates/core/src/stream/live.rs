//! The figures shown while a request is still streaming, live requests and
//! replay panes alike (same definitions as [`crate::measure::metrics`]):
//! TTFB, TTFT, time to first paint, tokens so far, two running tokens/s
//! that answer different questions, both labelled where shown:
//! - **over the whole answer** = tokens / time since the request was sent
//!   (at the last token: the request's output tokens/s, waiting included;
//!   what "the same tokens/s" in the landing story means);
//! - **after the first token** = tokens after the first chunk / time since
//!   the first token (the decode rate the reader is experiencing);
//!
//! and the most recent inter-token gaps (for the sparkline), the stalls so
//! far and the longest gap.
//!
//! Only **token chunks** count (`tokens > 0`, as in the metrics): a chunk
//! without tokens (a role-only opening, a finish chunk) moves no figure, and
//! a gap is measured between two token chunks.
//!
//! One definition, two ways in: [`LiveStats::on_chunk`] and
//! [`LiveStats::on_paint`] update the figures chunk by chunk (O(1) each, for
//! the replay scheduler), and [`LiveStats::of`] folds the same updates over a
//! partial trace.

use serde::Serialize;

use crate::measure::metrics::DEFAULT_STALL_MS;
use crate::trace::RequestTrace;

/// Gaps kept for the sparkline.
pub const RECENT_GAPS: usize = 120;

/// Live figures of one streaming request. Times are ms since the request
/// was sent (or the replay started).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LiveStats {
    /// Response headers after (ms).
    pub ttfb_ms: Option<f64>,
    /// First token after (ms).
    pub ttft_ms: Option<f64>,
    /// First paint after (ms).
    pub ttfp_ms: Option<f64>,
    /// Tokens so far.
    pub tokens: u64,
    /// Since the request was sent (ms).
    pub elapsed_ms: f64,
    /// Running decode rate (tokens/s after the first token).
    pub tokens_per_s: Option<f64>,
    /// Tokens/s over the whole answer so far (tokens / time since sent, at
    /// the last token).
    pub overall_tokens_per_s: Option<f64>,
    /// The last [`RECENT_GAPS`] inter-token gaps (ms).
    pub recent_gaps_ms: Vec<f64>,
    /// Gaps over the default stall threshold so far.
    pub stalls: usize,
    /// Longest gap so far (ms).
    pub longest_gap_ms: f64,
    /// First tool-call fragment after (ms), for responses that call tools.
    pub first_tool_call_ms: Option<f64>,
    /// Tokens of the first token chunk (not part of the running rate).
    #[serde(skip)]
    first_tokens: u64,
    /// Arrival of the last token chunk (ms since sent).
    #[serde(skip)]
    last_ms: Option<f64>,
}

impl LiveStats {
    /// Response headers arrived `at_ms` after the request was sent.
    pub fn on_headers(&mut self, at_ms: f64) {
        self.ttfb_ms = Some(at_ms);
    }

    /// A chunk of `tokens` tokens arrived `at_ms` after the request was
    /// sent (chunks in arrival order; a chunk without tokens changes nothing).
    pub fn on_chunk(&mut self, at_ms: f64, tokens: u32) {
        if tokens == 0 {
            return;
        }
        match self.last_ms {
            None => {
                self.ttft_ms = Some(at_ms);
                self.first_tokens = u64::from(tokens);
            }
            Some(prev) => {
                let gap = at_ms - prev;
                if gap > DEFAULT_STALL_MS {
                    self.stalls += 1;
                }
                self.longest_gap_ms = self.longest_gap_ms.max(gap);
                if self.recent_gaps_ms.len() >= RECENT_GAPS {
                    self.recent_gaps_ms.remove(0);
                }
                self.recent_gaps_ms.push(gap);
            }
        }
        self.tokens += u64::from(tokens);
        self.last_ms = Some(at_ms);
        if at_ms > 0.0 {
            self.overall_tokens_per_s = Some(self.tokens as f64 * 1000.0 / at_ms);
        }
        self.tokens_per_s = match self.ttft_ms {
            Some(first) if at_ms > first && self.tokens > 1 => {
                Some((self.tokens - self.first_tokens) as f64 * 1000.0 / (at_ms - first))
            }
            _ => self.tokens_per_s,
        };
    }

    /// A token chunk was first on screen `at_ms` after the request was sent.
    pub fn on_paint(&mut self, at_ms: f64) {
        self.ttfp_ms.get_or_insert(at_ms);
    }

    /// The figures at `elapsed_ms` after the request was sent.
    pub fn at(mut self, elapsed_ms: f64) -> Self {
        self.elapsed_ms = elapsed_ms.max(0.0);
        self
    }

    /// Figures of `r` at time `now_ms` (the trace's clock): the updates
    /// above, folded over its chunks.
    pub fn of(r: &RequestTrace, now_ms: f64) -> Self {
        let mut s = Self::default();
        if let Some(h) = r.headers_ms {
            s.on_headers(h - r.sent_ms);
        }
        for c in r.chunks.iter().filter(|c| c.tokens > 0) {
            s.on_chunk(c.arrived_ms - r.sent_ms, c.tokens);
            if c.kind == crate::trace::ChunkKind::ToolCall {
                s.first_tool_call_ms.get_or_insert(c.arrived_ms - r.sent_ms);
            }
            if let Some(p) = c.painted_ms {
                s.on_paint(p - r.sent_ms);
            }
        }
        s.at(now_ms - r.sent_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Trace;

    #[test]
    fn partial_trace_figures() {
        let t = Trace::from_json(include_str!("../../../../tests/fixtures/hand.trace.json")).unwrap();
        let s = LiveStats::of(&t.requests[3], 3600.0); // the stalled request
        assert_eq!((s.ttfb_ms, s.ttft_ms, s.ttfp_ms), (Some(20.0), Some(50.0), None));
        assert_eq!(s.tokens, 4);
        assert_eq!(s.elapsed_ms, 600.0);
        assert_eq!(s.recent_gaps_ms, [20.0, 400.0, 20.0]);
        assert_eq!((s.stalls, s.longest_gap_ms), (1, 400.0));
        assert!((s.tokens_per_s.unwrap() - 3.0 * 1000.0 / 440.0).abs() < 1e-9);
        assert_eq!(LiveStats::of(&t.requests[4], 4005.0).ttft_ms, None);
    }
}
