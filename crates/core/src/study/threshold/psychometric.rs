//! The psychometric function of a two-alternative forced choice: the
//! chance that a participant picks the reference (the faster, smoother
//! sample) when the test differs from it by `x` (ms of extra TTFT, a
//! jitter CV, …):
//!
//! P(x) = γ + (1 − γ − λ) · F(x; α, β)
//!
//! - γ = 0.5, the **guess rate** (two alternatives);
//! - λ, the **lapse rate**: misses of a participant who did notice (a
//!   blink, a mis-click), here between 0 and [`MAX_LAPSE`];
//! - F, the sigmoid: **logistic** in log x, F = 1 / (1 + (x/α)^−β), or
//!   **Weibull**, F = 1 − exp(−(x/α)^β);
//! - α, the **threshold**: with λ = 0 the logistic gives P(α) = 75%, the
//!   Weibull 81.6%; β, the **slope** (steepness in log units).
//!
//! [`fit`] finds α, β and λ by maximum likelihood on binomial counts
//! (Nelder–Mead on log α, log β and a bounded λ); [`fit_with_ci`] adds
//! 95% intervals for α and β by a parametric bootstrap (datasets drawn
//! from the fitted function at the same levels and counts, refitted,
//! 2.5th and 97.5th percentiles). The **Weber fraction** is α over the
//! reference level.

use crate::replay::rng::Rng;

/// Chance of a correct answer by guessing (two alternatives).
pub const GUESS: f64 = 0.5;
/// Highest lapse rate a fit may choose.
pub const MAX_LAPSE: f64 = 0.06;
/// Bootstrap datasets for the intervals.
pub const BOOTSTRAP: usize = 200;

/// Which sigmoid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Logistic in log x.
    Logistic,
    /// Weibull.
    Weibull,
}

/// One psychometric function.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Psychometric {
    /// The sigmoid.
    pub shape: Shape,
    /// Threshold α (same unit as the levels).
    pub alpha: f64,
    /// Slope β.
    pub beta: f64,
    /// Lapse rate λ.
    pub lapse: f64,
}

impl Psychometric {
    /// The sigmoid F at `x` (0 for x ≤ 0).
    pub fn sigmoid(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        let r = (x / self.alpha).powf(self.beta);
        match self.shape {
            Shape::Logistic => r / (1.0 + r),
            Shape::Weibull => 1.0 - (-r).exp(),
        }
    }

    /// P(correct) at `x`.
    pub fn p(&self, x: f64) -> f64 {
        GUESS + (1.0 - GUESS - self.lapse) * self.sigmoid(x)
    }

    /// The level where P(correct) = `p` (`None` when out of reach).
    pub fn level_at(&self, p: f64) -> Option<f64> {
        let f = (p - GUESS) / (1.0 - GUESS - self.lapse);
        if !(f > 0.0 && f < 1.0) {
            return None;
        }
        let r = match self.shape {
            Shape::Logistic => f / (1.0 - f),
            Shape::Weibull => -(1.0 - f).ln(),
        };
        Some(self.alpha * r.powf(1.0 / self.beta))
    }
}

/// Answers at one level: `correct` of `n`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// The level.
    pub level: f64,
    /// Trials at it.
    pub n: u32,
    /// Correct answers (the reference picked).
    pub correct: u32,
}

/// Groups trials `(level, correct)` by level.
pub fn points(trials: &[(f64, bool)]) -> Vec<Point> {
    let mut out: Vec<Point> = Vec::new();
    for &(level, ok) in trials {
        match out.iter_mut().find(|p| (p.level - level).abs() <= 1e-9 * level.abs().max(1.0)) {
            Some(p) => {
                p.n += 1;
                p.correct += u32::from(ok);
            }
            None => out.push(Point { level, n: 1, correct: u32::from(ok) }),
        }
    }
    out.sort_by(|a, b| a.level.total_cmp(&b.level));
    out
}

/// Log-likelihood of `data` under `f`.
pub fn log_likelihood(f: &Psychometric, data: &[Point]) -> f64 {
    data.iter()
        .map(|d| {
            let p = f.p(d.level).clamp(1e-9, 1.0 - 1e-9);
            f64::from(d.correct) * p.ln() + f64::from(d.n - d.correct) * (1.0 - p).ln()
        })
        .sum()
}

/// Shallowest slope β a fit may take.
pub const BETA_MIN: f64 = 0.05;
/// Steepest slope β a fit may take: an interval reaching it is not a
/// measurement of the slope but the end of the search ([`Fitted::beta_text`]).
pub const BETA_MAX: f64 = 50.0;

fn from_params(shape: Shape, v: &[f64; 3]) -> Psychometric {
    Psychometric {
        shape,
        alpha: v[0].exp(),
        beta: v[1].exp().clamp(BETA_MIN, BETA_MAX),
        lapse: MAX_LAPSE / (1.0 + (-v[2]).exp()),
    }
}

/// Nelder–Mead minimisation of `f` from `start` (`step` per coordinate).
fn nelder_mead(f: impl Fn(&[f64; 3]) -> f64, start: [f64; 3], step: [f64; 3]) -> [f64; 3] {
    let mut simplex: Vec<([f64; 3], f64)> = (0..4)
        .map(|i| {
            let mut v = start;
            if i > 0 {
                v[i - 1] += step[i - 1];
            }
            (v, f(&v))
        })
        .collect();
    for _ in 0..400 {
        simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
        if (simplex[3].1 - simplex[0].1).abs() < 1e-9 {
            break;
        }
        let mut centroid = [0.0; 3];
        for (v, _) in &simplex[..3] {
            for k in 0..3 {
                centroid[k] += v[k] / 3.0;
            }
        }
        let at = |t: f64| -> [f64; 3] {
            let w = simplex[3].0;
            [0, 1, 2].map(|k| centroid[k] + t * (w[k] - centroid[k]))
        };
        let r = at(-1.0);
        let fr = f(&r);
        if fr < simplex[0].1 {
            let e = at(-2.0);
            let fe = f(&e);
            simplex[3] = if fe < fr { (e, fe) } else { (r, fr) };
        } else if fr < simplex[2].1 {
            simplex[3] = (r, fr);
        } else {
            let c = at(0.5);
            let fc = f(&c);
            if fc < simplex[3].1 {
                simplex[3] = (c, fc);
            } else {
                let best = simplex[0].0;
                for s in simplex.iter_mut().skip(1) {
                    s.0 = [0, 1, 2].map(|k| best[k] + 0.5 * (s.0[k] - best[k]));
                    s.1 = f(&s.0);
                }
            }
        }
    }
    simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
    simplex[0].0
}

/// The maximum-likelihood function of `shape` for `data` (`None` without
/// data).
pub fn fit(shape: Shape, data: &[Point]) -> Option<Psychometric> {
    let total: u32 = data.iter().map(|d| d.n).sum();
    if total == 0 {
        return None;
    }
    // Start from the geometric mean level, a moderate slope, a small lapse.
    let weight: f64 = data.iter().map(|d| f64::from(d.n)).sum();
    let log_mean = data.iter().map(|d| f64::from(d.n) * d.level.max(1e-9).ln()).sum::<f64>() / weight;
    let lo = data.iter().map(|d| d.level).fold(f64::INFINITY, f64::min).max(1e-9).ln();
    let hi = data.iter().map(|d| d.level).fold(0.0, f64::max).max(1e-9).ln();
    let cost = |v: &[f64; 3]| {
        // Thresholds far outside the tested range are not identifiable.
        let outside = (v[0] - (hi + 2.0)).max(0.0) + ((lo - 2.0) - v[0]).max(0.0);
        -log_likelihood(&from_params(shape, v), data) + 1e3 * outside * outside
    };
    let best = [-1.0, 0.0, 1.0]
        .into_iter()
        .map(|s| nelder_mead(cost, [log_mean + s * 0.5, 1.0, -2.0], [0.5, 0.5, 1.0]))
        .min_by(|a, b| cost(a).total_cmp(&cost(b)))?;
    Some(from_params(shape, &best))
}

/// A fit with 95% bootstrap intervals.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fitted {
    /// The maximum-likelihood function.
    pub fit: Psychometric,
    /// 95% interval of the threshold α.
    pub alpha_ci: (f64, f64),
    /// 95% interval of the slope β.
    pub beta_ci: (f64, f64),
    /// Pointwise 95% band of P(x) over the bootstrap fits: `(x, low,
    /// high)` at [`BAND_POINTS`] levels spaced evenly in log x across the
    /// data's levels (the results view draws it around the curve).
    pub band: Vec<(f64, f64, f64)>,
}

impl Fitted {
    /// The Weber fraction α / `reference` with its 95% interval (from α's);
    /// `None` when the reference is not positive (a stall study's
    /// reference has no stall: there is no fraction of nothing).
    pub fn weber(&self, reference: f64) -> Option<(f64, (f64, f64))> {
        (reference > 0.0 && reference.is_finite())
            .then(|| (self.fit.alpha / reference, (self.alpha_ci.0 / reference, self.alpha_ci.1 / reference)))
    }
}

impl Fitted {
    /// The slope with its interval in words; an end at [`BETA_MIN`] or
    /// [`BETA_MAX`] is said to be the search limit (the answers do not
    /// bound the slope there), never shown as a measured value.
    pub fn beta_text(&self) -> String {
        let at_max = |b: f64| b >= BETA_MAX * (1.0 - 1e-6);
        let at_min = |b: f64| b <= BETA_MIN * (1.0 + 1e-6);
        let one = |b: f64| {
            if at_max(b) {
                format!("≥ {BETA_MAX:.0}")
            } else if at_min(b) {
                format!("≤ {BETA_MIN}")
            } else {
                format!("{b:.2}")
            }
        };
        let (lo, hi) = self.beta_ci;
        let limit = at_max(hi) || at_min(lo) || at_max(self.fit.beta) || at_min(self.fit.beta);
        let note = if limit { ", at the search limit: these answers do not bound the slope" } else { "" };
        format!("{} (95% CI {} to {}{note})", one(self.fit.beta), one(lo), one(hi))
    }
}

/// A level as the design's grid holds it: rounded to 12 significant
/// digits, so the same grid point reached by different steps (×2^⅓ three
/// times, or ×2 once) is the same number, written the same way.
pub fn snap(level: f64) -> f64 {
    if level == 0.0 || !level.is_finite() {
        return level;
    }
    let digits = 11 - level.abs().log10().floor() as i32;
    if digits >= 0 {
        let scale = 10f64.powi(digits);
        (level * scale).round() / scale
    } else {
        let scale = 10f64.powi(-digits);
        (level / scale).round() * scale
    }
}

/// Levels the confidence band is computed at.
pub const BAND_POINTS: usize = 40;

/// `n` levels spaced evenly in log x from `lo` to `hi` (both > 0).
pub fn log_levels(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let (a, b) = (lo.max(f64::MIN_POSITIVE).ln(), hi.max(lo).max(f64::MIN_POSITIVE).ln());
    (0..n).map(|i| snap((a + (b - a) * i as f64 / (n.max(2) - 1) as f64).exp())).collect()
}

/// [`fit`] with parametric-bootstrap intervals ([`BOOTSTRAP`] datasets,
/// drawn with `seed`).
pub fn fit_with_ci(shape: Shape, data: &[Point], seed: u64) -> Option<Fitted> {
    fit_with_ci_n(shape, data, seed, BOOTSTRAP)
}

/// [`fit_with_ci`] with `datasets` bootstrap datasets.
pub fn fit_with_ci_n(shape: Shape, data: &[Point], seed: u64, datasets: usize) -> Option<Fitted> {
    let f = fit(shape, data)?;
    let mut rng = Rng::new(seed);
    let mut alphas = Vec::with_capacity(datasets);
    let mut betas = Vec::with_capacity(datasets);
    let mut fits = Vec::with_capacity(datasets);
    for _ in 0..datasets {
        let sample: Vec<Point> = data
            .iter()
            .map(|d| {
                let p = f.p(d.level);
                let correct = (0..d.n).filter(|_| rng.uniform() < p).count() as u32;
                Point { correct, ..*d }
            })
            .collect();
        if let Some(b) = fit(shape, &sample) {
            alphas.push(b.alpha);
            betas.push(b.beta);
            fits.push(b);
        }
    }
    let (lo, hi) =
        data.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), d| (lo.min(d.level), hi.max(d.level)));
    let band = log_levels(lo, hi, if fits.is_empty() { 0 } else { BAND_POINTS })
        .into_iter()
        .map(|x| {
            let mut ps: Vec<f64> = fits.iter().map(|b| b.p(x)).collect();
            ps.sort_by(f64::total_cmp);
            let q = |p: f64| crate::measure::stats::percentile_of_sorted(&ps, p);
            (x, q(2.5), q(97.5))
        })
        .collect();
    let ci = |v: &mut Vec<f64>| {
        if v.is_empty() {
            // No bootstrap dataset could be fitted: the interval is unknown.
            return (0.0, f64::INFINITY);
        }
        v.sort_by(f64::total_cmp);
        let q = |p: f64| crate::measure::stats::percentile_of_sorted(v, p);
        (q(2.5), q(97.5))
    };
    Some(Fitted { fit: f, alpha_ci: ci(&mut alphas), beta_ci: ci(&mut betas), band })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_snap_to_the_grid_and_a_bound_slope_says_so() {
        let cube = 2f64.powf(1.0 / 3.0);
        assert_eq!(snap(62.5 * cube * cube * cube / 2.0), 62.5);
        assert_eq!(snap(125.0 / cube / cube / cube), 62.5);
        assert_eq!(snap(0.0), 0.0);
        assert_eq!(snap(1234567.8912345678), 1234567.89123);
        assert_eq!(snap(0.012345678901234567), 0.0123456789012);
        let f = |beta, ci| Fitted {
            fit: Psychometric { shape: Shape::Logistic, alpha: 80.0, beta, lapse: 0.01 },
            alpha_ci: (60.0, 100.0),
            beta_ci: ci,
            band: Vec::new(),
        };
        assert_eq!(f(3.0, (1.54, 6.2)).beta_text(), "3.00 (95% CI 1.54 to 6.20)");
        assert_eq!(
            f(3.0, (1.54, BETA_MAX)).beta_text(),
            "3.00 (95% CI 1.54 to ≥ 50, at the search limit: these answers do not bound the slope)"
        );
        assert!(
            f(BETA_MIN, (BETA_MIN, 2.0))
                .beta_text()
                .starts_with("≤ 0.05 (95% CI ≤ 0.05 to 2.00, at the search limit")
        );
    }

    #[test]
    fn the_function_has_its_guess_lapse_and_threshold() {
        let f = Psychometric { shape: Shape::Logistic, alpha: 100.0, beta: 3.0, lapse: 0.02 };
        assert_eq!(f.p(0.0), 0.5);
        assert!((f.p(100.0) - (0.5 + 0.48 * 0.5)).abs() < 1e-12);
        assert!((f.p(1e9) - 0.98).abs() < 1e-9);
        let x = f.level_at(0.707).unwrap();
        assert!((f.p(x) - 0.707).abs() < 1e-9);
        let w = Psychometric { shape: Shape::Weibull, ..f };
        assert!((w.sigmoid(100.0) - (1.0 - (-1f64).exp())).abs() < 1e-12);
        assert!((w.p(w.level_at(0.8).unwrap()) - 0.8).abs() < 1e-9);
        assert_eq!(f.level_at(0.99), None, "above 1 − lapse");
    }

    #[test]
    fn a_fit_recovers_the_function_behind_many_answers() {
        let truth = Psychometric { shape: Shape::Logistic, alpha: 80.0, beta: 2.5, lapse: 0.01 };
        let mut rng = Rng::new(7);
        let trials: Vec<(f64, bool)> = (0..4000)
            .map(|i| {
                let x = [20.0, 40.0, 60.0, 80.0, 120.0, 160.0, 240.0, 320.0][i % 8];
                (x, rng.uniform() < truth.p(x))
            })
            .collect();
        let data = points(&trials);
        assert_eq!(data.len(), 8);
        let f = fit(Shape::Logistic, &data).unwrap();
        assert!((f.alpha / 80.0 - 1.0).abs() < 0.08, "{f:?}");
        assert!((f.beta / 2.5 - 1.0).abs() < 0.25, "{f:?}");
        assert!(
            log_likelihood(&f, &data) >= log_likelihood(&truth, &data) - 1e-6,
            "the ML fit is at least as likely"
        );
        let ci = fit_with_ci(Shape::Logistic, &data, 1).unwrap();
        assert!(ci.alpha_ci.0 < 80.0 && 80.0 < ci.alpha_ci.1, "{ci:?}");
        assert_eq!(ci.band.len(), BAND_POINTS);
        let (w, (lo, hi)) = ci.weber(200.0).unwrap();
        assert!((w - ci.fit.alpha / 200.0).abs() < 1e-12 && lo < w && w < hi);
        assert!(ci.weber(0.0).is_none());
        assert!((ci.band[0].0 - 20.0).abs() < 1e-9 && (ci.band[BAND_POINTS - 1].0 - 320.0).abs() < 1e-9);
        for &(x, lo, hi) in &ci.band {
            assert!(lo <= ci.fit.p(x) + 1e-9 && ci.fit.p(x) <= hi + 1e-9, "the fit inside its band at {x}");
            assert!(hi - lo < 0.08, "4,000 answers: a narrow band ({lo}–{hi} at {x})");
        }
        assert!(fit(Shape::Logistic, &[]).is_none());
    }
}
