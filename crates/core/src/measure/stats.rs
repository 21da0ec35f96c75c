//! Summary statistics computed exactly the way numpy computes them, so that
//! figures match vLLM's `bench serve` (which calls numpy) to the last digit.
//!
//! Definitions (for `n` finite samples `x`):
//! - **sum**: numpy's pairwise summation (`np.add.reduce` on a contiguous
//!   `float64` array): blocks of at most 128 values are summed with eight
//!   interleaved accumulators, longer runs are split in two halves whose
//!   length is a multiple of eight, recursively. The rounding therefore matches
//!   numpy, not a naive left-to-right loop.
//! - **mean** = sum / n (`np.mean`).
//! - **std** = sqrt(sum((x − mean)²) / n): the population standard deviation,
//!   `np.std` with its default `ddof = 0`.
//! - **median**: the middle value of the sorted samples, or the numpy mean of
//!   the two middle values, `(a + b) / 2` (`np.median`).
//! - **percentile p** (`np.percentile`, default `method="linear"`): with the
//!   samples sorted, `h = (n − 1) · (p / 100)`, `lo = ⌊h⌋`, `t = h − lo`,
//!   result = `a + (b − a)·t` when `t < 0.5`, else `b − (b − a)·(1 − t)`
//!   (numpy's `_lerp`, which picks the form by `t` to stay monotone), where
//!   `a = x[lo]`, `b = x[lo + 1]`; `h ≥ n − 1` gives the maximum.
//!
//! - **percentile interval** ([`percentile_interval`]): a distribution-free
//!   95% confidence interval of the p-th percentile of the population the
//!   samples come from, between two order statistics: with `n` sorted
//!   samples and `q = p / 100`, the ranks `n·q ∓ 1.96·√(n·q·(1 − q))`
//!   (the normal approximation of the binomial count of samples below the
//!   percentile), rounded outwards; `None` when a rank falls outside the
//!   samples (too few for that percentile: e.g. a P99 needs about 400).
//!
//! Empty input has no summary ([`Samples::summary`] returns `None`) and a
//! non-finite value is refused when the samples are built
//! ([`StatsError::NonFinite`]), so neither NaN nor a panic can come out.

use serde::{Deserialize, Serialize};

/// Block length under which numpy sums with eight plain accumulators
/// (`PW_BLOCKSIZE` in numpy's `loops_utils.h.src`).
pub const PAIRWISE_BLOCK: usize = 128;

/// The percentiles every summary reports: P50, P90, P95 and P99.
pub const REPORTED_PERCENTILES: [f64; 4] = [50.0, 90.0, 95.0, 99.0];

/// Why a set of samples could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A value was NaN or infinite.
    #[error("sample {index} is not a finite number ({value})")]
    NonFinite {
        /// Position of the offending value in the input.
        index: usize,
        /// The value itself.
        value: f64,
    },
}

/// A sorted set of finite samples. Building one is the only way to get a
/// [`Summary`], so every statistic is computed on clean data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Samples {
    /// Samples in input order (numpy sums in this order).
    raw: Vec<f64>,
    /// The same samples sorted ascending, made on first use: a summary
    /// alone selects its few order statistics without sorting.
    sorted: std::cell::OnceCell<Vec<f64>>,
}

impl Samples {
    /// Builds samples, refusing NaN and infinities.
    pub fn new(values: Vec<f64>) -> Result<Self, StatsError> {
        if let Some((index, &value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(StatsError::NonFinite { index, value });
        }
        Ok(Self { raw: values, sorted: std::cell::OnceCell::new() })
    }

    /// Builds samples from values already known to be finite (for example
    /// differences of validated timestamps), dropping any that are not.
    pub fn from_finite(values: impl IntoIterator<Item = f64>) -> Self {
        let raw: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
        Self { raw, sorted: std::cell::OnceCell::new() }
    }

    /// Builds samples from finite values already in ascending order (a
    /// merge of sorted lists): nothing is sorted again, and the summary
    /// reads its ranks off them. Values that are not finite or not in order
    /// are a caller's bug; the samples are then sorted as usual.
    pub fn from_sorted(values: Vec<f64>) -> Self {
        let ordered = values.iter().all(|v| v.is_finite()) && values.is_sorted_by(|a, b| a <= b);
        if !ordered {
            return Self::from_finite(values);
        }
        let sorted = std::cell::OnceCell::new();
        let _ = sorted.set(values.clone());
        Self { raw: values, sorted }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Samples in ascending order.
    pub fn sorted(&self) -> &[f64] {
        self.sorted.get_or_init(|| sorted_copy(&self.raw))
    }

    /// numpy's mean, or `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (!self.is_empty()).then(|| pairwise_sum(&self.raw) / self.raw.len() as f64)
    }

    /// numpy's percentile (linear), or `None` when empty.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        (!self.is_empty()).then(|| percentile_of_sorted(self.sorted(), p))
    }

    /// Everything at once, or `None` when empty.
    pub fn summary(&self) -> Option<Summary> {
        let n = self.raw.len();
        if n == 0 {
            return None;
        }
        let mean = pairwise_sum(&self.raw) / n as f64;
        let squares: Vec<f64> = self
            .raw
            .iter()
            .map(|x| {
                let d = x - mean;
                d * d
            })
            .collect();
        let std = (pairwise_sum(&squares) / n as f64).sqrt();
        let mut scratch = squares; // reused for the selection below
        // The ranks every reported figure reads.
        let mut ranks = vec![0, n - 1, (n - 1) / 2, n / 2];
        for p in REPORTED_PERCENTILES {
            let (lo, hi) = percentile_ranks(n, p);
            ranks.extend([lo, hi]);
        }
        ranks.sort_unstable();
        ranks.dedup();
        let values: Vec<f64> = match self.sorted.get() {
            Some(s) => ranks.iter().map(|&r| s[r]).collect(),
            None => {
                scratch.copy_from_slice(&self.raw);
                order_statistics(&mut scratch, &ranks)
            }
        };
        let at = |r: usize| values[ranks.binary_search(&r).unwrap_or(0)];
        let median = if n % 2 == 1 { at(n / 2) } else { (at(n / 2 - 1) + at(n / 2)) / 2.0 };
        let pct = |p| lerp_percentile(n as u64, p, |r| at(r as usize));
        Some(Summary {
            count: n,
            mean,
            median,
            std,
            min: at(0),
            max: at(n - 1),
            p50: pct(50.0),
            p90: pct(90.0),
            p95: pct(95.0),
            p99: pct(99.0),
        })
    }
}

/// The values in ascending `f64::total_cmp` order.
pub fn sorted_copy(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// The values at the given ranks (0-based, ascending, in bounds) of the
/// ascending order of `values`, found by repeated selection (O(n) each)
/// instead of a full sort. `values` is reordered.
fn order_statistics(values: &mut [f64], ranks: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(ranks.len());
    let mut rest: &mut [f64] = values;
    let mut offset = 0;
    let mut last: Option<(usize, f64)> = None;
    for &r in ranks {
        if let Some((lr, lv)) = last
            && lr == r
        {
            out.push(lv);
            continue;
        }
        let (_, nth, right) = rest.select_nth_unstable_by(r - offset, f64::total_cmp);
        let v = *nth;
        out.push(v);
        last = Some((r, v));
        offset = r + 1;
        rest = right;
    }
    out
}

/// A statistic of a [`Summary`]: what a table column, a comparison, a
/// library entry or a scenario target reads of a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stat {
    /// Mean.
    Mean,
    /// Median / P50.
    P50,
    /// P90.
    P90,
    /// P95.
    P95,
    /// P99.
    P99,
    /// Maximum.
    Max,
}

impl Stat {
    /// Label for people ("P50").
    pub fn label(self) -> &'static str {
        match self {
            Self::Mean => "mean",
            Self::P50 => "P50",
            Self::P90 => "P90",
            Self::P95 => "P95",
            Self::P99 => "P99",
            Self::Max => "max",
        }
    }

    /// Its id in test ids and JSON (`p50`).
    pub fn id(self) -> &'static str {
        match self {
            Self::Mean => "mean",
            Self::P50 => "p50",
            Self::P90 => "p90",
            Self::P95 => "p95",
            Self::P99 => "p99",
            Self::Max => "max",
        }
    }

    /// Its value in `s`.
    pub fn of(self, s: &Summary) -> f64 {
        match self {
            Self::Mean => s.mean,
            Self::P50 => s.p50,
            Self::P90 => s.p90,
            Self::P95 => s.p95,
            Self::P99 => s.p99,
            Self::Max => s.max,
        }
    }
}

/// The figures reported for one metric (all in the metric's own unit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    /// Arithmetic mean (numpy pairwise sum / n).
    pub mean: f64,
    /// numpy median.
    pub median: f64,
    /// Population standard deviation (ddof = 0).
    pub std: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// 50th percentile (linear).
    pub p50: f64,
    /// 90th percentile (linear).
    pub p90: f64,
    /// 95th percentile (linear).
    pub p95: f64,
    /// 99th percentile (linear).
    pub p99: f64,
}

impl Summary {
    /// Coefficient of variation (std / mean), `None` when the mean is zero.
    pub fn cv(&self) -> Option<f64> {
        (self.mean != 0.0).then(|| self.std / self.mean)
    }
}

/// numpy's pairwise summation of a contiguous `float64` array.
pub fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= PAIRWISE_BLOCK {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// numpy's linear percentile of an ascending, non-empty slice.
///
/// `p` is in percent (0–100); values outside are clamped to the extremes.
pub fn percentile_of_sorted(sorted: &[f64], p: f64) -> f64 {
    debug_assert!(!sorted.is_empty());
    lerp_percentile(sorted.len() as u64, p, |i| sorted[i as usize])
}

/// The two ranks numpy's linear percentile `p` of `n > 0` values reads.
fn percentile_ranks(n: usize, p: f64) -> (usize, usize) {
    let virtual_index = (n as f64 - 1.0) * (p / 100.0);
    if virtual_index >= (n - 1) as f64 {
        return (n - 1, n - 1);
    }
    if virtual_index < 0.0 {
        return (0, 0);
    }
    let lo = virtual_index.floor() as usize;
    (lo, lo + 1)
}

/// numpy's linear percentile of `n > 0` values, `at(i)` being the i-th
/// smallest (ranks are `u64` so counted samples may outnumber `usize`).
pub(crate) fn lerp_percentile(n: u64, p: f64, at: impl Fn(u64) -> f64) -> f64 {
    let virtual_index = (n as f64 - 1.0) * (p / 100.0);
    if virtual_index >= (n - 1) as f64 {
        return at(n - 1);
    }
    if virtual_index < 0.0 {
        return at(0);
    }
    let lo = virtual_index.floor();
    let t = virtual_index - lo;
    let a = at(lo as u64);
    let b = at(lo as u64 + 1);
    let diff = b - a;
    if t >= 0.5 { b - diff * (1.0 - t) } else { a + diff * t }
}

/// z of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% confidence interval of percentile `p` (0–100) of an ascending
/// slice (module doc); `None` when the samples are too few.
pub fn percentile_interval(sorted: &[f64], p: f64) -> Option<(f64, f64)> {
    let n = sorted.len() as f64;
    let q = (p / 100.0).clamp(0.0, 1.0);
    let half = Z95 * (n * q * (1.0 - q)).sqrt();
    let (lo, hi) = ((n * q - half).floor(), (n * q + half).ceil());
    if n == 0.0 || lo < 1.0 || hi > n {
        return None;
    }
    // Ranks are 1-based.
    Some((sorted[lo as usize - 1], sorted[hi as usize - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_gives_the_same_summary_as_sorting() {
        let mut rng = crate::replay::rng::Rng::new(42);
        for n in [1, 2, 3, 7, 100, 1001] {
            let v: Vec<f64> = (0..n).map(|_| (rng.uniform() * 40.0).round() / 4.0).collect();
            let lazy = Samples::from_finite(v.iter().copied()).summary();
            let s = Samples::from_finite(v.iter().copied());
            let _ = s.sorted();
            assert_eq!(lazy, s.summary(), "n = {n}");
            // Sorted already: the same order statistics (the mean summed in
            // sorted order may differ in its last bits).
            let pre = Samples::from_sorted(s.sorted().to_vec()).summary().unwrap();
            let lazy = lazy.unwrap();
            assert_eq!(
                (pre.p50, pre.p99, pre.min, pre.max, pre.median),
                (lazy.p50, lazy.p99, lazy.min, lazy.max, lazy.median)
            );
            assert!((pre.mean - lazy.mean).abs() <= 1e-12 * lazy.mean.abs().max(1.0));
        }
        // Out of order: sorted as usual, never wrong.
        assert_eq!(Samples::from_sorted(vec![3.0, 1.0, 2.0]).percentile(50.0), Some(2.0));
        assert_eq!(Samples::from_sorted(vec![1.0, f64::NAN]).len(), 1);
    }

    #[test]
    fn empty_has_no_summary() {
        let s = Samples::new(vec![]).unwrap();
        assert!(s.summary().is_none());
        assert!(s.mean().is_none());
        assert!(s.percentile(99.0).is_none());
    }

    #[test]
    fn nan_is_refused_with_its_position() {
        let err = Samples::new(vec![1.0, f64::NAN]).unwrap_err();
        assert!(matches!(err, StatsError::NonFinite { index: 1, .. }));
        assert!(Samples::new(vec![f64::INFINITY]).is_err());
        assert_eq!(Samples::from_finite([1.0, f64::NAN, 3.0]).len(), 2);
    }

    #[test]
    fn hand_computed_small_set() {
        // x = 10, 20, 30, 40: mean 25, median 25, std sqrt(125)
        let s = Samples::new(vec![40.0, 10.0, 30.0, 20.0]).unwrap().summary().unwrap();
        assert_eq!(s.mean, 25.0);
        assert_eq!(s.median, 25.0);
        assert!((s.std - 125f64.sqrt()).abs() < 1e-12);
        // h = 3 * 0.9 = 2.7 → 30 + 10 * 0.7 = 37
        assert!((s.p90 - 37.0).abs() < 1e-12);
        // h = 3 * 0.99 = 2.97 → 39.7
        assert!((s.p99 - 39.7).abs() < 1e-12);
        assert_eq!((s.min, s.max), (10.0, 40.0));
    }

    #[test]
    fn single_value_is_every_statistic() {
        let s = Samples::new(vec![7.5]).unwrap().summary().unwrap();
        assert_eq!((s.mean, s.median, s.std, s.p50, s.p99), (7.5, 7.5, 0.0, 7.5, 7.5));
    }

    #[test]
    fn percentile_bounds_clamp() {
        let v = [1.0, 2.0, 3.0];
        assert_eq!(percentile_of_sorted(&v, 0.0), 1.0);
        assert_eq!(percentile_of_sorted(&v, 100.0), 3.0);
        assert_eq!(percentile_of_sorted(&v, 150.0), 3.0);
        assert_eq!(percentile_of_sorted(&v, -5.0), 1.0);
    }

    #[test]
    fn pairwise_sum_differs_from_naive_like_numpy() {
        // 0.1 summed 1000 times: numpy gives 100.00000000000001 (pairwise),
        // a naive loop gives 99.9999999999986.
        let v = vec![0.1; 1000];
        let naive: f64 = v.iter().sum();
        assert_eq!(pairwise_sum(&v), 100.00000000000001);
        assert_ne!(pairwise_sum(&v), naive);
    }

    #[test]
    fn percentile_intervals_bracket_the_percentile_and_narrow_with_more_samples() {
        let xs: Vec<f64> = (1..=1000).map(f64::from).collect();
        let (lo, hi) = percentile_interval(&xs, 90.0).unwrap();
        // n·q = 900, half width 1.96·√90 = 18.6: ranks 881 and 919.
        assert_eq!((lo, hi), (881.0, 919.0));
        let few: Vec<f64> = (1..=100).map(f64::from).collect();
        let (a, b) = percentile_interval(&few, 90.0).unwrap();
        assert!(a < 90.0 && b > 90.0 && b - a > (hi - lo) / 10.0, "{a}..{b}");
        assert_eq!(percentile_interval(&few, 99.0), None, "100 samples cannot bound a P99");
        assert_eq!(percentile_interval(&[], 50.0), None);
        // Coverage: the true median of U(0, 1) is inside about 95% of intervals.
        let mut rng = 7u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 11) as f64 / (1u64 << 53) as f64
        };
        let inside = (0..2000)
            .filter(|_| {
                let mut s: Vec<f64> = (0..60).map(|_| next()).collect();
                s.sort_by(f64::total_cmp);
                percentile_interval(&s, 50.0).is_some_and(|(a, b)| a <= 0.5 && 0.5 <= b)
            })
            .count();
        assert!((1860..=1980).contains(&inside), "{inside} of 2000");
    }
}
