//! **Student's t distribution**, written out so its numbers are fixed by
//! this file (and checked against published tables in the tests): the CDF
//! through the regularized incomplete beta function `I_x(a, b)` (Lentz's
//! continued fraction), and its quantile by bisection to 1e-12. Used for
//! the intervals of study ratings ([`crate::study::inference`]) and of the
//! prefill fit's slope ([`crate::measure::prefill`]).

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
}
