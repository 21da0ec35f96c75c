//! Summaries of counted samples: a value `v` with a count `k` stands for
//! `k` equal samples, without ever making them.
//!
//! A chunk that carries `k` tokens after a gap of `g` ms is, per token, `k`
//! gaps of `g / k` ms ("ITL per token"). A stream may claim billions of
//! tokens in one chunk (a broken or hostile file can), so expanding it would
//! exhaust memory; every figure here is computed on the counts instead.
//!
//! Definitions, for pairs `(vᵢ, kᵢ)` with finite `vᵢ` and `kᵢ ≥ 1`, and
//! `N = Σ kᵢ` (pairs with `k = 0` or a non-finite value are left out):
//! - **mean** = Σ kᵢ·vᵢ / N, summed with Neumaier's compensated summation
//!   (numpy's pairwise sum of the expanded samples may differ in the last
//!   digits);
//! - **std** = sqrt(Σ kᵢ·(vᵢ − mean)² / N), the population deviation;
//! - **percentiles, median, min, max**: exactly those of the expanded
//!   samples ([`super::stats`]'s numpy definitions), each rank found by
//!   walking the cumulative counts of the sorted values;
//! - **count** = N, saturated at `usize::MAX`.

use super::stats::{Summary, lerp_percentile};

/// The summary of counted samples, `None` when no pair counts.
pub fn summary_of_counted(pairs: impl IntoIterator<Item = (f64, u64)>) -> Option<Summary> {
    let mut pairs: Vec<(f64, u64)> = pairs.into_iter().filter(|(v, k)| v.is_finite() && *k > 0).collect();
    let n: u64 = pairs.iter().fold(0u64, |n, (_, k)| n.saturating_add(*k));
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let mean = compensated_sum(pairs.iter().map(|(v, k)| v * *k as f64)) / nf;
    let var = compensated_sum(pairs.iter().map(|(v, k)| *k as f64 * (v - mean) * (v - mean))) / nf;
    pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    // Cumulative counts: `ends[i]` = number of samples up to and including pair i.
    let ends: Vec<u64> = pairs
        .iter()
        .scan(0u64, |acc, (_, k)| {
            *acc = acc.saturating_add(*k);
            Some(*acc)
        })
        .collect();
    let at = |rank: u64| pairs[ends.partition_point(|&e| e <= rank).min(pairs.len() - 1)].0;
    let median = if n % 2 == 1 { at(n / 2) } else { (at(n / 2 - 1) + at(n / 2)) / 2.0 };
    let pct = |p| lerp_percentile(n, p, at);
    Some(Summary {
        count: usize::try_from(n).unwrap_or(usize::MAX),
        mean,
        median,
        std: var.max(0.0).sqrt(),
        min: pairs[0].0,
        max: pairs[pairs.len() - 1].0,
        p50: pct(50.0),
        p90: pct(90.0),
        p95: pct(95.0),
        p99: pct(99.0),
    })
}

/// Neumaier's compensated sum (Kahan–Babuška): the rounding error of each
/// addition is carried and added back once at the end.
fn compensated_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        carry += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
        sum = t;
    }
    sum + carry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::stats::Samples;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
    }

    #[test]
    fn counted_samples_summarise_as_their_expansion() {
        let mut rng = crate::replay::rng::Rng::new(7);
        for len in [1, 2, 3, 5, 40, 301] {
            let pairs: Vec<(f64, u64)> = (0..len)
                .map(|_| ((rng.uniform() * 80.0).round() / 4.0, 1 + (rng.uniform() * 6.0) as u64))
                .collect();
            let expanded = pairs.iter().flat_map(|&(v, k)| std::iter::repeat_n(v, k as usize));
            let want = Samples::from_finite(expanded).summary().unwrap();
            let got = summary_of_counted(pairs.iter().copied()).unwrap();
            assert_eq!(got.count, want.count);
            for (g, w) in [
                (got.median, want.median),
                (got.min, want.min),
                (got.max, want.max),
                (got.p50, want.p50),
                (got.p90, want.p90),
                (got.p95, want.p95),
                (got.p99, want.p99),
            ] {
                assert_eq!(g, w, "len {len}");
            }
            close(got.mean, want.mean);
            close(got.std, want.std);
        }
    }

    #[test]
    fn a_count_of_billions_is_summarised_without_expanding() {
        let s = summary_of_counted([(30.0, 1), (1e-6, u64::from(u32::MAX))]).unwrap();
        assert_eq!(s.min, 1e-6);
        assert_eq!(s.max, 30.0);
        assert_eq!(s.p99, 1e-6);
        assert_eq!(s.count, usize::try_from(u64::from(u32::MAX) + 1).unwrap_or(usize::MAX));
        close(s.mean, (30.0 + 1e-6 * f64::from(u32::MAX)) / (f64::from(u32::MAX) + 1.0));
    }

    #[test]
    fn nothing_counted_has_no_summary() {
        assert_eq!(summary_of_counted([]), None);
        assert_eq!(summary_of_counted([(1.0, 0), (f64::NAN, 3)]), None);
    }
}
