//! Synthetic latency profiles: seeded, reproducible descriptions of how a
//! server streams, turned into schedules of due times.
//!
//! A profile produces, for a request with `p` prompt tokens:
//! - **TTFT** = `ttft_ms` (times a log-normal factor with `ttft_cv` when it
//!   is not 0) + `prefill_ms_per_token · p` (the optional prefill model:
//!   longer prompts wait longer for the first token).
//! - **Chunks**: the first carries one token; each later chunk carries
//!   `burst` tokens (as engines with speculative decoding or coarse stream
//!   intervals send), and arrives after the sum of one inter-token latency
//!   per token it carries.
//! - **Inter-token latency** per token: drawn from [`Jitter`] around the mean
//!   `tpot_ms` (constant, normal, log-normal or gamma with a coefficient of
//!   variation, or resampled from measured values).
//! - **Stalls**: before each chunk after the first, with probability
//!   `stall.probability`, an extra pause drawn log-normally around
//!   `stall.mean_ms`.
//! - **Output length**: `output_tokens`, capped by the request's max tokens.
//!
//! The random stream of request `i` is seeded from `(seed, i)`, so a profile
//! gives the same schedule every time, everywhere ([`crate::replay::rng`]).

mod presets;
mod spec;
pub mod tool;

pub use presets::{preset, presets};

use serde::{Deserialize, Serialize};

use crate::replay::rng::Rng;
use crate::replay::text;
use crate::trace::{Chunk, ChunkKind, RequestTrace, SourceKind, ToolCallRef, Trace, TraceMeta, Usage};
pub use tool::ToolCallSpec;

/// Longest output a profile may ask for (1 M tokens).
pub const MAX_OUTPUT_TOKENS: u32 = 1_000_000;

/// Most slots a profile may ask for (the server model's concurrent
/// decodes, `crate::serve::capacity`).
pub const MAX_SLOTS: u32 = 4096;

/// Shape of the inter-token latency around its mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Jitter {
    /// Every gap equals the mean.
    Constant,
    /// Normal with this coefficient of variation (negative draws become 0).
    Normal {
        /// std / mean.
        cv: f64,
    },
    /// Log-normal with this coefficient of variation (right-skewed, like real servers).
    LogNormal {
        /// std / mean.
        cv: f64,
    },
    /// Gamma with this coefficient of variation.
    Gamma {
        /// std / mean.
        cv: f64,
    },
    /// Resampled uniformly from measured gaps (ms), e.g. a trace's ITLs.
    Empirical {
        /// The gaps.
        values_ms: Vec<f64>,
    },
}

/// Occasional long pauses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StallModel {
    /// Chance of a stall before each chunk (0–1).
    pub probability: f64,
    /// Mean stall length (ms).
    pub mean_ms: f64,
    /// Coefficient of variation of the stall length (log-normal).
    pub cv: f64,
    /// One stall of exactly `mean_ms` before the chunk that holds this
    /// output token (0-based), instead of random ones: the same pause at
    /// the same place every time (threshold studies of stall length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_token: Option<u32>,
}

/// Where the streamed text comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextSource {
    /// One of [`text::SAMPLES`].
    Sample {
        /// Sample id.
        id: String,
    },
    /// The user's own text.
    Custom {
        /// The text.
        text: String,
    },
    /// Exact token texts (e.g. a recorded request's chunks), one per token.
    Pieces {
        /// The pieces.
        pieces: Vec<String>,
    },
}

impl TextSource {
    /// The first `n` token texts (cycling when the source is shorter).
    pub fn tokens(&self, n: usize) -> Vec<String> {
        match self {
            Self::Sample { id } => text::take_tokens(text::sample(id).unwrap_or(&text::SAMPLES[0]).text, n),
            Self::Custom { text } => text::take_tokens(text, n),
            Self::Pieces { pieces } if !pieces.is_empty() => pieces.iter().cycle().take(n).cloned().collect(),
            Self::Pieces { .. } => text::take_tokens("", n),
        }
    }
}

fn default_burst() -> u32 {
    1
}

/// A synthetic latency profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Display name.
    pub name: String,
    /// Base time to first token (ms).
    pub ttft_ms: f64,
    /// Request-to-request variation of TTFT (log-normal cv; 0 = fixed).
    #[serde(default)]
    pub ttft_cv: f64,
    /// Extra TTFT per prompt token (ms), the prefill model.
    #[serde(default)]
    pub prefill_ms_per_token: f64,
    /// Mean inter-token latency (ms).
    pub tpot_ms: f64,
    /// Distribution of the inter-token latency.
    pub jitter: Jitter,
    /// Occasional pauses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall: Option<StallModel>,
    /// Tokens per chunk after the first.
    #[serde(default = "default_burst")]
    pub burst: u32,
    /// Output length in tokens.
    pub output_tokens: u32,
    /// Random seed.
    #[serde(default)]
    pub seed: u64,
    /// Streamed text.
    pub text: TextSource,
    /// Tool calls after the text ([`tool`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallSpec>,
    /// Reasoning tokens streamed before the answer (as `reasoning_content`),
    /// at the same pace: a "thinking" phase without a reasoning model.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u32,
    /// Prefix caching on the replay endpoint ([`crate::serve::cache`]);
    /// `None` = on when `prefill_ms_per_token` > 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<bool>,
    /// Requests decoding at once on the replay endpoint; more wait in a
    /// queue ([`crate::serve::capacity`]). `None` = no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What the reasoning phase of a profile says (cycled as needed).
pub const REASONING_TEXT: &str = "Let me think about what is being asked. The question has a few parts, \
so I will take them in order, check each against what I know, and note where I am unsure. \
First, restate the goal in my own words. Then list what matters and what does not. \
Finally, draft the answer, read it again, and make it short and clear. ";

/// Why a profile is unusable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    /// A number is out of range.
    #[error("{field} = {value}: {why}")]
    Range {
        /// Field name.
        field: &'static str,
        /// Its value.
        value: String,
        /// The rule.
        why: &'static str,
    },
    /// Spec syntax.
    #[error("\"{item}\" in a profile spec: {why}")]
    Spec {
        /// The item.
        item: String,
        /// What is wrong.
        why: String,
    },
}

/// One chunk of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledChunk {
    /// When it is due, ms after the request started.
    pub due_ms: f64,
    /// Tokens it carries.
    pub tokens: u32,
    /// Its text (for a tool-call fragment, a piece of its arguments).
    pub text: String,
    /// Set on tool-call fragments: the call.
    pub tool: Option<ToolCallRef>,
    /// Answer, reasoning or tool call.
    pub kind: ChunkKind,
}

/// The planned stream of one request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schedule {
    /// Chunks in due order.
    pub chunks: Vec<ScheduledChunk>,
    /// Prompt tokens the schedule was made for.
    pub prompt_tokens: u64,
}

impl Schedule {
    /// Output tokens.
    pub fn tokens(&self) -> u64 {
        self.chunks.iter().map(|c| u64::from(c.tokens)).sum()
    }

    /// Due time of the last chunk (ms), 0 when empty.
    pub fn end_ms(&self) -> f64 {
        self.chunks.last().map_or(0.0, |c| c.due_ms)
    }
}

fn check(field: &'static str, value: f64, ok: bool, why: &'static str) -> Result<(), ProfileError> {
    if ok && value.is_finite() {
        Ok(())
    } else {
        Err(ProfileError::Range { field, value: value.to_string(), why })
    }
}

impl Profile {
    /// A smooth profile: fixed TTFT, normal jitter of 10 %, chat text.
    pub fn simple(name: &str, ttft_ms: f64, tpot_ms: f64, output_tokens: u32) -> Self {
        Self {
            name: name.to_string(),
            ttft_ms,
            ttft_cv: 0.0,
            prefill_ms_per_token: 0.0,
            tpot_ms,
            jitter: Jitter::Normal { cv: 0.1 },
            stall: None,
            burst: 1,
            output_tokens,
            seed: 1,
            text: TextSource::Sample { id: "chat".into() },
            tool_calls: Vec::new(),
            reasoning_tokens: 0,
            cache: None,
            slots: None,
        }
    }

    /// Whether the replay endpoint caches prompt prefixes for this profile:
    /// as set, else when prefill costs anything.
    pub fn caches_prefixes(&self) -> bool {
        self.cache.unwrap_or(self.prefill_ms_per_token > 0.0)
    }

    /// A profile with the rhythm of a recorded request: its TTFT, its mean
    /// inter-token gap as TPOT, its gaps resampled (empirical jitter), its
    /// length and its text. `None` for a request without two token chunks.
    pub fn from_recorded(name: &str, r: &RequestTrace) -> Option<Self> {
        let chunks: Vec<&Chunk> = r.chunks.iter().filter(|c| c.tokens > 0).collect();
        if chunks.len() < 2 {
            return None;
        }
        // A profile's parameters, not a record of stamps: a profile cannot
        // wait a negative time, so a request built without the loader's
        // order check gives 0 there.
        let gaps: Vec<f64> =
            chunks.windows(2).map(|w| (w[1].arrived_ms - w[0].arrived_ms).max(0.0)).collect();
        let tokens: u32 = chunks.iter().map(|c| c.tokens).sum();
        Some(Self {
            name: name.to_string(),
            ttft_ms: (chunks[0].arrived_ms - r.sent_ms).max(0.0),
            ttft_cv: 0.0,
            prefill_ms_per_token: 0.0,
            tpot_ms: gaps.iter().sum::<f64>() / gaps.len() as f64,
            jitter: Jitter::Empirical { values_ms: gaps },
            stall: None,
            burst: 1,
            output_tokens: tokens.clamp(1, MAX_OUTPUT_TOKENS),
            seed: 1,
            text: TextSource::Pieces { pieces: chunks.iter().map(|c| c.text.clone()).collect() },
            ..Self::simple(name, 0.0, 0.0, 1)
        })
    }

    /// Checks every number.
    pub fn validate(&self) -> Result<(), ProfileError> {
        check("ttft_ms", self.ttft_ms, self.ttft_ms >= 0.0, "must be ≥ 0")?;
        check("ttft_cv", self.ttft_cv, self.ttft_cv >= 0.0, "must be ≥ 0")?;
        check(
            "prefill_ms_per_token",
            self.prefill_ms_per_token,
            self.prefill_ms_per_token >= 0.0,
            "must be ≥ 0",
        )?;
        check("tpot_ms", self.tpot_ms, self.tpot_ms >= 0.0, "must be ≥ 0")?;
        match &self.jitter {
            Jitter::Constant => {}
            Jitter::Normal { cv } | Jitter::LogNormal { cv } | Jitter::Gamma { cv } => {
                check("jitter cv", *cv, *cv >= 0.0 && *cv <= 10.0, "must be within 0-10")?
            }
            Jitter::Empirical { values_ms } => {
                if values_ms.is_empty() || values_ms.iter().any(|v| !v.is_finite() || *v < 0.0) {
                    return Err(ProfileError::Range {
                        field: "jitter values_ms",
                        value: format!("{} values", values_ms.len()),
                        why: "needs at least one finite, non-negative gap",
                    });
                }
            }
        }
        if let Some(s) = self.stall {
            check(
                "stall probability",
                s.probability,
                (0.0..=1.0).contains(&s.probability),
                "must be within 0-1",
            )?;
            check("stall mean_ms", s.mean_ms, s.mean_ms >= 0.0, "must be ≥ 0")?;
            check("stall cv", s.cv, s.cv >= 0.0, "must be ≥ 0")?;
        }
        check("burst", f64::from(self.burst), self.burst >= 1, "must be ≥ 1")?;
        if let Some(n) = self.slots {
            check("slots", f64::from(n), (1..=MAX_SLOTS).contains(&n), "must be within 1-4096")?;
        }
        let least = u32::from(self.tool_calls.is_empty());
        check(
            "output_tokens",
            f64::from(self.output_tokens),
            (least..=MAX_OUTPUT_TOKENS).contains(&self.output_tokens),
            "must be within 1-1000000",
        )?;
        Ok(())
    }

    fn itl(&self, rng: &mut Rng) -> f64 {
        let m = self.tpot_ms;
        if m == 0.0 {
            return 0.0;
        }
        match &self.jitter {
            Jitter::Constant => m,
            Jitter::Normal { cv } => (m + m * cv * rng.normal()).max(0.0),
            Jitter::LogNormal { cv } if *cv > 0.0 => rng.lognormal(m, *cv),
            Jitter::Gamma { cv } if *cv > 0.0 => rng.gamma(m, *cv),
            Jitter::LogNormal { .. } | Jitter::Gamma { .. } => m,
            Jitter::Empirical { values_ms } if !values_ms.is_empty() => values_ms[rng.below(values_ms.len())],
            Jitter::Empirical { .. } => m,
        }
    }

    /// The schedule of request number `request` with `prompt_tokens` of
    /// prompt, capped at `max_tokens` output tokens when given.
    pub fn schedule(&self, request: u64, prompt_tokens: u64, max_tokens: Option<u32>) -> Schedule {
        let mut rng = Rng::new(self.seed ^ request.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17));
        let n = max_tokens.map_or(self.output_tokens, |m| m.min(self.output_tokens)).min(MAX_OUTPUT_TOKENS);
        let pieces = self.text.tokens(n as usize);
        let factor = if self.ttft_cv > 0.0 { rng.lognormal(1.0, self.ttft_cv) } else { 1.0 };
        let mut t = self.ttft_ms * factor + self.prefill_ms_per_token * prompt_tokens as f64;
        let mut chunks = Vec::new();
        let reasoning =
            text::take_tokens(REASONING_TEXT, self.reasoning_tokens.min(MAX_OUTPUT_TOKENS) as usize);
        let phases = [(reasoning, ChunkKind::Reasoning), (pieces, ChunkKind::Content)];
        for (pieces, kind) in phases {
            let mut i = 0usize;
            while i < pieces.len() {
                let k =
                    if chunks.is_empty() { 1 } else { (self.burst.max(1) as usize).min(pieces.len() - i) };
                if !chunks.is_empty() {
                    for _ in 0..k {
                        t += self.itl(&mut rng);
                    }
                    let once = self
                        .stall
                        .and_then(|s| s.at_token)
                        .map(|at| kind == ChunkKind::Content && (i..i + k).contains(&(at as usize)));
                    if let Some(s) = self.stall
                        && once == Some(true)
                    {
                        t += s.mean_ms;
                    } else if let Some(s) = self.stall
                        && once.is_none()
                        && s.probability > 0.0
                        && rng.uniform() < s.probability
                    {
                        t += if s.cv > 0.0 && s.mean_ms > 0.0 {
                            rng.lognormal(s.mean_ms, s.cv)
                        } else {
                            s.mean_ms
                        };
                    }
                }
                let text = pieces[i..i + k].concat();
                chunks.push(ScheduledChunk { due_ms: t, tokens: k as u32, text, tool: None, kind });
                i += k;
            }
        }
        for (index, call) in self.tool_calls.iter().enumerate() {
            let named = ToolCallRef { index: index as u32, id: None, name: Some(call.name.clone()) };
            let header = std::iter::once((String::new(), named));
            let args = tool::argument_pieces(call.arg_tokens)
                .into_iter()
                .map(|a| (a, ToolCallRef { index: index as u32, ..ToolCallRef::default() }));
            for (text, r) in header.chain(args) {
                if !chunks.is_empty() {
                    t += self.itl(&mut rng);
                }
                chunks.push(ScheduledChunk {
                    due_ms: t,
                    tokens: 1,
                    text,
                    tool: Some(r),
                    kind: ChunkKind::ToolCall,
                });
            }
        }
        Schedule { chunks, prompt_tokens }
    }

    /// A synthetic trace of `requests` requests played one after another
    /// (each starts when the previous ends), with due = arrival times.
    pub fn to_trace(&self, requests: u32, prompt_tokens: u64) -> Trace {
        let mut start = 0.0;
        let mut reqs = Vec::with_capacity(requests as usize);
        for r in 0..requests {
            let s = self.schedule(u64::from(r), prompt_tokens, None);
            let chunks = s
                .chunks
                .iter()
                .map(|c| Chunk {
                    arrived_ms: start + c.due_ms,
                    text: c.text.clone(),
                    tokens: c.tokens,
                    kind: c.kind,
                    painted_ms: None,
                    due_ms: Some(start + c.due_ms),
                    tool: c.tool.clone(),
                    chars: None,
                })
                .collect();
            let end = start + s.end_ms();
            reqs.push(RequestTrace {
                id: Some(format!("{}#{r}", self.name)),
                prompt_tokens: Some(prompt_tokens),
                sent_ms: start,
                headers_ms: Some(start),
                status: Some(200),
                chunks,
                end_ms: Some(end),
                usage: Some(Usage {
                    prompt_tokens: Some(prompt_tokens),
                    completion_tokens: Some(s.tokens()),
                    cached_tokens: None,
                    reasoning_tokens: None,
                }),
                ..RequestTrace::default()
            });
            start = end;
        }
        Trace {
            meta: TraceMeta {
                label: Some(self.name.clone()),
                source: SourceKind::Synthetic,
                model: Some(format!("profile:{self}")),
                ..TraceMeta::default()
            },
            requests: reqs,
            ..Trace::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_profile_is_exact() {
        let mut p = Profile::simple("c", 300.0, 20.0, 50);
        p.jitter = Jitter::Constant;
        let s = p.schedule(0, 0, None);
        assert_eq!(s.chunks.len(), 50);
        assert_eq!(s.chunks[0].due_ms, 300.0);
        assert!((s.end_ms() - (300.0 + 49.0 * 20.0)).abs() < 1e-9);
        assert_eq!(s.tokens(), 50);
    }

    #[test]
    fn burst_prefill_stall_and_cap() {
        let mut p = Profile::simple("b", 100.0, 10.0, 10);
        p.jitter = Jitter::Constant;
        p.burst = 4;
        p.prefill_ms_per_token = 0.5;
        let s = p.schedule(0, 200, None);
        assert_eq!(s.chunks.iter().map(|c| c.tokens).collect::<Vec<_>>(), [1, 4, 4, 1]);
        assert_eq!(s.chunks[0].due_ms, 200.0); // 100 + 0.5 · 200
        assert_eq!(s.chunks[1].due_ms, 240.0); // 4 tokens · 10 ms
        assert_eq!(p.schedule(0, 0, Some(3)).tokens(), 3);
        p.stall = Some(StallModel { probability: 1.0, mean_ms: 500.0, cv: 0.0, at_token: None });
        let s = p.schedule(0, 0, None);
        assert_eq!(s.chunks[1].due_ms - s.chunks[0].due_ms, 540.0);
    }

    #[test]
    fn a_single_stall_lands_before_its_token_every_time() {
        let mut p: Profile = "ttft=100,tpot=10,jitter=constant,stall=once:400@5,tokens=10".parse().unwrap();
        assert_eq!(p.to_string().matches("stall=once:400@5").count(), 1, "{p}");
        let s = p.schedule(0, 0, None);
        let gaps: Vec<f64> = s.chunks.windows(2).map(|w| w[1].due_ms - w[0].due_ms).collect();
        assert_eq!(gaps, [10.0, 10.0, 10.0, 10.0, 410.0, 10.0, 10.0, 10.0, 10.0]);
        assert_eq!(p.schedule(7, 0, None), s, "the same for every request");
        p.burst = 4;
        let s = p.schedule(0, 0, None);
        assert_eq!(s.chunks[2].due_ms - s.chunks[1].due_ms, 440.0, "the chunk holding token 5");
    }

    #[test]
    fn spec_round_trips_and_rejects_nonsense() {
        let p: Profile =
            "ttft=300,tpot=20,jitter=lognormal:0.3,stall=0.05:800,burst=2,tokens=64,seed=9,text=code"
                .parse()
                .unwrap();
        assert_eq!(p.ttft_ms, 300.0);
        assert_eq!(p.burst, 2);
        assert_eq!(p.stall.unwrap().cv, 0.5);
        let again: Profile = p.to_string().parse().unwrap();
        assert_eq!(again.schedule(3, 10, None), p.schedule(3, 10, None));
        for bad in ["ttft", "ttft=-1", "jitter=wobbly:1", "stall=2:100", "tokens=0", "color=red", "text=poem"]
        {
            assert!(bad.parse::<Profile>().is_err(), "{bad}");
        }
    }

    #[test]
    fn profile_from_a_recorded_request_keeps_its_rhythm() {
        let t = crate::trace::Trace::from_json(include_str!("../../../../../tests/fixtures/hand.trace.json"))
            .unwrap();
        let p = Profile::from_recorded("D", &t.requests[3]).unwrap(); // TTFT 50, gaps 20, 400, 20
        assert_eq!(p.ttft_ms, 50.0);
        assert!((p.tpot_ms - 440.0 / 3.0).abs() < 1e-9);
        let s = p.schedule(0, 0, None);
        assert_eq!(s.tokens(), 4);
        assert!(s.chunks.windows(2).all(|w| [20.0, 400.0].contains(&(w[1].due_ms - w[0].due_ms))));
        assert_eq!(s.chunks.iter().map(|c| c.text.as_str()).collect::<String>(), "abcd");
        assert!(Profile::from_recorded("C", &t.requests[2]).is_none());
    }

    #[test]
    fn presets_parse_and_the_same_tokens_pair_is_equal() {
        let all = presets();
        assert!(all.len() >= 10);
        for p in &all {
            p.validate().unwrap();
            assert!(!p.name.contains("invalid"), "{}", p.name);
        }
        let a = preset("fast-start").unwrap().schedule(0, 0, None);
        let b = preset("slow-start").unwrap().schedule(0, 0, None);
        assert_eq!(a.tokens(), b.tokens());
        assert!((a.end_ms() - b.end_ms()).abs() < 1e-9, "{} vs {}", a.end_ms(), b.end_ms());
    }

    #[test]
    fn synthetic_trace_has_the_profile_metrics() {
        let p = Profile::simple("s", 150.0, 40.0, 80);
        let t = p.to_trace(3, 20);
        let m =
            crate::measure::metrics::RunMetrics::of(&t, &crate::measure::metrics::MetricsConfig::default());
        assert_eq!(m.completed, 3);
        assert!((m.ttft_ms.unwrap().mean - 150.0).abs() < 1e-9);
        assert!((m.tpot_ms.unwrap().mean - 40.0).abs() < 2.0);
        assert!(t.requests[1].sent_ms >= t.requests[0].end_ms.unwrap());
    }
}
