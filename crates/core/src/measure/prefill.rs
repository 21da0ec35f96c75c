//! **Prefill**: how TTFT grows with the prompt, from a prompt-length sweep
//! (or any run whose prompts differ in length).
//!
//! Points: the completed requests with a known number x of prompt tokens
//! **the server computed** (tokens, [`crate::measure::metrics::prefilled_tokens`]:
//! the prompt less what the server's prefix cache held when it says so, and
//! never a conversation's later turn that may have been cached unseen) and
//! a TTFT y (ms). A cached prompt costs no prefill, so fitting cached and
//! uncached requests together would flatten the line.
//!
//! The fit is ordinary least squares of y = a + b·x:
//! b = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², a = ȳ − b·x̄, and
//! R² = 1 − Σ(y − a − b·x)² / Σ(y − ȳ)². The slope's 95% interval is
//! b ± t₀.₉₇₅(n − 2) · s / √Σ(x − x̄)², with s² = Σ(y − a − b·x)² / (n − 2).
//! - **fixed overhead** a (ms): what a request costs before its prompt is
//!   read (queueing, scheduling, network, the first decode step);
//! - **time per prompt token** b (ms) and **prefill tokens/s** = 1000 / b:
//!   the engine's prefill throughput as users wait on it. Only when the
//!   interval lies above 0 is a prefill cost **measurable**; otherwise the
//!   lab says so (and gives the interval) instead of a throughput.
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
    /// 95% interval of b (`None` when the points lie exactly on the line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms_per_token_ci: Option<(f64, f64)>,
    /// 1000 / b, when the cost is measurable (b's interval above 0).
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
        .filter_map(|r| Some((r.prefilled_tokens? as f64, r.ttft_ms?)))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let (a, b, r2) = least_squares(&pts)?;
    let ci = slope_ci(&pts, a, b);
    let measurable = b > 0.0 && ci.is_none_or(|(lo, _)| lo > 0.0);
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
        ms_per_token_ci: ci,
        tokens_per_s: measurable.then(|| 1000.0 / b),
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

/// `(a, b)` of the Theil–Sen line y = a + b·x: b is the median of the
/// slopes between every two points with different x, a the median of
/// y − b·x. Robust where least squares is not: up to 29% of the points may
/// be outliers (a chunk held up by a busy machine) without moving the line
/// far. `None` with fewer than three points or one distinct x.
pub fn theil_sen(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    if pts.len() < 3 {
        return None;
    }
    let mut slopes: Vec<f64> = Vec::with_capacity(pts.len() * (pts.len() - 1) / 2);
    for (i, p) in pts.iter().enumerate() {
        for q in &pts[i + 1..] {
            if q.0 != p.0 {
                slopes.push((q.1 - p.1) / (q.0 - p.0));
            }
        }
    }
    let b = Samples::from_finite(slopes).summary()?.median;
    let a = Samples::from_finite(pts.iter().map(|p| p.1 - b * p.0)).summary()?.median;
    Some((a, b))
}

/// The 95% interval of slope `b` of the line `a + b·x` through `pts`
/// (module docs); `None` when the residuals are all 0.
pub fn slope_ci(pts: &[(f64, f64)], a: f64, b: f64) -> Option<(f64, f64)> {
    let n = pts.len() as f64;
    if pts.len() < 3 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let ssr: f64 = pts.iter().map(|p| (p.1 - a - b * p.0).powi(2)).sum();
    if sxx <= 0.0 || ssr <= 0.0 {
        return None;
    }
    let half = crate::measure::student::t_quantile(0.975, n - 2.0) * (ssr / (n - 2.0) / sxx).sqrt();
    Some((b - half, b + half))
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
        let interval = self
            .ms_per_token_ci
            .map_or(String::new(), |(lo, hi)| format!("95% interval {lo:.3} to {hi:.3}; "));
        match self.tokens_per_s {
            Some(tps) => format!(
                "TTFT ≈ {:.0} ms + {:.3} ms per prompt token ({interval}R² {:.2}, {} requests): prefill runs at about {:.0} tokens/s{}, so a {}-token prompt waits about {:.0} ms before its first token.",
                self.overhead_ms,
                self.ms_per_token,
                self.r2,
                self.points,
                tps,
                self.ms_per_token_ci.filter(|(lo, _)| *lo > 0.0).map_or(String::new(), |(lo, hi)| format!(
                    " ({:.0}–{:.0})",
                    1000.0 / hi,
                    1000.0 / lo
                )),
                longest,
                self.overhead_ms + self.ms_per_token * longest as f64,
            ),
            None => format!(
                "No prefill cost is measurable: TTFT changed by {:.3} ms per prompt token ({interval}R² {:.2}, {} requests), which cannot be told from 0. Prefill is too fast to see at these lengths, or something else (a queue, a cache) sets TTFT.",
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
        let (lo, hi) = f.ms_per_token_ci.unwrap();
        assert!(lo < 0.25 && 0.25 < hi && hi - lo < 0.002, "{lo}–{hi}");
        assert!(f.describe().contains("about 4000 tokens/s (3"), "{}", f.describe());
        assert!(f.describe().contains("so a 4096-token prompt waits about 1074 ms"));
    }

    #[test]
    fn the_slope_interval_matches_a_hand_worked_case() {
        // x = 0, 1, 2, 3; y = 0, 2, 1, 3: b = 0.8, a = 0.3, residuals −0.3, 0.9, −0.9, 0.3,
        // SSR = 1.8, s² = 0.9, Sxx = 5: SE = √0.18; t(0.975, 2) = 4.302653.
        let pts = [(0.0, 0.0), (1.0, 2.0), (2.0, 1.0), (3.0, 3.0)];
        let (a, b, _) = least_squares(&pts).unwrap();
        assert!((a - 0.3).abs() < 1e-12 && (b - 0.8).abs() < 1e-12);
        let (lo, hi) = slope_ci(&pts, a, b).unwrap();
        let half = 4.302_653 * 0.18f64.sqrt();
        assert!((lo - (0.8 - half)).abs() < 1e-5 && (hi - (0.8 + half)).abs() < 1e-5, "{lo}–{hi}");
    }

    #[test]
    fn theil_sen_keeps_the_line_where_one_point_is_held_up() {
        // 25 chunks every 10 ms, each 0.2 ms late; the first held up 20 ms.
        let mut pts: Vec<(f64, f64)> =
            (0..25).map(|k| (50.0 + 10.0 * f64::from(k), 50.2 + 10.0 * f64::from(k))).collect();
        pts[0].1 += 20.0;
        let (a, b) = theil_sen(&pts).unwrap();
        assert!((b - 1.0).abs() < 1e-9 && (a - 0.2).abs() < 1e-9, "{a} {b}");
        let (_, ls, _) = least_squares(&pts).unwrap();
        assert!(ls < 0.985, "least squares tilts: {ls}");
        // Hand-worked: (0, 0), (1, 2), (2, 1), (3, 3): slopes 2, 0.5, 1, −1, 0.5, 2 → median 0.75;
        // y − 0.75x: 0, 1.25, −0.5, 0.75 → median 0.375.
        let (a, b) = theil_sen(&[(0.0, 0.0), (1.0, 2.0), (2.0, 1.0), (3.0, 3.0)]).unwrap();
        assert!((b - 0.75).abs() < 1e-12 && (a - 0.375).abs() < 1e-12, "{a} {b}");
        assert!(theil_sen(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]).is_none());
    }

    #[test]
    fn the_slope_interval_covers_the_true_slope_95_percent_of_the_time() {
        // 4,000 simulated sweeps of 8 prompt lengths: TTFT = 40 ms + 0.3 ms
        // per token + normal noise (σ 15 ms). A 95% interval must hold the
        // true slope in 95% of them (binomial 99.9% band: 93.9–96.1%); a
        // z interval (1.96 instead of t₀.₉₇₅(6) = 2.447) covers about 90%.
        let mut rng = crate::replay::rng::Rng::new(28);
        let (runs, truth) = (4000, 0.3);
        let xs = [100.0, 300.0, 500.0, 700.0, 900.0, 1100.0, 1300.0, 1500.0];
        let covered = (0..runs)
            .filter(|_| {
                let pts: Vec<(f64, f64)> =
                    xs.iter().map(|&x| (x, 40.0 + truth * x + 15.0 * rng.normal())).collect();
                let (a, b, _) = least_squares(&pts).unwrap();
                let (lo, hi) = slope_ci(&pts, a, b).unwrap();
                lo <= truth && truth <= hi
            })
            .count();
        let share = covered as f64 / f64::from(runs);
        assert!((0.939..=0.961).contains(&share), "covered {covered} of {runs}");
    }

    #[test]
    fn a_flat_line_says_no_prefill_cost_is_measurable() {
        // The walk of 2026-12-04: a profile with no prefill cost gave
        // "0.000 ms per prompt token (R² 0.18): prefill runs at about 8280054 tokens/s".
        let noise = [0.3, -0.2, 0.1, -0.4, 0.25, -0.05, 0.35, -0.3];
        let reqs = [64, 256, 1024, 4096]
            .into_iter()
            .enumerate()
            .flat_map(|(i, x)| [request(x, 150.0 + noise[2 * i]), request(x, 150.0 + noise[2 * i + 1])])
            .collect();
        let t = Trace { requests: reqs, ..Trace::default() };
        let f = fit(&RunMetrics::of(&t, &MetricsConfig::default())).unwrap();
        let (lo, hi) = f.ms_per_token_ci.unwrap();
        assert!(lo < 0.0 && hi > 0.0, "{lo}–{hi}");
        assert_eq!(f.tokens_per_s, None);
        let text = f.describe();
        assert!(text.starts_with("No prefill cost is measurable"), "{text}");
        assert!(!text.contains("tokens/s"), "{text}");
    }

    #[test]
    fn cached_prompt_tokens_are_not_prefill() {
        // A conversation against a server with 0.35 ms per computed token
        // and a prefix cache: later turns of the stable series compute only
        // the new tokens. Fitting whole prompts would flatten the line.
        let turn = |turn: u32, group: &str, prompt: u64, cached: Option<u64>| {
            let computed = prompt - cached.unwrap_or(0);
            let mut r = request(prompt, 40.0 + 0.35 * computed as f64);
            r.turn = Some(turn);
            r.group = Some(group.into());
            r.usage = Some(crate::trace::Usage {
                prompt_tokens: Some(prompt),
                completion_tokens: Some(1),
                cached_tokens: cached,
                reasoning_tokens: None,
            });
            r
        };
        let mut reqs = Vec::new();
        for (t, prompt) in [(0u32, 300u64), (1, 700), (2, 1100), (3, 1500)] {
            let cached = (t > 0).then(|| prompt - 400);
            reqs.push(turn(t, "stable prefix", prompt, cached));
            reqs.push(turn(t, "changed prefix", prompt, Some(0)));
        }
        let t = Trace { requests: reqs.clone(), ..Trace::default() };
        let f = fit(&RunMetrics::of(&t, &MetricsConfig::default())).unwrap();
        assert!((f.ms_per_token - 0.35).abs() < 1e-9, "{f:?}");
        // Without the server's cached count, a stable prefix's later turns are left out.
        for r in &mut reqs {
            r.usage = None;
        }
        let t = Trace { requests: reqs, ..Trace::default() };
        let f = fit(&RunMetrics::of(&t, &MetricsConfig::default())).unwrap();
        assert_eq!(f.points, 5, "turn 0 of the stable series and the four changed-prefix turns");
        assert!((f.ms_per_token - 0.35).abs() < 1e-9, "{f:?}");
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
