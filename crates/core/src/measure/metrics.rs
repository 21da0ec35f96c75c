//! Latency metrics of a trace, with the definitions of vLLM's benchmark
//! (`vllm bench serve`, `calculate_metrics`), so lab figures and vLLM figures
//! mean the same thing.
//!
//! Per request (all times in ms, measured from `sent_ms`):
//! - A **token chunk** is a chunk with `tokens > 0` (content or reasoning,
//!   including a token whose text is empty because its bytes do not yet form
//!   a character, as llama.cpp streams them).
//! - **TTFT** (time to first token) = arrival of the first token chunk −
//!   sent. Like vLLM's client, reasoning text counts as a token; the
//!   role-only first chunk of chat streams carries no text and does not.
//!   **Time to first answer** is the same for the first *content* chunk; it
//!   differs from TTFT only for reasoning models.
//! - **E2EL** (end-to-end latency) = arrival of the last token chunk − sent
//!   (vLLM's `latency`: the trailing usage chunk and `[DONE]` do not count).
//!   For an imported run whose tool recorded each request's latency, that
//!   figure is used as is.
//! - **Output tokens** = `usage.completion_tokens` when the server sent it,
//!   else the sum of the chunks' token counts.
//! - **TPOT** (time per output token) = (E2EL − TTFT) / (output tokens − 1).
//!   Undefined for a 1-token response: such requests are *excluded* from TPOT
//!   statistics, not counted as 0 (goodput alone treats them as 0, as vLLM).
//! - **ITL** (inter-token latency) = the gaps between successive token chunks,
//!   one per chunk after the first, as vLLM records them. Each gap keeps the
//!   token count of the chunk that ended it, so a chunk of k tokens is not
//!   mistaken for one fast token: the **per-token ITL** view spreads a gap of
//!   g ms over its k tokens as k values of g/k.
//! - **Output tokens/s** of a request = output tokens / E2EL (user view);
//!   **decode tokens/s** = 1000 / TPOT.
//! - **Jitter** of a request: the std-dev of its ITLs, their coefficient of
//!   variation (std / mean) and the tail ratio P99 / P50 (needs ≥ 2 gaps).
//! - A **stall** is an ITL longer than the threshold
//!   ([`DEFAULT_STALL_MS`] = 250 ms unless configured); the **longest stall**
//!   is the largest such gap.
//! - Client-only stages: **TTFB** (headers received − sent) → TTFT →
//!   **TTFP** (first paint of a token chunk − sent); **first answer paint**
//!   (first paint of an answer chunk − sent) is when a reasoning model's
//!   answer itself reached the screen. **Paint lag** = painted − arrived
//!   per painted token chunk; the **longest paint gap** is the longest wait
//!   between two successive paints of token chunks, from the first paint to
//!   the last (chunks painted in one frame are one paint): what a reader
//!   sees as the text stopping, whatever the stream did.
//! - Tool calls (agents; definitions in [`crate::trace::tool`]): a
//!   tool-call fragment is a token chunk. **Time to first tool call** =
//!   arrival of the first fragment − sent; **tool calls complete** = when
//!   the last call's arguments had all arrived − sent.
//!
//! Over a run:
//! - A request is **completed** when it has no failure and at least one token
//!   chunk; otherwise it is **failed** and, as in vLLM, excluded from every
//!   latency statistic.
//! - Each statistic summarises one value per completed request (TTFT, TPOT,
//!   E2EL, …), except ITL and paint lag, which pool the gaps and lags of
//!   all completed requests. Where one value per request is wanted (field
//!   data: [`crate::measure::registry::LatencyRow::request`]), those two are
//!   each request's median.
//! - **Duration** = the source's own figure when it has one (imports), else
//!   the last event of any request − the first `sent_ms`.
//! - **System output tokens/s** = output tokens of completed requests /
//!   duration; **request throughput** = completed requests / duration.
//! - What the stream felt like (input tokens/s, fluidity-index, QoE, Apdex,
//!   reasoning time): defined in [`crate::measure::feel`], knobs in
//!   [`MetricsConfig::feel`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::measure::feel::{self, FeelConfig};
use crate::measure::stats::{Samples, Summary};
use crate::measure::weighted;
use crate::trace::series::Prefix;
use crate::trace::{ChunkKind, EarlyStamps, FailureKind, RequestTrace, Trace, tool_calls};

/// Default stall threshold: an inter-token gap above 250 ms reads as a pause.
pub const DEFAULT_STALL_MS: f64 = 250.0;

/// Knobs of the metric computation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricsConfig {
    /// Gaps longer than this (ms) are stalls.
    pub stall_threshold_ms: f64,
    /// Fluidity, QoE and Apdex parameters.
    pub feel: FeelConfig,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self { stall_threshold_ms: DEFAULT_STALL_MS, feel: FeelConfig::default() }
    }
}

/// One inter-token gap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Gap {
    /// Length of the gap (ms).
    pub ms: f64,
    /// Tokens carried by the chunk that ended the gap.
    pub tokens: u32,
}

/// The timing of one chunk, however it is stored (a trace, an import).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedChunk {
    /// Arrival (ms, the request's clock).
    pub arrived_ms: f64,
    /// Tokens it carried (0 = no token).
    pub tokens: u32,
    /// Answer text (not reasoning).
    pub content: bool,
    /// First paint (ms), when measured.
    pub painted_ms: Option<f64>,
}

/// The timing facts of one request, the input of [`RequestMetrics::from_timing`].
#[derive(Debug, Clone, Copy)]
pub struct RequestTiming<'a> {
    /// Request sent (ms).
    pub sent_ms: f64,
    /// Headers received (ms).
    pub headers_ms: Option<f64>,
    /// Stream ended (ms).
    pub end_ms: Option<f64>,
    /// Chunks in arrival order.
    pub chunks: &'a [TimedChunk],
    /// `usage.completion_tokens`, when known.
    pub completion_tokens: Option<u64>,
    /// Prompt tokens, when known.
    pub prompt_tokens: Option<u64>,
    /// The failure, when it failed.
    pub failure: Option<FailureKind>,
    /// E2EL as a benchmark tool measured it (imports), used instead of the
    /// last token chunk's arrival so the lab's figures equal the tool's.
    pub tool_e2el_ms: Option<f64>,
}

/// A gap longer than the stall threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// When the pause started, relative to `sent_ms` (ms).
    pub start_ms: f64,
    /// How long it lasted (ms).
    pub duration_ms: f64,
    /// Tokens already shown when it started.
    pub after_tokens: u64,
}

/// Cadence irregularity of one stream (or of a pool of gaps).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Jitter {
    /// Standard deviation of the gaps (ms).
    pub std_ms: f64,
    /// Coefficient of variation (std / mean); 0 = metronome.
    pub cv: f64,
    /// P99 / P50 of the gaps; 1 = no tail.
    pub p99_over_p50: f64,
}

impl Jitter {
    /// Jitter of a set of gaps, `None` with fewer than two.
    pub fn of(gaps: &Samples) -> Option<Self> {
        if gaps.len() < 2 {
            return None;
        }
        Self::from_summary(&gaps.summary()?)
    }

    /// Jitter from the summary of the gaps (`None` with fewer than two).
    pub fn from_summary(s: &Summary) -> Option<Self> {
        if s.count < 2 {
            return None;
        }
        Some(Self {
            std_ms: s.std,
            cv: s.cv().unwrap_or(0.0),
            p99_over_p50: if s.p50 > 0.0 { s.p99 / s.p50 } else { 1.0 },
        })
    }
}

/// Metrics of one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestMetrics {
    /// Position in the trace.
    pub index: usize,
    /// Completed (no failure, at least one token).
    pub completed: bool,
    /// Failure category when not completed.
    pub failure: Option<FailureKind>,
    /// Output tokens (usage, else chunk sum).
    pub output_tokens: u64,
    /// Prompt tokens when known.
    pub prompt_tokens: Option<u64>,
    /// Prompt tokens the server had to compute before the first token
    /// ([`prefilled_tokens`]); `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefilled_tokens: Option<u64>,
    /// Time to first byte (headers).
    pub ttfb_ms: Option<f64>,
    /// Time to first token.
    pub ttft_ms: Option<f64>,
    /// Time to first content (non-reasoning) token.
    pub time_to_first_answer_ms: Option<f64>,
    /// Time to first answer − TTFT, when reasoning came first.
    #[serde(default)]
    pub reasoning_ms: Option<f64>,
    /// Prompt tokens / TTFT (tokens/s), when the prompt length is known.
    #[serde(default)]
    pub input_tokens_per_s: Option<f64>,
    /// Share of tokens that met their fluidity deadline (0–1).
    #[serde(default)]
    pub fluidity_index: Option<f64>,
    /// Delivered against expected reading area (0–1).
    #[serde(default)]
    pub qoe: Option<f64>,
    /// Time to first paint.
    pub ttfp_ms: Option<f64>,
    /// Time to the first paint of an answer (content) chunk: with reasoning
    /// shown first, when the answer itself reached the screen.
    #[serde(default)]
    pub first_answer_paint_ms: Option<f64>,
    /// Tool calls in the response.
    #[serde(default)]
    pub tool_calls: usize,
    /// Time to the first tool-call fragment.
    #[serde(default)]
    pub time_to_first_tool_call_ms: Option<f64>,
    /// When every tool call's arguments had arrived.
    #[serde(default)]
    pub tool_calls_complete_ms: Option<f64>,
    /// End-to-end latency.
    pub e2el_ms: Option<f64>,
    /// Time per output token (None for ≤ 1 token).
    pub tpot_ms: Option<f64>,
    /// Output tokens / E2EL.
    pub output_tokens_per_s: Option<f64>,
    /// 1000 / TPOT.
    pub decode_tokens_per_s: Option<f64>,
    /// Inter-token gaps.
    pub itl: Vec<Gap>,
    /// Cadence irregularity.
    pub jitter: Option<Jitter>,
    /// Gaps above the stall threshold.
    pub stalls: Vec<Stall>,
    /// Longest stall (ms), 0 when none.
    pub longest_stall_ms: f64,
    /// painted − arrived per painted chunk.
    pub paint_lag_ms: Option<Summary>,
    /// The individual paint lags (ms), pooled by the run.
    #[serde(skip)]
    pub paint_lags: Vec<f64>,
    /// The longest wait between two paints of new text, from the first
    /// paint to the last: what a reader sees as the text stopping (`None`
    /// with fewer than two paints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint_gap_ms: Option<f64>,
    /// Time of the last event of the request (absolute ms), for durations.
    #[serde(skip)]
    pub last_event_ms: f64,
    /// `sent_ms` (absolute), for durations.
    #[serde(skip)]
    pub sent_ms: f64,
}

/// Prompt tokens the server computed before a request's first token: the
/// prompt (`prompt`) less the tokens its prefix cache held, when the server
/// said (`usage.prompt_tokens_details.cached_tokens`); else the whole
/// prompt, unless the request is a later `turn` of a conversation that kept
/// its first message (`group` not the changed-prefix series: its prefix may
/// have been cached without the server saying), which is unknown.
pub fn prefilled_tokens(
    prompt: Option<u64>,
    cached: Option<u64>,
    turn: Option<u32>,
    group: Option<&str>,
) -> Option<u64> {
    let prompt = prompt?;
    match cached {
        Some(cached) => Some(prompt.saturating_sub(cached)),
        None => {
            let fresh = turn.is_none_or(|t| t == 0) || group.and_then(Prefix::of) == Some(Prefix::Changed);
            fresh.then_some(prompt)
        }
    }
}

impl RequestMetrics {
    /// Computes the metrics of one request of a trace.
    pub fn of(index: usize, r: &RequestTrace, cfg: &MetricsConfig) -> Self {
        let chunks: Vec<TimedChunk> = r
            .chunks
            .iter()
            .map(|c| TimedChunk {
                arrived_ms: c.arrived_ms,
                tokens: c.tokens,
                content: c.kind == ChunkKind::Content,
                painted_ms: c.painted_ms,
            })
            .collect();
        let timing = RequestTiming {
            sent_ms: r.sent_ms,
            headers_ms: r.headers_ms,
            end_ms: r.end_ms,
            chunks: &chunks,
            completion_tokens: r.usage.and_then(|u| u.completion_tokens),
            // The server's count when it sent one (a live run records an estimate).
            prompt_tokens: r.usage.and_then(|u| u.prompt_tokens).or(r.prompt_tokens),
            failure: r.failure.as_ref().map(|f| f.kind),
            tool_e2el_ms: None,
        };
        let mut m = Self::from_timing(index, &timing, cfg);
        m.prefilled_tokens = prefilled_tokens(
            m.prompt_tokens,
            r.usage.and_then(|u| u.cached_tokens),
            r.turn,
            r.group.as_deref(),
        );
        let calls = tool_calls(r);
        m.tool_calls = calls.len();
        m.time_to_first_tool_call_ms = calls.iter().map(|c| c.first_ms).reduce(f64::min);
        m.tool_calls_complete_ms = if calls.iter().all(|c| c.complete_ms.is_some()) {
            calls.iter().filter_map(|c| c.complete_ms).reduce(f64::max)
        } else {
            None
        };
        m
    }

    /// Computes the metrics of one request from its timing facts.
    pub fn from_timing(index: usize, r: &RequestTiming<'_>, cfg: &MetricsConfig) -> Self {
        let sent = r.sent_ms;
        let token_chunks: Vec<&TimedChunk> = r.chunks.iter().filter(|c| c.tokens > 0).collect();
        let chunk_tokens: u64 = token_chunks.iter().map(|c| u64::from(c.tokens)).sum();
        let output_tokens = r.completion_tokens.unwrap_or(chunk_tokens);
        let first = token_chunks.first();
        let ttft = first.map(|c| c.arrived_ms - sent);
        let e2el = token_chunks.last().map(|c| r.tool_e2el_ms.unwrap_or(c.arrived_ms - sent));
        let tpot = match (ttft, e2el) {
            (Some(t), Some(e)) if output_tokens > 1 => Some((e - t) / (output_tokens - 1) as f64),
            _ => None,
        };
        let mut itl = Vec::with_capacity(token_chunks.len().saturating_sub(1));
        let mut stalls = Vec::new();
        let mut shown = first.map_or(0, |c| u64::from(c.tokens));
        for pair in token_chunks.windows(2) {
            let gap = Gap { ms: pair[1].arrived_ms - pair[0].arrived_ms, tokens: pair[1].tokens };
            if gap.ms > cfg.stall_threshold_ms {
                stalls.push(Stall {
                    start_ms: pair[0].arrived_ms - sent,
                    duration_ms: gap.ms,
                    after_tokens: shown,
                });
            }
            shown += u64::from(pair[1].tokens);
            itl.push(gap);
        }
        let gaps = Samples::from_finite(itl.iter().map(|g| g.ms));
        let paint_lags: Vec<f64> =
            token_chunks.iter().filter_map(|c| c.painted_ms.map(|p| p - c.arrived_ms)).collect();
        let last_event_ms = [r.end_ms, r.chunks.last().map(|c| c.arrived_ms), r.headers_ms]
            .into_iter()
            .flatten()
            .fold(sent, f64::max);
        let completed = r.failure.is_none() && first.is_some();
        let arrivals: Vec<(f64, u64)> =
            token_chunks.iter().map(|c| (c.arrived_ms - sent, u64::from(c.tokens))).collect();
        let f = &cfg.feel;
        let answer = token_chunks.iter().find(|c| c.content).map(|c| c.arrived_ms - sent);
        let failure = match (r.failure, first) {
            (Some(f), _) => Some(f),
            (None, None) => Some(FailureKind::Empty),
            (None, Some(_)) => None,
        };
        Self {
            index,
            completed,
            failure,
            output_tokens,
            prompt_tokens: r.prompt_tokens,
            prefilled_tokens: r.prompt_tokens,
            ttfb_ms: r.headers_ms.map(|h| h - sent),
            ttft_ms: ttft,
            time_to_first_answer_ms: answer,
            reasoning_ms: match (answer, ttft) {
                (Some(a), Some(t)) if a > t => Some(a - t),
                _ => None,
            },
            input_tokens_per_s: feel::input_tokens_per_s(r.prompt_tokens, ttft),
            fluidity_index: feel::fluidity(&arrivals, f.fluidity_ttft_ms, f.fluidity_tbt_ms),
            qoe: feel::qoe(&arrivals, f.qoe_ttft_ms, f.qoe_tokens_per_s),
            ttfp_ms: token_chunks.iter().find_map(|c| c.painted_ms).map(|p| p - sent),
            first_answer_paint_ms: token_chunks
                .iter()
                .filter(|c| c.content)
                .find_map(|c| c.painted_ms)
                .map(|p| p - sent),
            tool_calls: 0,
            time_to_first_tool_call_ms: None,
            tool_calls_complete_ms: None,
            e2el_ms: e2el,
            tpot_ms: tpot,
            output_tokens_per_s: e2el.filter(|&e| e > 0.0).map(|e| output_tokens as f64 * 1000.0 / e),
            decode_tokens_per_s: tpot.filter(|&t| t > 0.0).map(|t| 1000.0 / t),
            jitter: Jitter::of(&gaps),
            longest_stall_ms: stalls.iter().map(|s| s.duration_ms).fold(0.0, f64::max),
            stalls,
            itl,
            paint_lag_ms: summary_of(paint_lags.iter().copied()),
            paint_lags,
            paint_gap_ms: longest_paint_gap(&token_chunks),
            last_event_ms,
            sent_ms: sent,
        }
    }

    /// The median of its ITL gaps (ms), `None` without gaps.
    pub fn itl_median_ms(&self) -> Option<f64> {
        summary_of(self.itl.iter().map(|g| g.ms)).map(|s| s.median)
    }

    /// The median of its ITL per token (each gap spread over its chunk's
    /// tokens, counted), `None` without gaps.
    pub fn itl_per_token_median_ms(&self) -> Option<f64> {
        weighted::summary_of_counted(self.itl.iter().map(|g| {
            let k = g.tokens.max(1);
            (g.ms / f64::from(k), u64::from(k))
        }))
        .map(|s| s.median)
    }

    /// The longest gap of the request (ms), `None` without gaps.
    pub fn max_itl_ms(&self) -> Option<f64> {
        self.itl.iter().map(|g| g.ms).reduce(f64::max)
    }
}

/// The longest wait between two successive paints of `chunks` (several
/// chunks painted in one frame are one paint), `None` with fewer than two.
fn longest_paint_gap(chunks: &[&TimedChunk]) -> Option<f64> {
    let mut paints: Vec<f64> = chunks.iter().filter_map(|c| c.painted_ms).filter(|t| t.is_finite()).collect();
    paints.sort_by(f64::total_cmp);
    paints.windows(2).map(|w| w[1] - w[0]).reduce(f64::max)
}

/// Stall figures of a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StallSummary {
    /// Threshold used (ms).
    pub threshold_ms: f64,
    /// Number of stalls over all completed requests.
    pub count: usize,
    /// Completed requests with at least one stall.
    pub requests_with_stalls: usize,
    /// Longest stall seen (ms), 0 when none.
    pub longest_ms: f64,
    /// Total time spent stalled (ms).
    pub total_ms: f64,
}

/// Metrics of a whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// Requests in the trace.
    pub requests: usize,
    /// Completed requests.
    pub completed: usize,
    /// Failed requests.
    pub failed: usize,
    /// Failed requests per failure kind.
    pub failures: BTreeMap<String, usize>,
    /// Wall time of the run (ms).
    pub duration_ms: Option<f64>,
    /// Output tokens of completed requests.
    pub output_tokens: u64,
    /// Prompt tokens of completed requests (where known).
    pub input_tokens: u64,
    /// TTFT over completed requests.
    pub ttft_ms: Option<Summary>,
    /// TPOT over completed requests with ≥ 2 tokens.
    pub tpot_ms: Option<Summary>,
    /// ITL over all gaps of completed requests.
    pub itl_ms: Option<Summary>,
    /// Per-token ITL (each gap spread over its chunk's tokens).
    pub itl_per_token_ms: Option<Summary>,
    /// E2EL over completed requests.
    pub e2el_ms: Option<Summary>,
    /// TTFB over completed requests.
    pub ttfb_ms: Option<Summary>,
    /// Time to first paint over completed requests that were painted.
    pub ttfp_ms: Option<Summary>,
    /// Time to the first paint of the answer over completed requests whose
    /// answer was painted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_answer_paint_ms: Option<Summary>,
    /// Paint lag (painted − arrived) over all painted token chunks.
    pub paint_lag_ms: Option<Summary>,
    /// Each request's longest paint gap, over completed requests painted
    /// at least twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint_gap_ms: Option<Summary>,
    /// Time to first answer (content) token over completed requests.
    #[serde(default)]
    pub time_to_first_answer_ms: Option<Summary>,
    /// Reasoning time over completed requests that reasoned first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_ms: Option<Summary>,
    /// Per-request input tokens/s (prompt / TTFT).
    #[serde(default)]
    pub input_tokens_per_s: Option<Summary>,
    /// Prompt tokens of completed requests / duration.
    #[serde(default)]
    pub system_input_tokens_per_s: Option<f64>,
    /// Per-request fluidity-index.
    #[serde(default)]
    pub fluidity_index: Option<Summary>,
    /// Per-request QoE.
    #[serde(default)]
    pub qoe: Option<Summary>,
    /// Apdex of TTFT over all requests (failed ones frustrated).
    #[serde(default)]
    pub apdex_ttft: Option<f64>,
    /// The parameters fluidity, QoE and Apdex were computed with.
    #[serde(default)]
    pub feel: FeelConfig,
    /// Completed requests that called tools.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub requests_with_tool_calls: usize,
    /// Time to first tool call over completed requests that called tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_first_tool_call_ms: Option<Summary>,
    /// Tool calls complete over completed requests whose calls all completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls_complete_ms: Option<Summary>,
    /// System output tokens/s.
    pub output_tokens_per_s: Option<f64>,
    /// Completed requests per second.
    pub request_throughput: Option<f64>,
    /// Per-request output tokens/s (what one user sees).
    pub user_output_tokens_per_s: Option<Summary>,
    /// Jitter of the pooled ITLs.
    pub jitter: Option<Jitter>,
    /// Per-request ITL coefficient of variation.
    pub itl_cv: Option<Summary>,
    /// Stall figures.
    pub stalls: StallSummary,
    /// Per-request longest stall (ms, 0 when none).
    pub longest_stall_ms: Option<Summary>,
    /// Stamps out of the lab's order (a paint before arrival, a release
    /// before due), kept as measured and counted here
    /// ([`crate::trace::stamps`]).
    #[serde(default)]
    pub early_stamps: EarlyStamps,
    /// Per-request metrics (omitted from compact JSON by callers).
    #[serde(skip)]
    pub per_request: Vec<RequestMetrics>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn summary_of(values: impl IntoIterator<Item = f64>) -> Option<Summary> {
    Samples::from_finite(values).summary()
}

impl RunMetrics {
    /// Computes the metrics of every request and of the run.
    pub fn of(trace: &Trace, cfg: &MetricsConfig) -> Self {
        let per_request: Vec<RequestMetrics> =
            trace.requests.iter().enumerate().map(|(i, r)| RequestMetrics::of(i, r, cfg)).collect();
        let mut m = Self::from_requests(per_request, trace.meta.duration_ms, cfg);
        m.early_stamps = EarlyStamps::of(trace);
        m
    }

    /// Aggregates request metrics. `duration_ms` overrides the derived wall time.
    pub fn from_requests(
        per_request: Vec<RequestMetrics>,
        duration_ms: Option<f64>,
        cfg: &MetricsConfig,
    ) -> Self {
        let done: Vec<&RequestMetrics> = per_request.iter().filter(|r| r.completed).collect();
        let pooled = Samples::from_finite(done.iter().flat_map(|r| r.itl.iter().map(|g| g.ms)));
        let single_tokens = done.iter().all(|r| r.itl.iter().all(|g| g.tokens <= 1));
        drop(done);
        Self::from_pooled(per_request, pooled, single_tokens, duration_ms, cfg)
    }

    /// Like [`RunMetrics::from_requests`], with the pooled inter-token gaps
    /// of the completed requests given (`single_tokens`: every gap ended in
    /// a one-token chunk), for callers that hold them already and keep
    /// `per_request[..].itl` empty to save memory (imports of millions of
    /// gaps).
    pub fn from_pooled(
        per_request: Vec<RequestMetrics>,
        pooled: Samples,
        single_tokens: bool,
        duration_ms: Option<f64>,
        cfg: &MetricsConfig,
    ) -> Self {
        let done: Vec<&RequestMetrics> = per_request.iter().filter(|r| r.completed).collect();
        let mut failures = BTreeMap::new();
        for r in per_request.iter().filter(|r| !r.completed) {
            let kind = r.failure.unwrap_or(FailureKind::Empty);
            let name = serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_owned));
            *failures.entry(name.unwrap_or_default()).or_insert(0) += 1;
        }
        let duration_ms = duration_ms.filter(|d| d.is_finite() && *d > 0.0).or_else(|| {
            let start = per_request.iter().map(|r| r.sent_ms).reduce(f64::min)?;
            let end = per_request.iter().map(|r| r.last_event_ms).reduce(f64::max)?;
            (end > start).then_some(end - start)
        });
        let output_tokens: u64 = done.iter().map(|r| r.output_tokens).sum();
        let input_tokens: u64 = done.iter().filter_map(|r| r.prompt_tokens).sum();
        let per_s = |count: f64| duration_ms.map(|d| count * 1000.0 / d);
        let stalls: Vec<&Stall> = done.iter().flat_map(|r| &r.stalls).collect();
        let pooled_summary = pooled.summary();
        drop(pooled);
        Self {
            early_stamps: EarlyStamps::default(),
            requests: per_request.len(),
            completed: done.len(),
            failed: per_request.len() - done.len(),
            failures,
            duration_ms,
            output_tokens,
            input_tokens,
            ttft_ms: summary_of(done.iter().filter_map(|r| r.ttft_ms)),
            tpot_ms: summary_of(done.iter().filter_map(|r| r.tpot_ms)),
            itl_ms: pooled_summary,
            // Identical to the ITL summary unless a chunk carried several tokens.
            itl_per_token_ms: if single_tokens {
                pooled_summary
            } else {
                // Counted, never expanded: one chunk may claim billions of tokens.
                weighted::summary_of_counted(done.iter().flat_map(|r| {
                    r.itl.iter().map(|g| {
                        let k = g.tokens.max(1);
                        (g.ms / f64::from(k), u64::from(k))
                    })
                }))
            },
            e2el_ms: summary_of(done.iter().filter_map(|r| r.e2el_ms)),
            ttfb_ms: summary_of(done.iter().filter_map(|r| r.ttfb_ms)),
            ttfp_ms: summary_of(done.iter().filter_map(|r| r.ttfp_ms)),
            first_answer_paint_ms: summary_of(done.iter().filter_map(|r| r.first_answer_paint_ms)),
            paint_lag_ms: summary_of(done.iter().flat_map(|r| r.paint_lags.iter().copied())),
            paint_gap_ms: summary_of(done.iter().filter_map(|r| r.paint_gap_ms)),
            time_to_first_answer_ms: summary_of(done.iter().filter_map(|r| r.time_to_first_answer_ms)),
            reasoning_ms: summary_of(done.iter().filter_map(|r| r.reasoning_ms)),
            input_tokens_per_s: summary_of(done.iter().filter_map(|r| r.input_tokens_per_s)),
            system_input_tokens_per_s: per_s(input_tokens as f64).filter(|_| input_tokens > 0),
            fluidity_index: summary_of(done.iter().filter_map(|r| r.fluidity_index)),
            qoe: summary_of(done.iter().filter_map(|r| r.qoe)),
            apdex_ttft: feel::apdex(
                per_request.iter().map(|r| r.ttft_ms.filter(|_| r.completed)),
                cfg.feel.apdex_ms,
            ),
            feel: cfg.feel,
            requests_with_tool_calls: done.iter().filter(|r| r.tool_calls > 0).count(),
            time_to_first_tool_call_ms: summary_of(done.iter().filter_map(|r| r.time_to_first_tool_call_ms)),
            tool_calls_complete_ms: summary_of(done.iter().filter_map(|r| r.tool_calls_complete_ms)),
            output_tokens_per_s: per_s(output_tokens as f64),
            request_throughput: per_s(done.len() as f64),
            user_output_tokens_per_s: summary_of(done.iter().filter_map(|r| r.output_tokens_per_s)),
            jitter: pooled_summary.as_ref().and_then(Jitter::from_summary),
            itl_cv: summary_of(done.iter().filter_map(|r| r.jitter.map(|j| j.cv))),
            stalls: StallSummary {
                threshold_ms: cfg.stall_threshold_ms,
                count: stalls.len(),
                requests_with_stalls: done.iter().filter(|r| !r.stalls.is_empty()).count(),
                longest_ms: stalls.iter().map(|s| s.duration_ms).fold(0.0, f64::max),
                total_ms: stalls.iter().map(|s| s.duration_ms).sum(),
            },
            longest_stall_ms: summary_of(done.iter().map(|r| r.longest_stall_ms)),
            per_request,
        }
    }
}
