//! The figures shown while a request is still streaming, from the partial
//! trace so far (same definitions as [`crate::measure::metrics`]):
//! TTFB, TTFT, time to first paint, tokens so far, running tokens/s
//! (tokens after the first / time since the first token: the decode rate the
//! reader is experiencing), the most recent inter-token gaps (for the
//! sparkline) and the stalls so far.

use serde::Serialize;

use crate::measure::metrics::DEFAULT_STALL_MS;
use crate::trace::RequestTrace;

/// Gaps kept for the sparkline.
pub const RECENT_GAPS: usize = 120;

/// Live figures of one streaming request.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LiveStats {
    /// Response headers after (ms).
    pub ttfb_ms: Option<f64>,
    /// First token after (ms).
    pub ttft_ms: Option<f64>,
    /// First paint after (ms).
    pub ttfp_ms: Option<f64>,
    /// Tokens so far (chunk counts).
    pub tokens: u64,
    /// Since the request was sent (ms).
    pub elapsed_ms: f64,
    /// Running decode rate (tokens/s after the first token).
    pub tokens_per_s: Option<f64>,
    /// The last [`RECENT_GAPS`] inter-token gaps (ms).
    pub recent_gaps_ms: Vec<f64>,
    /// Gaps over the default stall threshold so far.
    pub stalls: usize,
    /// Longest gap so far (ms).
    pub longest_gap_ms: f64,
}

impl LiveStats {
    /// Figures of `r` at time `now_ms` (the trace's clock).
    pub fn of(r: &RequestTrace, now_ms: f64) -> Self {
        let tokens_chunks: Vec<_> = r.chunks.iter().filter(|c| c.tokens > 0).collect();
        let tokens: u64 = tokens_chunks.iter().map(|c| u64::from(c.tokens)).sum();
        let first = tokens_chunks.first().map(|c| c.arrived_ms);
        let gaps: Vec<f64> = tokens_chunks.windows(2).map(|w| w[1].arrived_ms - w[0].arrived_ms).collect();
        let end = tokens_chunks.last().map(|c| c.arrived_ms);
        let tokens_per_s = match (first, end) {
            (Some(f), Some(e)) if e > f && tokens > 1 => {
                let after_first = tokens - u64::from(tokens_chunks[0].tokens);
                Some(after_first as f64 * 1000.0 / (e - f))
            }
            _ => None,
        };
        Self {
            ttfb_ms: r.headers_ms.map(|h| h - r.sent_ms),
            ttft_ms: first.map(|f| f - r.sent_ms),
            ttfp_ms: tokens_chunks.iter().find_map(|c| c.painted_ms).map(|p| p - r.sent_ms),
            tokens,
            elapsed_ms: (now_ms - r.sent_ms).max(0.0),
            tokens_per_s,
            stalls: gaps.iter().filter(|g| **g > DEFAULT_STALL_MS).count(),
            longest_gap_ms: gaps.iter().copied().fold(0.0, f64::max),
            recent_gaps_ms: gaps[gaps.len().saturating_sub(RECENT_GAPS)..].to_vec(),
        }
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
