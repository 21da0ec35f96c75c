//! Small-sample inference for UX studies, written out so its numbers are
//! fixed by this file (and checked against published tables in the tests).
//!
//! - **Mean and 95% confidence interval** of ratings: `mean ± t · s / √n`,
//!   `s` the sample standard deviation (n − 1), `t` the 0.975 quantile of
//!   Student's t with n − 1 degrees of freedom. Needs n ≥ 2.
//! - **Student's t** CDF and quantile: [`crate::measure::student`] (the
//!   prefill fit uses them too).
//! - **Exact two-sided binomial test** (as `scipy.stats.binomtest`): the
//!   p-value of `k` successes in `n` trials under `p0` is the total
//!   probability of the outcomes no more likely than `k` (with a relative
//!   tolerance of 1e-7 for ties).

use serde::{Deserialize, Serialize};

pub use crate::measure::student::{incomplete_beta, ln_gamma, t_cdf, t_quantile};

/// Mean with a 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeanCi {
    /// Number of values.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for one value.
    pub sd: f64,
    /// Lower bound of the 95% interval (`None` for n < 2).
    pub low: Option<f64>,
    /// Upper bound.
    pub high: Option<f64>,
}

/// A 95% interval read against the rating scale it measures.
///
/// - **Clipped**: a bound beyond the scale (below its lowest point or
///   above its highest) is shown at the scale's end, and said so: no mean
///   rating can lie outside the scale.
/// - **Uninformative**: the interval (before clipping) is wider than the
///   whole scale (highest − lowest point): the data say nothing yet about
///   where the mean lies, as with n = 2 (t = 12.7).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleInterval {
    /// Lower bound, on the scale.
    pub low: f64,
    /// Upper bound, on the scale.
    pub high: f64,
    /// A bound was beyond the scale.
    pub clipped: bool,
    /// Wider than the scale.
    pub uninformative: bool,
}

/// `ci` on a scale from `lowest` to `highest` (`None` for n < 2).
pub fn on_scale(ci: &MeanCi, lowest: f64, highest: f64) -> Option<ScaleInterval> {
    let (low, high) = (ci.low?, ci.high?);
    Some(ScaleInterval {
        low: low.max(lowest),
        high: high.min(highest),
        clipped: low < lowest || high > highest,
        uninformative: high - low > highest - lowest,
    })
}

/// Mean and 95% t-interval of `values` (`None` when empty).
pub fn mean_ci95(values: &[f64]) -> Option<MeanCi> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some(MeanCi { n, mean, sd: 0.0, low: None, high: None });
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    let half = t_quantile(0.975, (n - 1) as f64) * sd / (n as f64).sqrt();
    Some(MeanCi { n, mean, sd, low: Some(mean - half), high: Some(mean + half) })
}

/// ln C(n, k).
fn ln_choose(n: u64, k: u64) -> f64 {
    ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

/// P(X = k) for X ~ Binomial(n, p).
pub fn binomial_pmf(k: u64, n: u64, p: f64) -> f64 {
    if k > n {
        return 0.0;
    }
    if p <= 0.0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if p >= 1.0 {
        return if k == n { 1.0 } else { 0.0 };
    }
    (ln_choose(n, k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
}

/// Exact two-sided binomial test p-value of `k` successes in `n` trials
/// under success probability `p0` (1 when n = 0).
pub fn binomial_test(k: u64, n: u64, p0: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let observed = binomial_pmf(k, n, p0);
    let limit = observed * (1.0 + 1e-7);
    let p: f64 = (0..=n).map(|i| binomial_pmf(i, n, p0)).filter(|&q| q <= limit).sum();
    p.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn mean_ci_known_values() {
        // n = 5: mean 4, sd = sqrt(2.5) = 1.5811; half width = 2.7764 · 1.5811 / √5 = 1.9632.
        let ci = mean_ci95(&[2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!((ci.n, ci.mean), (5, 4.0));
        assert!(close(ci.sd, 2.5f64.sqrt(), 1e-12));
        assert!(close(ci.low.unwrap(), 4.0 - 1.963_243, 1e-5), "{ci:?}");
        assert!(close(ci.high.unwrap(), 4.0 + 1.963_243, 1e-5));
        let one = mean_ci95(&[3.0]).unwrap();
        assert_eq!((one.low, one.high), (None, None));
        assert!(mean_ci95(&[]).is_none());
    }

    #[test]
    fn binomial_tests_match_scipy() {
        // scipy.stats.binomtest(k, n, 0.5).pvalue
        assert!(close(binomial_test(9, 10, 0.5), 0.021_484_375, 1e-12));
        assert!(close(binomial_test(15, 20, 0.5), 0.041_389_465_332_031_25, 1e-12));
        assert!(close(binomial_test(5, 10, 0.5), 1.0, 1e-12));
        assert!(close(binomial_test(0, 6, 0.5), 0.031_25, 1e-12));
        assert!(close(binomial_test(7, 12, 0.3), 0.052_442_130_259, 1e-10));
        assert_eq!(binomial_test(0, 0, 0.5), 1.0);
        assert!(close(ln_gamma(10.0), 362_880f64.ln(), 1e-12));
    }

    #[test]
    fn intervals_beyond_the_scale_are_clipped_and_flagged() {
        // n = 2, ratings 1 and 5 of 5: mean 3, t(1) = 12.706, SE = 2: ±25.4.
        let ci = mean_ci95(&[1.0, 5.0]).unwrap();
        let s = on_scale(&ci, 1.0, 5.0).unwrap();
        assert_eq!((s.low, s.high, s.clipped, s.uninformative), (1.0, 5.0, true, true));
        let tight = mean_ci95(&[4.0, 4.0, 5.0, 4.0, 5.0, 4.0, 4.0, 5.0]).unwrap();
        let s = on_scale(&tight, 1.0, 7.0).unwrap();
        assert!(!s.clipped && !s.uninformative && s.low > 3.9 && s.high < 5.0, "{s:?}");
        assert!(on_scale(&mean_ci95(&[3.0]).unwrap(), 1.0, 5.0).is_none());
    }
}
