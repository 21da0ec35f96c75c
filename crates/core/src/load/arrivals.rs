//! When the requests of a **request-rate** run are sent: an open-loop
//! arrival process, as vLLM's `bench serve --request-rate R --burstiness B`
//! and guidellm's poisson profile generate it.
//!
//! - Gaps between sends are gamma distributed with shape B (the
//!   burstiness) and mean 1/R s: B = 1 is a Poisson process (exponential
//!   gaps, vLLM's default), B < 1 burstier, B > 1 more even; the
//!   coefficient of variation of the gaps is 1/√B.
//! - An optional **linear ramp** takes the rate from R₀ to R over the run:
//!   the process is drawn on the cumulative intensity Λ(t) = ∫₀ᵗ r(s) ds
//!   (unit-rate gaps) and mapped back through Λ⁻¹, the time-rescaling
//!   theorem, so at every moment the rate is r(t) = R₀ + (R − R₀)·t/D.
//! - The run stops at its duration D or after N requests, whichever the
//!   user set (both bounds hold when both are set).
//!
//! Seeded: the same plan gives the same send times.

use serde::{Deserialize, Serialize};

use crate::replay::rng::Rng;
use crate::trace::HTTP1_CONNECTIONS_PER_HOST;

/// Most requests a plan schedules.
pub const MAX_REQUESTS: usize = 10_000;

/// An arrival-rate plan.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatePlan {
    /// Requests per second (at the end of a ramp).
    pub rate_per_s: f64,
    /// Gamma shape of the gaps (1 = Poisson).
    pub burstiness: f64,
    /// Run length (s), if bounded by time.
    pub duration_s: Option<f64>,
    /// Requests, if bounded by count.
    pub requests: Option<usize>,
    /// Rate at the start of a linear ramp (requests/s).
    pub ramp_from_per_s: Option<f64>,
    /// Seed of the gaps.
    pub seed: u64,
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RateError {
    /// A rate that is not a positive number.
    #[error("the request rate must be a positive number of requests per second")]
    Rate,
    /// A bad burstiness.
    #[error("burstiness must be a positive number (1 = Poisson)")]
    Burstiness,
    /// Neither a duration nor a count, or a bad one.
    #[error("give the run a duration in seconds or a number of requests")]
    Bound,
    /// A ramp without a duration to ramp over.
    #[error("a ramp needs a duration")]
    RampNeedsDuration,
}

impl RatePlan {
    /// Checks the numbers.
    pub fn validate(&self) -> Result<(), RateError> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(self.rate_per_s) {
            return Err(RateError::Rate);
        }
        if !positive(self.burstiness) {
            return Err(RateError::Burstiness);
        }
        let duration_ok = self.duration_s.is_none_or(positive);
        let count_ok = self.requests.is_none_or(|n| n > 0);
        if !duration_ok || !count_ok || (self.duration_s.is_none() && self.requests.is_none()) {
            return Err(RateError::Bound);
        }
        if let Some(r0) = self.ramp_from_per_s {
            if !(r0.is_finite() && r0 >= 0.0) {
                return Err(RateError::Rate);
            }
            if self.duration_s.is_none() {
                return Err(RateError::RampNeedsDuration);
            }
        }
        Ok(())
    }

    /// Send times (ms from the start of the run), ascending, at most
    /// [`MAX_REQUESTS`].
    pub fn send_times_ms(&self) -> Result<Vec<f64>, RateError> {
        self.validate()?;
        let mut rng = Rng::new(self.seed);
        let cv = 1.0 / self.burstiness.sqrt();
        let limit = self.requests.unwrap_or(MAX_REQUESTS).min(MAX_REQUESTS);
        let end_s = self.duration_s.unwrap_or(f64::INFINITY);
        let mut out = Vec::new();
        // Position on the cumulative intensity (expected requests so far).
        let mut lambda = 0.0;
        while out.len() < limit {
            lambda += rng.gamma(1.0, cv);
            let t = self.time_at(lambda);
            if t >= end_s {
                break;
            }
            out.push(t * 1000.0);
        }
        Ok(out)
    }

    /// Λ⁻¹: the time (s) by which `lambda` requests are expected.
    fn time_at(&self, lambda: f64) -> f64 {
        let r1 = self.rate_per_s;
        match (self.ramp_from_per_s, self.duration_s) {
            (Some(r0), Some(d)) if (r1 - r0).abs() > 1e-12 => {
                // Λ(t) = r0·t + (r1 − r0)·t²/(2d), solved for t ≥ 0.
                let a = (r1 - r0) / (2.0 * d);
                let disc = r0 * r0 + 4.0 * a * lambda;
                if disc < 0.0 {
                    return f64::INFINITY; // a ramp down that never gets there
                }
                let t = (-r0 + disc.sqrt()) / (2.0 * a);
                if t > d { d + (lambda - (r0 * d + a * d * d)) / r1 } else { t }
            }
            _ => lambda / r1,
        }
    }

    /// The rate the plan asks for at `t_s` seconds (requests/s).
    pub fn rate_at(&self, t_s: f64) -> f64 {
        match (self.ramp_from_per_s, self.duration_s) {
            (Some(r0), Some(d)) => r0 + (self.rate_per_s - r0) * (t_s / d).clamp(0.0, 1.0),
            _ => self.rate_per_s,
        }
    }
}

/// What a browser's HTTP/1.1 connection limit means at `rate_per_s`:
/// by Little's law (in flight = rate × time in the system), responses
/// longer than [`HTTP1_CONNECTIONS_PER_HOST`] / rate seconds need more
/// streams than a browser opens to one HTTP/1.1 host, and the rest wait in
/// the browser, not the server.
pub fn http1_note(rate_per_s: f64) -> String {
    let budget = f64::from(HTTP1_CONNECTIONS_PER_HOST) / rate_per_s.max(1e-9);
    format!(
        "Over HTTP/1.1 a browser opens at most {HTTP1_CONNECTIONS_PER_HOST} streams to one host: at {rate_per_s} requests/s, responses longer than {budget:.1} s pile up in the browser instead of the server (the results say if it happened). HTTP/2 endpoints have no such limit."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(rate: f64, burstiness: f64, n: usize) -> RatePlan {
        RatePlan {
            rate_per_s: rate,
            burstiness,
            duration_s: None,
            requests: Some(n),
            ramp_from_per_s: None,
            seed: 7,
        }
    }

    fn gaps(t: &[f64]) -> Vec<f64> {
        std::iter::once(t[0]).chain(t.windows(2).map(|w| w[1] - w[0])).collect()
    }

    fn mean_cv(v: &[f64]) -> (f64, f64) {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64;
        (m, var.sqrt() / m)
    }

    #[test]
    fn poisson_gaps_have_the_rate_and_cv_one() {
        let t = plan(5.0, 1.0, 5000).send_times_ms().unwrap();
        assert_eq!(t.len(), 5000);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        let (m, cv) = mean_cv(&gaps(&t));
        assert!((m - 200.0).abs() < 10.0, "mean gap {m} ms");
        assert!((cv - 1.0).abs() < 0.05, "cv {cv}");
        // Burstiness 4: cv 1/2, same mean.
        let (m, cv) = mean_cv(&gaps(&plan(5.0, 4.0, 5000).send_times_ms().unwrap()));
        assert!((m - 200.0).abs() < 10.0 && (cv - 0.5).abs() < 0.03, "{m} {cv}");
        assert_eq!(plan(5.0, 1.0, 50).send_times_ms(), plan(5.0, 1.0, 50).send_times_ms(), "seeded");
    }

    #[test]
    fn a_ramp_sends_at_the_rate_of_each_moment() {
        let p = RatePlan {
            duration_s: Some(60.0),
            requests: None,
            ramp_from_per_s: Some(2.0),
            ..plan(20.0, 1.0, 0)
        };
        let t = p.send_times_ms().unwrap();
        // ∫ 2 → 20 over 60 s = 660 requests expected.
        assert!((t.len() as f64 - 660.0).abs() < 3.0 * 660f64.sqrt(), "{} requests", t.len());
        let first = t.iter().filter(|x| **x < 10_000.0).count() as f64; // ≈ ∫₀¹⁰ = 35
        let last = t.iter().filter(|x| **x >= 50_000.0).count() as f64; // ≈ ∫₅₀⁶⁰ = 185
        assert!(first > 15.0 && first < 55.0, "{first} in the first 10 s");
        assert!(last > 150.0 && last < 220.0, "{last} in the last 10 s");
        assert!(t.last().unwrap() < &60_000.0);
        assert_eq!(p.rate_at(30.0), 11.0);
    }

    #[test]
    fn bad_plans_say_why() {
        assert_eq!(plan(0.0, 1.0, 5).send_times_ms(), Err(RateError::Rate));
        assert_eq!(plan(1.0, 0.0, 5).send_times_ms(), Err(RateError::Burstiness));
        let none = RatePlan { requests: None, ..plan(1.0, 1.0, 5) };
        assert_eq!(none.validate(), Err(RateError::Bound));
        let ramp = RatePlan { ramp_from_per_s: Some(1.0), ..plan(1.0, 1.0, 5) };
        assert_eq!(ramp.validate(), Err(RateError::RampNeedsDuration));
        assert!(http1_note(2.0).contains("longer than 3.0 s"));
    }
}
