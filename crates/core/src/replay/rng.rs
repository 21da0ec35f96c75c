//! A small, seeded, platform-independent random number generator and the
//! distributions the profiles need. Written out here (rather than taken from
//! a crate) so that a profile with a given seed produces the same trace on
//! every machine, in the browser and natively, forever: the algorithms below
//! are fixed by this file, not by a dependency's version.
//!
//! - Generator: xoshiro256** (Blackman & Vigna), seeded through SplitMix64.
//! - Uniform `[0, 1)`: the top 53 bits of a 64-bit output.
//! - Normal: Box–Muller (the second value of each pair is kept for the next
//!   call).
//! - Log-normal with mean `m` and coefficient of variation `cv`:
//!   `σ² = ln(1 + cv²)`, `μ = ln m − σ²/2`, `exp(μ + σ·z)`.
//! - Gamma with mean `m` and `cv`: shape `k = 1/cv²`, scale `m·cv²`, drawn with
//!   Marsaglia–Tsang (shape < 1 via the `U^(1/k)` boost).

/// Seeded xoshiro256** generator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
    spare_normal: Option<u64>,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64's output for `x`: a well-mixed 64-bit function of it (used
/// to seed [`Rng`], and to name things deterministically, e.g. a workload's
/// prompt words).
pub fn mix64(x: u64) -> u64 {
    let mut state = x;
    splitmix64(&mut state)
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Self { s, spare_normal: None }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..n` (`n > 0`), without modulo bias worth noting
    /// for the small `n` used here.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.uniform() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// Standard normal.
    pub fn normal(&mut self) -> f64 {
        if let Some(bits) = self.spare_normal.take() {
            return f64::from_bits(bits);
        }
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        self.spare_normal = Some((r * theta.sin()).to_bits());
        r * theta.cos()
    }

    /// Log-normal with the given mean and coefficient of variation.
    pub fn lognormal(&mut self, mean: f64, cv: f64) -> f64 {
        let sigma2 = (1.0 + cv * cv).ln();
        let mu = mean.ln() - sigma2 / 2.0;
        (mu + sigma2.sqrt() * self.normal()).exp()
    }

    /// Gamma with the given mean and coefficient of variation.
    pub fn gamma(&mut self, mean: f64, cv: f64) -> f64 {
        let shape = 1.0 / (cv * cv);
        let scale = mean * cv * cv;
        self.gamma_shape(shape) * scale
    }

    fn gamma_shape(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let u = 1.0 - self.uniform();
            return self.gamma_shape(shape + 1.0) * u.powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = 1.0 - self.uniform();
            if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                return d * v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_cv(xs: &[f64]) -> (f64, f64) {
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64;
        (m, v.sqrt() / m)
    }

    #[test]
    fn same_seed_same_stream_different_seed_different() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        assert_eq!(a, (0..5).map(|_| r.next_u64()).collect::<Vec<_>>());
        assert_ne!(Rng::new(8).next_u64(), a[0]);
    }

    #[test]
    fn known_first_output_never_changes() {
        // Pinned so that a change of algorithm (and of every seeded profile)
        // cannot go unnoticed.
        assert_eq!(Rng::new(0).next_u64(), 0x99EC_5F36_CB75_F2B4);
    }

    #[test]
    fn distributions_have_the_requested_moments() {
        let mut r = Rng::new(42);
        let n = 200_000;
        let u: Vec<f64> = (0..n).map(|_| r.uniform()).collect();
        assert!(u.iter().all(|x| (0.0..1.0).contains(x)));
        assert!((mean_cv(&u).0 - 0.5).abs() < 0.005);
        let z: Vec<f64> = (0..n).map(|_| r.normal()).collect();
        let zm = z.iter().sum::<f64>() / n as f64;
        let zv = z.iter().map(|x| (x - zm).powi(2)).sum::<f64>() / n as f64;
        assert!(zm.abs() < 0.01 && (zv - 1.0).abs() < 0.02, "{zm} {zv}");
        for (name, xs) in [
            ("lognormal", (0..n).map(|_| r.lognormal(20.0, 0.5)).collect::<Vec<_>>()),
            ("gamma", (0..n).map(|_| r.gamma(20.0, 0.5)).collect::<Vec<_>>()),
        ] {
            let (m, cv) = mean_cv(&xs);
            assert!((m - 20.0).abs() < 0.2, "{name} mean {m}");
            assert!((cv - 0.5).abs() < 0.02, "{name} cv {cv}");
            assert!(xs.iter().all(|x| *x > 0.0));
        }
        let g: Vec<f64> = (0..n).map(|_| r.gamma(10.0, 2.0)).collect(); // shape 0.25
        let (m, cv) = mean_cv(&g);
        assert!((m - 10.0).abs() < 0.3 && (cv - 2.0).abs() < 0.1, "{m} {cv}");
    }
}
