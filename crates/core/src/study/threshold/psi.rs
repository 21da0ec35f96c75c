//! The Psi method (Kontsevich & Tyler 1999), a Bayesian adaptive
//! procedure: it keeps a posterior over the threshold α and slope β of a
//! logistic psychometric function (guess 0.5, lapse [`LAPSE`]) on a grid,
//! and presents next the level whose answer is expected to leave the
//! posterior with the least entropy, the most informative trial.
//!
//! - Grid: [`ALPHAS`] thresholds log-spaced over the range widened by a
//!   factor 2 each side; [`BETAS`] slopes from 0.7 to 10, log-spaced; a
//!   uniform prior over both (uniform in log α).
//! - Levels: [`LEVELS`] log-spaced over the range.
//! - Estimate: the posterior mean of log α (a geometric mean), and the 95%
//!   credible interval: the 2.5th and 97.5th percentiles of log α's
//!   marginal posterior (interpolated between grid points).

use serde::{Deserialize, Serialize};

use super::psychometric::{Psychometric, Shape, log_levels};

/// Threshold grid points.
pub const ALPHAS: usize = 60;
/// Slope grid points.
pub const BETAS: usize = 12;
/// Candidate levels.
pub const LEVELS: usize = 30;
/// Lapse rate the method assumes.
pub const LAPSE: f64 = 0.02;

/// A Psi procedure in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Psi {
    /// Lowest and highest level presented.
    pub range: (f64, f64),
    /// Trials it presents.
    pub max_trials: u32,
    /// Trials so far: level and whether the answer was correct.
    pub trials: Vec<(f64, bool)>,
    alphas: Vec<f64>,
    betas: Vec<f64>,
    levels: Vec<f64>,
    /// Posterior over (alpha, beta), row-major by alpha.
    posterior: Vec<f64>,
    /// P(correct) and P(wrong) at each candidate level for each grid point,
    /// and their logarithms: fixed by the grid, so made once, on first use,
    /// and never stored.
    #[serde(skip)]
    table: Table,
}

/// [`Psi`]'s likelihoods, each `[level][a * BETAS + b]`.
#[derive(Clone, Default)]
struct Table(std::sync::OnceLock<Likelihoods>);

#[derive(Clone)]
struct Likelihoods {
    /// P(correct).
    p: Vec<f64>,
    /// P(wrong).
    q: Vec<f64>,
    ln_p: Vec<f64>,
    ln_q: Vec<f64>,
}

/// Made from the grid, so every two procedures with equal grids hold the same.
impl PartialEq for Table {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Table")
    }
}

impl Psi {
    /// A new procedure over `range` presenting `max_trials` trials.
    pub fn new(range: (f64, f64), max_trials: u32) -> Self {
        let (lo, hi) = (range.0.max(1e-9), range.1.max(range.0 * 1.01));
        let n = ALPHAS * BETAS;
        Self {
            range: (lo, hi),
            max_trials,
            trials: Vec::new(),
            alphas: log_levels(lo / 2.0, hi * 2.0, ALPHAS),
            betas: log_levels(0.7, 10.0, BETAS),
            levels: log_levels(lo, hi, LEVELS),
            posterior: vec![1.0 / n as f64; n],
            table: Table::default(),
        }
    }

    fn table(&self) -> &Likelihoods {
        self.table.0.get_or_init(|| {
            let cells = ALPHAS * BETAS;
            let p: Vec<f64> = self
                .levels
                .iter()
                .flat_map(|&x| (0..cells).map(move |i| self.p(i / BETAS, i % BETAS, x)))
                .collect();
            let q: Vec<f64> = p.iter().map(|v| 1.0 - v).collect();
            Likelihoods {
                ln_p: p.iter().map(|v| v.ln()).collect(),
                ln_q: q.iter().map(|v| v.ln()).collect(),
                p,
                q,
            }
        })
    }

    fn p(&self, a: usize, b: usize, x: f64) -> f64 {
        Psychometric { shape: Shape::Logistic, alpha: self.alphas[a], beta: self.betas[b], lapse: LAPSE }.p(x)
    }

    /// Whether it has stopped.
    pub fn done(&self) -> bool {
        self.trials.len() as u32 >= self.max_trials
    }

    /// The most informative level for the next trial (`None` once done).
    pub fn next_level(&self) -> Option<f64> {
        if self.done() {
            return None;
        }
        // The entropy of weights w summing to T is ln T − Σ w ln w / T; for
        // w = posterior · p, ln w = ln posterior + ln p, both known, so no
        // logarithm is taken per level (the grid's ln p is in the table).
        let entropy = |total: f64, w_ln_w: f64| if total > 0.0 { total.ln() - w_ln_w / total } else { 0.0 };
        let ln_post: Vec<f64> = self.posterior.iter().map(|v| if *v > 0.0 { v.ln() } else { 0.0 }).collect();
        let t = self.table();
        let cells = self.posterior.len();
        let mut best = (f64::INFINITY, self.levels[0]);
        for (k, &x) in self.levels.iter().enumerate() {
            let at = k * cells..(k + 1) * cells;
            let (p, q, lp, lq) = (&t.p[at.clone()], &t.q[at.clone()], &t.ln_p[at.clone()], &t.ln_q[at]);
            let (mut yes, mut yes_ln, mut no, mut no_ln) = (0.0, 0.0, 0.0, 0.0);
            for i in 0..cells {
                let w = self.posterior[i];
                if w > 0.0 {
                    let (y, n) = (w * p[i], w * q[i]);
                    yes += y;
                    yes_ln += y * (ln_post[i] + lp[i]);
                    no += n;
                    no_ln += n * (ln_post[i] + lq[i]);
                }
            }
            let expected = yes * entropy(yes, yes_ln) + (1.0 - yes) * entropy(no, no_ln);
            if expected < best.0 {
                best = (expected, x);
            }
        }
        Some(best.1)
    }

    /// Records the answer to a trial at `level`.
    pub fn record(&mut self, level: f64, correct: bool) {
        self.trials.push((level, correct));
        for a in 0..ALPHAS {
            for b in 0..BETAS {
                let p = self.p(a, b, level);
                self.posterior[a * BETAS + b] *= if correct { p } else { 1.0 - p };
            }
        }
        let total: f64 = self.posterior.iter().sum();
        if total > 0.0 {
            self.posterior.iter_mut().for_each(|v| *v /= total);
        }
    }

    /// Marginal posterior of α (sums to 1).
    fn alpha_marginal(&self) -> Vec<f64> {
        (0..ALPHAS).map(|a| self.posterior[a * BETAS..(a + 1) * BETAS].iter().sum()).collect()
    }

    /// Threshold estimate: exp of the posterior mean of log α.
    pub fn threshold(&self) -> f64 {
        let m = self.alpha_marginal();
        m.iter().zip(&self.alphas).map(|(w, a)| w * a.ln()).sum::<f64>().exp()
    }

    /// 95% credible interval of α.
    pub fn credible_interval(&self) -> (f64, f64) {
        let m = self.alpha_marginal();
        let logs: Vec<f64> = self.alphas.iter().map(|a| a.ln()).collect();
        // Each grid point holds the mass of a cell around it; the CDF rises
        // linearly across the cell.
        let half = (logs[1] - logs[0]) / 2.0;
        let quantile = |q: f64| {
            let mut cum = 0.0;
            for (i, w) in m.iter().enumerate() {
                if cum + w >= q {
                    let t = if *w > 0.0 { (q - cum) / w } else { 0.5 };
                    return (logs[i] - half + 2.0 * half * t).exp();
                }
                cum += w;
            }
            (logs[ALPHAS - 1] + half).exp()
        };
        (quantile(0.025), quantile(0.975))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expected entropy after a trial at `x`, as the method defines
    /// it: each outcome's posterior normalised, its entropy taken directly.
    fn expected_entropy(psi: &Psi, x: f64) -> f64 {
        let entropy = |w: &[f64]| {
            let total: f64 = w.iter().sum();
            -w.iter().filter(|v| **v > 0.0).map(|v| (v / total) * (v / total).ln()).sum::<f64>()
        };
        let cells = 0..ALPHAS * BETAS;
        let yes: Vec<f64> =
            cells.clone().map(|i| psi.posterior[i] * psi.p(i / BETAS, i % BETAS, x)).collect();
        let no: Vec<f64> = cells.map(|i| psi.posterior[i] * (1.0 - psi.p(i / BETAS, i % BETAS, x))).collect();
        let p_yes: f64 = yes.iter().sum();
        p_yes * entropy(&yes) + (1.0 - p_yes) * entropy(&no)
    }

    #[test]
    fn the_next_level_is_the_one_of_least_expected_entropy_by_the_definition() {
        let mut psi = Psi::new((10.0, 1000.0), 40);
        let mut rng = crate::replay::rng::Rng::new(8);
        for _ in 0..25 {
            let chosen = psi.next_level().expect("not done");
            let least = psi.levels.iter().map(|&x| expected_entropy(&psi, x)).fold(f64::INFINITY, f64::min);
            let at_chosen = expected_entropy(&psi, chosen);
            assert!(at_chosen - least < 1e-9, "chose {chosen}: {at_chosen} against the least {least}");
            psi.record(chosen, rng.uniform() < 0.8);
        }
    }

    #[test]
    fn answers_narrow_the_posterior_around_the_truth() {
        let truth = Psychometric { shape: Shape::Logistic, alpha: 120.0, beta: 3.0, lapse: LAPSE };
        let mut psi = Psi::new((10.0, 1000.0), 60);
        let mut rng = crate::replay::rng::Rng::new(3);
        let (lo0, hi0) = psi.credible_interval();
        while let Some(x) = psi.next_level() {
            assert!((10.0..=1000.0).contains(&x));
            psi.record(x, rng.uniform() < truth.p(x));
        }
        // Simulated over 200 seeds (2026-12-04, release build): ln(estimate
        // / 120) P5 −0.56, median −0.06, P95 +0.27; interval high / low
        // median 4.0, P95 8.6. This seed: −0.13 and 3.8; the bounds sit
        // just outside them, so an estimator or interval that drifts fails.
        let (lo, hi) = psi.credible_interval();
        assert!(hi / lo < (hi0 / lo0) / 10.0, "{lo0}-{hi0} → {lo}-{hi}");
        assert!(lo < 120.0 && 120.0 < hi, "{lo}-{hi}");
        assert!(hi / lo < 4.5, "interval {lo}-{hi}");
        assert!((psi.threshold() / 120.0).ln().abs() < 0.2, "{}", psi.threshold());
        assert_eq!(psi.next_level(), None);
    }
}
