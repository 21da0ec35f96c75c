//! **Prefill**: how TTFT grows with the prompt, from a prompt-length sweep
//! (or any run whose prompts differ in length).
//!
//! Points: the completed requests with a known prompt length x (tokens,
//! the server's `usage.prompt_tokens` when it sent one) and a TTFT y (ms).
//! The fit is ordinary least squares of y = a + b·x:
//! b = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², a = ȳ − b·x̄, and
//! R² = 1 − Σ(y − a − b·x)² / Σ(y − ȳ)².
//! - **fixed overhead** a (ms): what a request costs before its prompt is
//!   read (queueing, scheduling, network, the first decode step);
//! - **time per prompt token** b (ms) and **prefill tokens/s** = 1000 / b
//!   (when b > 0): the engine's prefill throughput as users wait on it.
//!
//! A fit needs at least three points over at least two prompt lengths.

use serde::{Deserialize, Serialize};

use crate::measure::metrics::RunMetrics;
use crate::measure::stats::Samples;

/// Most prompt lengths the text table lists one by one (a sweep has a
/// few; a benchmark with random lengths is summarised in one line).
pub const MAX_TABLE_LENGTHS: usize = 12;

/// The line through TTFT against prompt tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrefillFit {
    /// Requests fitted.
    pub points: usize,
    /// Intercept a (ms).
    pub overhead_ms: f64,
    /// Slope b (ms per prompt token).
    pub ms_per_token: f64,
    /// 1000 / b, when b > 0.
    pub tokens_per_s: Option<f64>,
    /// Coefficient of determination.
    pub r2: f64,
    /// Median TTFT per prompt length: `(prompt tokens, median ms, requests)`.
    pub by_length: Vec<(u64, f64, usize)>,
}

/// The fit of a run's requests (`None` without enough points).
pub fn fit(m: &RunMetrics) -> Option<PrefillFit> {
    let pts: Vec<(f64, f64)> = m
        .per_request
        .iter()
        .filter(|r| r.completed)
        .filter_map(|r| Some((r.prompt_tokens? as f64, r.ttft_ms?)))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let (a, b, r2) = least_squares(&pts)?;
    let mut lengths: Vec<u64> = pts.iter().map(|p| p.0 as u64).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let by_length = lengths
        .iter()
        .filter_map(|&len| {
            let ys: Vec<f64> = pts.iter().filter(|p| p.0 as u64 == len).map(|p| p.1).collect();
            let n = ys.len();
            Some((len, Samples::from_finite(ys).summary()?.median, n))
        })
        .collect();
    Some(PrefillFit {
        points: pts.len(),
        overhead_ms: a,
        ms_per_token: b,
        tokens_per_s: (b > 0.0).then(|| 1000.0 / b),
        r2,
        by_length,
    })
}

/// `(a, b, R²)` of y = a + b·x, or `None` with fewer than three points or
/// one distinct x.
pub fn least_squares(pts: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n = pts.len() as f64;
    if pts.len() < 3 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = sxy / sxx;
    let a = my - b * mx;
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    let ssr: f64 = pts.iter().map(|p| (p.1 - a - b * p.0).powi(2)).sum();
    let r2 = if syy > 0.0 { 1.0 - ssr / syy } else { 1.0 };
    Some((a, b, r2))
}

impl PrefillFit {
    /// Median TTFT per prompt length, as text rows.
    pub fn table(&self) -> String {
        if self.by_length.len() > MAX_TABLE_LENGTHS {
            let (lo, hi) = (self.by_length[0].0, self.by_length[self.by_length.len() - 1].0);
            return format!("  {} prompt lengths from {lo} to {hi} tokens\n", self.by_length.len());
        }
        let mut out = format!("  {:>14} {:>10} {:>14}\n", "prompt tokens", "requests", "median TTFT");
        for (len, ttft, n) in &self.by_length {
            out.push_str(&format!("  {len:>14} {n:>10} {:>11.1} ms\n", ttft));
        }
        out
    }

    /// The fit in words.
    pub fn describe(&self) -> String {
        let longest = self.by_length.last().map_or(0, |l| l.0);
        match self.tokens_per_s {
            Some(tps) => format!(
                "TTFT ≈ {:.0} ms + {:.3} ms per prompt token (R² {:.2}, {} requests): prefill runs at about {:.0} tokens/s, so a {}-token prompt waits about {:.0} ms before its first token.",
                self.overhead_ms,
                self.ms_per_token,
                self.r2,
                self.points,
                tps,
                longest,
                self.overhead_ms + self.ms_per_token * longest as f64,
            ),
            None => format!(
                "TTFT did not grow with the prompt ({:.3} ms per token, R² {:.2}, {} requests): prefill is too fast to see at these lengths, or something else dominates (a queue, a cache).",
                self.ms_per_token, self.r2, self.points
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metrics::MetricsConfig;
    use crate::trace::{Chunk, RequestTrace, Trace};

    fn request(prompt: u64, ttft: f64) -> RequestTrace {
        RequestTrace {
            prompt_tokens: Some(prompt),
            sent_ms: 0.0,
            chunks: vec![Chunk::content(ttft, "a", 1)],
            end_ms: Some(ttft),
            ..RequestTrace::default()
        }
    }

    #[test]
    fn the_line_through_ttft_gives_prefill_throughput() {
        // 50 ms + 0.25 ms per token: 4,000 tokens/s.
        let reqs = [64, 256, 1024, 4096]
            .into_iter()
            .flat_map(|x| {
                [request(x, 50.0 + 0.25 * x as f64 - 1.0), request(x, 50.0 + 0.25 * x as f64 + 1.0)]
            })
            .collect();
        let t = Trace { requests: reqs, ..Trace::default() };
        let f = fit(&RunMetrics::of(&t, &MetricsConfig::default())).unwrap();
        assert!((f.ms_per_token - 0.25).abs() < 1e-9 && (f.overhead_ms - 50.0).abs() < 1e-6, "{f:?}");
        assert!((f.tokens_per_s.unwrap() - 4000.0).abs() < 1e-6);
        assert!(f.r2 > 0.999);
        assert_eq!(f.by_length[0], (64, 66.0, 2));
        assert!(f.describe().contains("about 4000 tokens/s, so a 4096-token prompt waits about 1074 ms"));
    }

    #[test]
    fn one_length_or_too_few_points_fit_nothing() {
        let same = Trace {
            requests: vec![request(100, 10.0), request(100, 20.0), request(100, 30.0)],
            ..Trace::default()
        };
        assert_eq!(fit(&RunMetrics::of(&same, &MetricsConfig::default())), None);
        assert_eq!(least_squares(&[(1.0, 1.0), (2.0, 2.0)]), None);
        let flat = least_squares(&[(1.0, 5.0), (2.0, 5.0), (3.0, 5.0)]).unwrap();
        assert_eq!(flat, (5.0, 0.0, 1.0));
    }
}
