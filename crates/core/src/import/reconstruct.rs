//! One imported request, stored compactly, and its reconstruction into lab
//! chunks.
//!
//! - With recorded inter-token gaps (vLLM, AIPerf, GenAI-Perf): the first
//!   chunk arrives at `sent + TTFT`, each next one a gap later, one chunk per
//!   gap as the tool recorded them; the tool's output-token count is kept as
//!   the request's token count (so TPOT uses it, exactly as vLLM does).
//! - With only first and last token times (guidellm, LLMPerf): the tokens are
//!   spread evenly between them and the run is marked so (`spread`); jitter
//!   and stalls cannot be judged from such data.
//! - The generated text, when the tool kept it, is split into token-sized
//!   pieces over the chunks, so a replay shows it.

use serde::Serialize;

use crate::measure::metrics::{MetricsConfig, RequestMetrics, RequestTiming, TimedChunk};
use crate::replay::text::pseudo_tokens;
use crate::trace::{Chunk, ChunkKind, Failure, FailureKind, RequestTrace, Usage};

/// One request as a tool recorded it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImportedRequest {
    /// The tool's id for it.
    pub id: Option<String>,
    /// Sent (ms, the run's clock).
    pub sent_ms: f64,
    /// Time to first token (ms); `None` when nothing came.
    pub ttft_ms: Option<f64>,
    /// Its gaps: `(start, len)` into the run's `itl_ms`.
    pub itl: (usize, usize),
    /// End-to-end latency the tool recorded (ms): the lab's E2EL (and so
    /// TPOT) when gaps were recorded, the end of the spread when not.
    pub e2el_ms: Option<f64>,
    /// Output tokens the tool counted.
    pub output_tokens: Option<u64>,
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Generated text, when kept.
    #[serde(skip)]
    pub text: Option<String>,
    /// The tool's error message, when it failed.
    pub error: Option<String>,
    /// Chunk times were not recorded; tokens are spread evenly.
    pub spread: bool,
    /// Turn of a multi-turn conversation (0-based), when the tool ran
    /// conversations of more than one turn (`keep_turns`).
    pub turn: Option<u32>,
    /// Prompt tokens the server took from its cache, when recorded.
    pub cached_tokens: Option<u64>,
}

/// Keeps turn indices only when some request is past the first turn: a
/// single-turn benchmark records turn 0 everywhere, which says nothing.
pub fn keep_turns(requests: &mut [ImportedRequest]) {
    if !requests.iter().any(|r| r.turn.is_some_and(|t| t > 0)) {
        for r in requests {
            r.turn = None;
        }
    }
}

impl ImportedRequest {
    /// Arrival times and token counts of its chunks (relative to sending).
    fn offsets(&self, itl_ms: &[f64], mut each: impl FnMut(f64, u32)) {
        // A failed request keeps what arrived before it failed.
        let Some(ttft) = self.ttft_ms else { return };
        if self.spread {
            let n = self.output_tokens.unwrap_or(1).max(1);
            let end = self.e2el_ms.unwrap_or(ttft).max(ttft);
            each(ttft, 1);
            for k in 1..n {
                each(ttft + (end - ttft) * k as f64 / (n - 1) as f64, 1);
            }
            return;
        }
        let (start, len) = self.itl;
        let gaps = itl_ms.get(start..start + len).unwrap_or(&[]);
        let mut t = ttft;
        each(t, 1);
        for g in gaps {
            t += g;
            each(t, 1);
        }
    }

    /// Its gaps between chunks (ms).
    pub fn gaps<'a>(&self, itl_ms: &'a [f64]) -> Box<dyn Iterator<Item = f64> + 'a> {
        if self.spread {
            let mut times = Vec::new();
            self.offsets(itl_ms, |t, _| times.push(t));
            let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
            return Box::new(gaps.into_iter());
        }
        let (start, len) = self.itl;
        Box::new(itl_ms.get(start..start + len).unwrap_or(&[]).iter().copied())
    }

    fn failure(&self) -> Option<Failure> {
        self.error.as_ref().map(|e| {
            // Tools store Python tracebacks: the last line says what happened.
            let last = e.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or(e).trim();
            Failure {
                kind: FailureKind::Reported,
                message: format!("The benchmark tool recorded an error: {last}"),
                status: None,
                body: (e.len() > last.len()).then(|| e.clone()),
            }
        })
    }

    /// Lab metrics of this request (`scratch` is reused between calls).
    pub fn metrics(
        &self,
        index: usize,
        itl_ms: &[f64],
        scratch: &mut Vec<TimedChunk>,
        cfg: &MetricsConfig,
    ) -> RequestMetrics {
        scratch.clear();
        let sent = self.sent_ms;
        self.offsets(itl_ms, |t, tokens| {
            scratch.push(TimedChunk { arrived_ms: sent + t, tokens, content: true, painted_ms: None })
        });
        let timing = RequestTiming {
            sent_ms: sent,
            headers_ms: None,
            end_ms: None,
            chunks: scratch,
            completion_tokens: self.output_tokens.filter(|_| self.error.is_none()),
            prompt_tokens: self.input_tokens,
            failure: self.error.as_ref().map(|_| FailureKind::Reported),
            tool_e2el_ms: self.e2el_ms.filter(|_| !self.spread),
        };
        let mut m = RequestMetrics::from_timing(index, &timing, cfg);
        m.prefilled_tokens =
            crate::measure::metrics::prefilled_tokens(self.input_tokens, self.cached_tokens, self.turn, None);
        m
    }

    /// A full lab request (for replay and export).
    pub fn to_trace(&self, itl_ms: &[f64]) -> RequestTrace {
        let mut times = Vec::new();
        self.offsets(itl_ms, |t, tokens| times.push((self.sent_ms + t, tokens)));
        let texts = split_text(self.text.as_deref().unwrap_or(""), times.len());
        let chunks: Vec<Chunk> = times
            .iter()
            .zip(texts)
            .map(|(&(arrived_ms, tokens), text)| Chunk {
                arrived_ms,
                text,
                tokens,
                kind: ChunkKind::Content,
                painted_ms: None,
                due_ms: None,
                tool: None,
                chars: None,
            })
            .collect();
        RequestTrace {
            id: self.id.clone(),
            prompt_tokens: self.input_tokens,
            sent_ms: self.sent_ms,
            end_ms: chunks.last().map(|c| c.arrived_ms).or(Some(self.sent_ms)),
            usage: self.output_tokens.map(|o| Usage {
                prompt_tokens: self.input_tokens,
                completion_tokens: Some(o),
                cached_tokens: self.cached_tokens,
                reasoning_tokens: None,
            }),
            turn: self.turn,
            failure: self.failure(),
            chunks,
            ..RequestTrace::default()
        }
    }
}

/// Splits `text` over `n` chunks: token-sized pieces, as evenly as they go;
/// chunks beyond the text get empty text.
pub fn split_text(text: &str, n: usize) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    let pieces = pseudo_tokens(text);
    let p = pieces.len();
    (0..n)
        .map(|k| {
            let (a, b) = (k * p / n, (k + 1) * p / n);
            pieces[a..b.max(a)].concat()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_become_chunks_and_text_spreads() {
        let r = ImportedRequest {
            sent_ms: 100.0,
            ttft_ms: Some(50.0),
            itl: (1, 2),
            output_tokens: Some(5),
            text: Some("one two three four five".into()),
            ..ImportedRequest::default()
        };
        let t = r.to_trace(&[9.0, 10.0, 20.0]);
        assert_eq!(t.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [150.0, 160.0, 180.0]);
        assert_eq!(t.text(), "one two three four five");
        assert_eq!(t.usage.unwrap().completion_tokens, Some(5));
        let m = r.metrics(0, &[9.0, 10.0, 20.0], &mut Vec::new(), &MetricsConfig::default());
        assert_eq!(m.tpot_ms, Some((80.0 - 50.0) / 4.0), "TPOT uses the tool's token count");
    }

    #[test]
    fn spread_and_failed() {
        let r = ImportedRequest {
            ttft_ms: Some(100.0),
            e2el_ms: Some(400.0),
            output_tokens: Some(4),
            spread: true,
            turn: None,
            cached_tokens: None,
            ..ImportedRequest::default()
        };
        let t = r.to_trace(&[]);
        assert_eq!(t.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [100.0, 200.0, 300.0, 400.0]);
        let f = ImportedRequest {
            ttft_ms: None,
            error: Some("Traceback ...\n  File x\nServerDisconnectedError: gone\n".into()),
            ..ImportedRequest::default()
        };
        let t = f.to_trace(&[]);
        assert!(t.chunks.is_empty());
        assert_eq!(
            t.failure.unwrap().message,
            "The benchmark tool recorded an error: ServerDisconnectedError: gone"
        );
        assert_eq!(split_text("a b", 4), ["", "a", "", " b"]);
    }
}
