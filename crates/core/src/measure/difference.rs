//! How two endpoints differ, with how sure the sample is.
//!
//! **Definition.** For one metric (TTFT, first paint, TPOT, E2EL, a score)
//! measured on the requests of endpoint A and of endpoint B, the
//! **difference at percentile p** is `P_p(B) − P_p(A)`, each percentile
//! numpy's linear one ([`super::stats`]). Its **95% interval** is a
//! percentile bootstrap: A and B are resampled with replacement
//! ([`RESAMPLES`] times, each side on its own), the difference is taken on
//! every resample, and the interval is the 2.5th to 97.5th percentile of
//! those differences. The resampling is seeded from the data, so the same
//! requests always give the same interval.
//!
//! Interleaving the endpoints (A, B, A, B, …) spreads the machine's and the
//! network's drift over both, which is what lets the two samples be read as
//! independent here.
//!
//! **In words** ([`Difference::sentence`]): "B shows text 180 ms sooner at
//! P50 (120–240 ms)" when the whole interval is on one side of zero; else
//! "no difference at P50 that 24 and 24 requests can tell (−20 to +35 ms)".
//! For a score, larger is better; for a time, smaller is.

use crate::measure::stats::lerp_percentile;

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 2000;
/// Fewest requests per side for an interval (fewer: the difference alone).
pub const MIN_SAMPLES: usize = 5;

/// The difference of one percentile between two endpoints' requests.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// The percentile (0–100) compared, or `None` for a statistic of the
    /// whole run (a scenario score: [`run_differences`]).
    pub at: Option<f64>,
    /// A's percentile.
    pub a: f64,
    /// B's percentile.
    pub b: f64,
    /// `b − a`.
    pub diff: f64,
    /// The 95% interval of `diff`, when both sides have [`MIN_SAMPLES`].
    pub interval: Option<(f64, f64)>,
    /// Requests of A and of B.
    pub n: (usize, usize),
}

/// numpy's linear percentile of ascending `sorted` (non-empty).
fn pct(sorted: &[f64], p: f64) -> f64 {
    lerp_percentile(sorted.len() as u64, p, |i| sorted[i as usize])
}

/// The difference at percentile `p` of B's values over A's (module docs);
/// `None` when a side has no finite value.
pub fn difference(a: &[f64], b: &[f64], p: f64) -> Option<Difference> {
    let sorted = |v: &[f64]| {
        let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        s.sort_by(f64::total_cmp);
        s
    };
    let (a, b) = (sorted(a), sorted(b));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (pa, pb) = (pct(&a, p), pct(&b, p));
    let interval =
        (a.len() >= MIN_SAMPLES && b.len() >= MIN_SAMPLES).then(|| bootstrap(&a, &b, p, RESAMPLES));
    Some(Difference { at: Some(p), a: pa, b: pb, diff: pb - pa, interval, n: (a.len(), b.len()) })
}

/// The differences of statistics of the whole run (`stats` of A's
/// requests and of B's, the same number each time), each with the same
/// percentile bootstrap over requests as [`difference`] (`resamples` of
/// them, seeded by `seed`; the statistics of one resample are taken
/// together, so a costly step such as summarising the run is done once per
/// resample); `None` where a statistic has no value on a side.
pub fn run_differences<T: Clone>(
    a: &[T],
    b: &[T],
    seed: u64,
    resamples: usize,
    stats: impl Fn(&[T]) -> Vec<Option<f64>>,
) -> Vec<Option<Difference>> {
    let (va, vb) = (stats(a), stats(b));
    let enough = a.len() >= MIN_SAMPLES && b.len() >= MIN_SAMPLES;
    let mut diffs: Vec<Vec<f64>> = vec![Vec::new(); va.len()];
    if enough {
        let mut rng = Draws(seed);
        let mut draw = |v: &[T], out: &mut Vec<T>| {
            out.clear();
            out.extend((0..v.len()).map(|_| v[rng.below(v.len())].clone()));
        };
        let (mut ra, mut rb) = (Vec::with_capacity(a.len()), Vec::with_capacity(b.len()));
        for _ in 0..resamples {
            draw(a, &mut ra);
            draw(b, &mut rb);
            for (k, (x, y)) in stats(&ra).into_iter().zip(stats(&rb)).enumerate() {
                if let (Some(x), Some(y), Some(d)) = (x, y, diffs.get_mut(k)) {
                    d.push(y - x);
                }
            }
        }
    }
    va.into_iter()
        .zip(vb)
        .zip(diffs)
        .map(|((x, y), mut d)| {
            let (x, y) = (x?, y?);
            d.sort_by(f64::total_cmp);
            let interval = (enough && !d.is_empty()).then(|| (pct(&d, 2.5), pct(&d, 97.5)));
            Some(Difference { at: None, a: x, b: y, diff: y - x, interval, n: (a.len(), b.len()) })
        })
        .collect()
}

/// SplitMix64 (Steele, Lea and Flood 2014): the resampling's draws. (The
/// replay room's generator is a later room than this one.)
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index below `n` (Lemire's multiply-shift).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// The percentile bootstrap interval (module docs), seeded from the data.
fn bootstrap(a: &[f64], b: &[f64], p: f64, resamples: usize) -> (f64, f64) {
    let mut rng = Draws(p.to_bits());
    for x in a.iter().chain(b) {
        rng.0 ^= x.to_bits();
        rng.0 = rng.next();
    }
    let mut draw = |v: &[f64], out: &mut Vec<f64>| {
        out.clear();
        out.extend((0..v.len()).map(|_| v[rng.below(v.len())]));
        out.sort_by(f64::total_cmp);
    };
    let (mut ra, mut rb) = (Vec::with_capacity(a.len()), Vec::with_capacity(b.len()));
    let mut diffs: Vec<f64> = (0..resamples)
        .map(|_| {
            draw(a, &mut ra);
            draw(b, &mut rb);
            pct(&rb, p) - pct(&ra, p)
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    (pct(&diffs, 2.5), pct(&diffs, 97.5))
}

/// What a metric is, for the sentence: how B's lead is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// A time: less is better ("sooner").
    Lower,
    /// A score: more is better ("higher").
    Higher,
}

impl Difference {
    /// The difference in words (module docs): `b_name` `verb` the metric
    /// `by` an amount, formatted by `fmt` (e.g. "180 ms").
    pub fn sentence(&self, b_name: &str, verb: &str, better: Better, fmt: impl Fn(f64) -> String) -> String {
        let p = self.at.map(|p| format!(" at P{p}")).unwrap_or_default();
        let Some((lo, hi)) = self.interval else {
            return format!(
                "{b_name} {verb} {}{p} ({} and {} requests: too few for an interval)",
                lead(self.diff, better, &fmt),
                self.n.0,
                self.n.1
            );
        };
        if lo <= 0.0 && hi >= 0.0 {
            let signed = |v: f64| signed(v, &fmt);
            return format!(
                "no difference{p} that {} and {} requests can tell ({} to {})",
                self.n.0,
                self.n.1,
                signed(lo),
                signed(hi)
            );
        }
        let (near, far) = if lo.abs() < hi.abs() { (lo.abs(), hi.abs()) } else { (hi.abs(), lo.abs()) };
        format!("{b_name} {verb} {}{p} ({})", lead(self.diff, better, &fmt), range(fmt(near), fmt(far)))
    }
}

/// `v` with its sign, "+12 ms" or "−3 ms", formatted by `fmt` (−0 is
/// said as +0).
pub fn signed(v: f64, fmt: impl Fn(f64) -> String) -> String {
    format!("{}{}", if v >= 0.0 { "+" } else { "−" }, fmt(v.abs()))
}

/// "120–240 ms" from "120 ms" and "240 ms" (the unit said once).
fn range(near: String, far: String) -> String {
    match near.rsplit_once(' ') {
        Some((n, unit)) if far.ends_with(&format!(" {unit}")) => format!("{n}–{far}"),
        _ => format!("{near}–{far}"),
    }
}

/// "180 ms sooner", "4 points higher", and their opposites.
fn lead(diff: f64, better: Better, fmt: &impl Fn(f64) -> String) -> String {
    let word = match (better, diff <= 0.0) {
        (Better::Lower, true) => "sooner",
        (Better::Lower, false) => "later",
        (Better::Higher, true) => "lower",
        (Better::Higher, false) => "higher",
    };
    format!("{} {word}", fmt(diff.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: f64) -> String {
        format!("{v:.0} ms")
    }

    #[test]
    fn a_hand_worked_difference_and_its_words() {
        let a = [300.0, 310.0, 320.0, 330.0, 340.0, 350.0];
        let b: Vec<f64> = a.iter().map(|x| x - 180.0).collect();
        let d = difference(&a, &b, 50.0).unwrap();
        assert_eq!((d.a, d.b, d.diff, d.n), (325.0, 145.0, -180.0, (6, 6)));
        let (lo, hi) = d.interval.unwrap();
        assert!(lo < -180.0 && -180.0 < hi && hi < 0.0, "{lo} {hi}");
        let s = d.sentence("B", "shows text", Better::Lower, ms);
        assert!(s.starts_with("B shows text 180 ms sooner at P50 ("), "{s}");
        let inside = s.trim_start_matches("B shows text 180 ms sooner at P50 (").trim_end_matches(')');
        let (near, far) = inside.trim_end_matches(" ms").split_once('–').unwrap();
        assert_eq!(
            (near.parse::<f64>().unwrap(), far.parse::<f64>().unwrap()),
            (-hi.round(), -lo.round()),
            "{s}"
        );
        // The same data, the same interval.
        assert_eq!(difference(&a, &b, 50.0), Some(d));
    }

    #[test]
    fn overlapping_samples_are_said_to_be_no_difference() {
        let a = [100.0, 140.0, 120.0, 180.0, 90.0, 160.0, 130.0];
        let b = [110.0, 150.0, 95.0, 170.0, 125.0, 135.0, 145.0];
        let d = difference(&a, &b, 50.0).unwrap();
        let s = d.sentence("B", "shows text", Better::Lower, ms);
        assert!(s.starts_with("no difference at P50 that 7 and 7 requests can tell (−"), "{s}");
        // Scores: more is better.
        let up = difference(&[60.0; 6], &[64.0, 65.0, 66.0, 64.0, 65.0, 66.0], 50.0).unwrap();
        assert!(
            up.sentence("B", "scores", Better::Higher, |v| format!("{v:.1}"))
                .starts_with("B scores 5.0 higher at P50")
        );
    }

    #[test]
    fn too_few_or_no_values() {
        assert_eq!(difference(&[], &[1.0], 50.0), None);
        assert_eq!(difference(&[f64::NAN], &[1.0], 50.0), None);
        let d = difference(&[1.0, 2.0], &[3.0], 50.0).unwrap();
        assert_eq!((d.diff, d.interval), (1.5, None));
        assert!(d.sentence("B", "shows text", Better::Lower, ms).contains("too few for an interval"));
    }

    /// Samples of 30 from two lognormal TTFT distributions whose medians
    /// differ by a known amount: the 95% interval covers the true difference
    /// in about 95% of 250 trials (a percentile bootstrap of a median at
    /// n = 30 covers a little less; 88–99% is the band a correct interval
    /// stays in, and one that ignored B's spread would fall well below).
    /// 1,000 resamples each, to keep the test quick.
    #[test]
    fn the_interval_covers_the_true_difference_about_95_percent_of_the_time() {
        let mut rng = crate::replay::rng::Rng::new(11);
        // lognormal(mean, cv): median = mean / sqrt(1 + cv²).
        let (ma, mb, cv) = (400.0, 300.0, 0.5);
        let truth = (mb - ma) / (1.0f64 + cv * cv).sqrt();
        let trials = 250;
        let covered = (0..trials)
            .filter(|_| {
                let a: Vec<f64> = (0..30).map(|_| rng.lognormal(ma, cv)).collect();
                let b: Vec<f64> = (0..30).map(|_| rng.lognormal(mb, cv)).collect();
                let sorted = |mut v: Vec<f64>| {
                    v.sort_by(f64::total_cmp);
                    v
                };
                let (lo, hi) = bootstrap(&sorted(a), &sorted(b), 50.0, 1000);
                lo <= truth && truth <= hi
            })
            .count();
        let rate = covered as f64 / trials as f64;
        assert!((0.88..=0.99).contains(&rate), "coverage {rate}");
    }
}
