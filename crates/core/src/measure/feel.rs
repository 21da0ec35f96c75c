//! What a stream felt like, beyond goodput: how a reader keeps pace with
//! it, and how long they waited to start. Per completed request; a₀ ≤ … ≤
//! aₙ₋₁ are the arrival times (ms since sent) of its n output tokens,
//! counted from token chunks (a chunk of k tokens delivers k tokens at its
//! arrival).
//!
//! - **Input tokens/s** = prompt tokens / (TTFT / 1000), for requests whose
//!   prompt length is known and > 0 (the prefill rate the user waited on).
//!   **System input tokens/s** = prompt tokens of completed requests /
//!   duration (s).
//! - **Fluidity-index** (Metron/Etalon, arXiv 2407.07000) with a TTFT
//!   deadline D and a per-token deadline T (defaults D = 500 ms, T = 50 ms,
//!   i.e. 20 tokens/s): d₀ = D; for i ≥ 1, dᵢ = dᵢ₋₁ + T if token i−1 met
//!   its deadline, else aᵢ₋₁ + T (a miss re-bases the schedule, so one stall
//!   counts once, and early tokens bank slack). Token i meets its deadline
//!   when aᵢ ≤ dᵢ. Fluidity = tokens meeting their deadline / n.
//! - **QoE** (Andes, arXiv 2404.16283) with expected TTFT E and reading pace
//!   R tokens/s (defaults E = 500 ms, R = 20): the expected curve
//!   X(t) = min(max((t − E)·R/1000, 0), n), the delivered curve
//!   A(t) = #{i : aᵢ ≤ t}, the horizon H = max(aₙ₋₁, E + 1000·n/R);
//!   QoE = ∫₀ᴴ min(A, X) dt / ∫₀ᴴ X dt. Tokens faster than the reader earn
//!   nothing extra; late tokens lose area. Computed exactly, piece by piece
//!   (both curves are linear or constant between the arrivals and the
//!   instants X crosses a whole number of tokens).
//! - **Apdex (TTFT)** with threshold T (default 500 ms): (satisfied +
//!   tolerating / 2) / all requests; satisfied: TTFT ≤ T, tolerating:
//!   T < TTFT ≤ 4T; failed requests are frustrated.
//! - **Reasoning time** = time to first answer − TTFT, for requests that
//!   streamed reasoning before their answer (reasoning models).

use serde::{Deserialize, Serialize};

/// The knobs of the definitions above.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FeelConfig {
    /// Fluidity's TTFT deadline D (ms).
    pub fluidity_ttft_ms: f64,
    /// Fluidity's per-token deadline T (ms).
    pub fluidity_tbt_ms: f64,
    /// QoE's expected TTFT E (ms).
    pub qoe_ttft_ms: f64,
    /// QoE's reading pace R (tokens/s).
    pub qoe_tokens_per_s: f64,
    /// Apdex threshold T (ms of TTFT).
    pub apdex_ms: f64,
}

/// Default fluidity TTFT deadline: 500 ms.
pub const DEFAULT_FLUIDITY_TTFT_MS: f64 = 500.0;
/// Default fluidity per-token deadline: 50 ms (20 tokens/s).
pub const DEFAULT_FLUIDITY_TBT_MS: f64 = 50.0;
/// Default QoE expected TTFT: 500 ms.
pub const DEFAULT_QOE_TTFT_MS: f64 = 500.0;
/// Default QoE reading pace: 20 tokens/s.
pub const DEFAULT_QOE_TOKENS_PER_S: f64 = 20.0;
/// Default Apdex threshold: 500 ms.
pub const DEFAULT_APDEX_MS: f64 = 500.0;

impl Default for FeelConfig {
    fn default() -> Self {
        Self {
            fluidity_ttft_ms: DEFAULT_FLUIDITY_TTFT_MS,
            fluidity_tbt_ms: DEFAULT_FLUIDITY_TBT_MS,
            qoe_ttft_ms: DEFAULT_QOE_TTFT_MS,
            qoe_tokens_per_s: DEFAULT_QOE_TOKENS_PER_S,
            apdex_ms: DEFAULT_APDEX_MS,
        }
    }
}

/// A knob given in words that does not parse (`--fluidity`, `--qoe`, `--apdex`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--{option} {spec}: {why}")]
pub struct FeelSpecError {
    /// The option.
    pub option: &'static str,
    /// What was given.
    pub spec: String,
    /// What is expected.
    pub why: &'static str,
}

/// `key:number` pairs of `spec`, each key one of `keys`, each number > 0.
fn pairs<'a>(
    option: &'static str,
    spec: &str,
    keys: &[&'a str],
    why: &'static str,
) -> Result<Vec<(&'a str, f64)>, FeelSpecError> {
    let bad = || FeelSpecError { option, spec: spec.to_string(), why };
    spec.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once(':').ok_or_else(bad)?;
            let key = keys.iter().find(|x| **x == k.trim()).ok_or_else(bad)?;
            let v: f64 = v.trim().parse().map_err(|_| bad())?;
            if v.is_finite() && v > 0.0 { Ok((*key, v)) } else { Err(bad()) }
        })
        .collect()
}

impl FeelConfig {
    /// Sets the fluidity deadlines from `ttft:MS,tbt:MS` (either may be left out).
    pub fn set_fluidity(&mut self, spec: &str) -> Result<(), FeelSpecError> {
        let why = "expected ttft:MS,tbt:MS with positive numbers, e.g. ttft:500,tbt:50";
        for (k, v) in pairs("fluidity", spec, &["ttft", "tbt"], why)? {
            *(if k == "ttft" { &mut self.fluidity_ttft_ms } else { &mut self.fluidity_tbt_ms }) = v;
        }
        Ok(())
    }

    /// Sets the QoE expectation from `ttft:MS,tps:N` (either may be left out).
    pub fn set_qoe(&mut self, spec: &str) -> Result<(), FeelSpecError> {
        let why = "expected ttft:MS,tps:N with positive numbers, e.g. ttft:500,tps:20";
        for (k, v) in pairs("qoe", spec, &["ttft", "tps"], why)? {
            *(if k == "ttft" { &mut self.qoe_ttft_ms } else { &mut self.qoe_tokens_per_s }) = v;
        }
        Ok(())
    }

    /// Sets the Apdex threshold from `MS`.
    pub fn set_apdex(&mut self, spec: &str) -> Result<(), FeelSpecError> {
        match spec.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => {
                self.apdex_ms = v;
                Ok(())
            }
            _ => Err(FeelSpecError {
                option: "apdex",
                spec: spec.into(),
                why: "expected a positive number of ms, e.g. 500",
            }),
        }
    }
}

/// Token arrivals as runs: `(arrival ms since sent, tokens)` per token
/// chunk, in arrival order. A chunk of k tokens is one run, never k
/// values: a damaged file may claim billions of tokens in one chunk.
pub type Arrivals = [(f64, u64)];

/// Tokens in `arrivals`.
fn total(arrivals: &Arrivals) -> u64 {
    arrivals.iter().map(|r| r.1).sum()
}

/// Fluidity-index of token arrivals (`None` without tokens). Within a run
/// of k tokens at time a with the next deadline d: the first token misses
/// only when a > d, the others always meet theirs (a ≤ a + T), and the next
/// deadline after the run is d + kT (met) or a + kT (missed).
pub fn fluidity(arrivals: &Arrivals, ttft_deadline_ms: f64, tbt_ms: f64) -> Option<f64> {
    let n = total(arrivals);
    if n == 0 {
        return None;
    }
    let (mut deadline, mut missed) = (ttft_deadline_ms, 0u64);
    for &(a, k) in arrivals.iter().filter(|r| r.1 > 0) {
        let base = if a <= deadline { deadline } else { a };
        missed += u64::from(a > deadline);
        deadline = base + k as f64 * tbt_ms;
    }
    Some((n - missed) as f64 / n as f64)
}

/// QoE of token arrivals (`None` without tokens or with a non-positive
/// pace). Between two consecutive instants among the arrivals, E, the end
/// of the expectation and the horizon, A is a constant c and X is linear;
/// the piece splits once more where X reaches c.
pub fn qoe(arrivals: &Arrivals, expected_ttft_ms: f64, tokens_per_s: f64) -> Option<f64> {
    let n = total(arrivals) as f64;
    if n == 0.0 || tokens_per_s.is_nan() || tokens_per_s <= 0.0 {
        return None;
    }
    let (e, p) = (expected_ttft_ms.max(0.0), 1000.0 / tokens_per_s);
    let x_end = e + p * n;
    let last = arrivals.iter().filter(|r| r.1 > 0).map(|r| r.0).fold(0.0, f64::max);
    let horizon = last.max(x_end);
    let x = |t: f64| ((t - e) / p).clamp(0.0, n);
    let mut points: Vec<f64> = vec![0.0, e, x_end, horizon];
    points.extend(arrivals.iter().filter(|r| r.1 > 0).map(|r| r.0));
    points.retain(|t| (0.0..=horizon).contains(t));
    points.sort_by(f64::total_cmp);
    points.dedup();
    let (mut got, mut delivered, mut next) = (0.0, 0.0, 0usize);
    let piece = |t0: f64, t1: f64, c: f64| {
        let (x0, x1) = (x(t0), x(t1));
        if (x0 + x1) / 2.0 <= c { (x0 + x1) / 2.0 * (t1 - t0) } else { c * (t1 - t0) }
    };
    for w in points.windows(2) {
        let (t0, t1) = (w[0], w[1]);
        while next < arrivals.len() && arrivals[next].0 <= t0 {
            delivered += arrivals[next].1 as f64;
            next += 1;
        }
        let tc = e + delivered * p;
        got += if tc > t0 && tc < t1 {
            piece(t0, tc, delivered) + piece(tc, t1, delivered)
        } else {
            piece(t0, t1, delivered)
        };
    }
    let expected = n * (p * n) / 2.0 + n * (horizon - x_end);
    Some((got / expected).clamp(0.0, 1.0))
}

/// Apdex of TTFTs: `None` for a failed request (frustrated); `None` overall
/// without requests.
pub fn apdex(ttfts: impl IntoIterator<Item = Option<f64>>, threshold_ms: f64) -> Option<f64> {
    let (mut score, mut all) = (0.0, 0usize);
    for t in ttfts {
        all += 1;
        score += match t {
            Some(t) if t <= threshold_ms => 1.0,
            Some(t) if t <= 4.0 * threshold_ms => 0.5,
            _ => 0.0,
        };
    }
    (all > 0).then(|| score / all as f64)
}

/// Input tokens/s of one request.
pub fn input_tokens_per_s(prompt_tokens: Option<u64>, ttft_ms: Option<f64>) -> Option<f64> {
    match (prompt_tokens, ttft_ms) {
        (Some(p), Some(t)) if p > 0 && t > 0.0 => Some(p as f64 * 1000.0 / t),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
