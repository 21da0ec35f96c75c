//! Small-sample inference for UX studies, written out so its numbers are
//! fixed by this file (and checked against published tables in the tests).
//!
//! - **Mean and 95% confidence interval** of ratings: `mean ± t · s / √n`,
//!   `s` the sample standard deviation (n − 1), `t` the 0.975 quantile of
//!   Student's t with n − 1 degrees of freedom. Needs n ≥ 2.
//! - **Student's t CDF** through the regularized incomplete beta function
//!   `I_x(a, b)` (Lentz's continued fraction), and its quantile by bisection
//!   to 1e-12.
//! - **Exact two-sided binomial test** (as `scipy.stats.binomtest`): the
//!   p-value of `k` successes in `n` trials under `p0` is the total
//!   probability of the outcomes no more likely than `k` (with a relative
//!   tolerance of 1e-7 for ties).

use serde::{Deserialize, Serialize};

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error < 1e-15).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta function (Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let away_from_zero = |v: f64| if v.abs() < TINY { TINY } else { v };
    // One Lentz step with coefficient `aa`: updates `c` and `d`, returns
    // the factor that multiplies the fraction's value.
    let step = |aa: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 / away_from_zero(1.0 + aa * *d);
        *c = away_from_zero(1.0 + aa / *c);
        *d * *c
    };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away_from_zero(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &mut c, &mut d);
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// Regularized incomplete beta `I_x(a, b)`.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

/// Student's t CDF with `df` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    let tail = 0.5 * incomplete_beta(df / 2.0, 0.5, x);
    if t >= 0.0 { 1.0 - tail } else { tail }
}

/// Quantile of Student's t (`0 < p < 1`).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0 && df > 0.0) {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (-1e6, 1e6);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 {
            break;
        }
    }
    (lo + hi) / 2.0
}

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
    fn t_quantiles_match_tables() {
        // Two-sided 95% critical values (any statistics textbook).
        for (df, t) in
            [(1.0, 12.7062), (2.0, 4.3027), (4.0, 2.7764), (10.0, 2.2281), (30.0, 2.0423), (120.0, 1.9799)]
        {
            assert!(close(t_quantile(0.975, df), t, 1e-4), "df {df}: {}", t_quantile(0.975, df));
        }
        assert!(close(t_cdf(0.0, 5.0), 0.5, 1e-12));
        assert!(close(t_cdf(2.015, 5.0), 0.95, 1e-4));
        assert!(t_quantile(1.5, 3.0).is_nan());
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
