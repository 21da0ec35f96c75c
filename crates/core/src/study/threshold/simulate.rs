//! Simulated observers: a participant whose answers follow a known
//! psychometric function, run through a procedure with a seeded random
//! source. How well each procedure recovers the truth, and in how many
//! trials, is measured on them (tests here; `examples/thresholds.rs`
//! prints the table in BENCHMARKS.md).

use super::analysis::ThresholdTrial;
use super::design::{ThresholdDesign, reference_first};
use super::psychometric::Psychometric;
use super::{Adaptive, Procedure};
use crate::replay::rng::Rng;

/// Runs one simulated participant with function `truth` through
/// `procedure` over `range`.
pub fn run(procedure: Procedure, range: (f64, f64), truth: &Psychometric, rng: &mut Rng) -> Adaptive {
    let mut a = Adaptive::new(procedure, range);
    while let Some(x) = a.next_level() {
        let correct = rng.uniform() < truth.p(x);
        a.record(x, correct);
    }
    a
}

/// The trials of simulated participant `number` (id `p<number>`) as a
/// study records them: each answer placed on the side `design` draws for
/// it, with a fixed response time of 700 ms.
pub fn recorded(design: &ThresholdDesign, number: u32, run: &Adaptive) -> Vec<ThresholdTrial> {
    run.trials()
        .iter()
        .enumerate()
        .map(|(i, &(level, correct))| {
            let first = reference_first(design.seed, number, i);
            ThresholdTrial {
                participant: format!("p{number}"),
                trial: i,
                level,
                reference_first: first,
                chosen: if correct == first { 0 } else { 1 },
                rt_ms: 700.0,
            }
        })
        .collect()
}

/// A true function drawn for experiment `i`: threshold log-uniform over
/// the middle of `range` (a decade inside each end), slope 1.5–5, lapse
/// 0–0.04, logistic.
pub fn draw_truth(range: (f64, f64), rng: &mut Rng) -> Psychometric {
    let (lo, hi) = ((range.0 * 3.0).ln(), (range.1 / 3.0).ln());
    Psychometric {
        shape: super::psychometric::Shape::Logistic,
        alpha: (lo + (hi - lo) * rng.uniform()).exp(),
        beta: 1.5 + 3.5 * rng.uniform(),
        lapse: 0.04 * rng.uniform(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::psychometric::{self, Shape, points};
    use super::super::staircase::Rule;
    use super::*;

    const RANGE: (f64, f64) = (10.0, 1000.0);

    #[test]
    fn psi_credible_intervals_cover_the_true_threshold_90_to_98_percent_of_the_time() {
        let mut rng = Rng::new(2026);
        let mut covered = 0;
        for _ in 0..200 {
            let truth = draw_truth(RANGE, &mut rng);
            let a = run(Procedure::Psi { trials: 50 }, RANGE, &truth, &mut rng);
            let (_, ci) = a.threshold().unwrap();
            let (lo, hi) = ci.unwrap();
            covered += usize::from(lo <= truth.alpha && truth.alpha <= hi);
        }
        assert!((180..=196).contains(&covered), "covered {covered} of 200");
    }

    #[test]
    fn the_staircase_converges_to_its_target_percent() {
        let truth = Psychometric { shape: Shape::Logistic, alpha: 100.0, beta: 3.0, lapse: 0.0 };
        let rule = Rule::default();
        let target_level = truth.level_at(rule.target()).unwrap();
        let mut rng = Rng::new(11);
        let mut logs: Vec<f64> = (0..200)
            .filter_map(|_| run(Procedure::Staircase(rule), RANGE, &truth, &mut rng).threshold())
            .map(|(t, _)| (t / target_level).ln())
            .collect();
        assert!(logs.len() >= 190, "most staircases reach their reversals: {}", logs.len());
        logs.sort_by(f64::total_cmp);
        let median = logs[logs.len() / 2].exp();
        // Percent correct the median threshold gets from the observer.
        let at = truth.p(target_level * median);
        assert!(
            (at - rule.target()).abs() < 0.04,
            "P at the median threshold {at:.3} vs target {:.3}",
            rule.target()
        );
    }

    #[test]
    fn a_pooled_fit_of_staircase_trials_covers_the_true_threshold() {
        let mut rng = Rng::new(5);
        let mut covered = 0;
        let runs = 200;
        for i in 0..runs {
            let truth = draw_truth(RANGE, &mut rng);
            // Eight participants sharing one function, pooled.
            let trials: Vec<(f64, bool)> = (0..8)
                .flat_map(|_| {
                    run(Procedure::Staircase(Rule::default()), RANGE, &truth, &mut rng).trials().to_vec()
                })
                .collect();
            let f = psychometric::fit_with_ci_n(Shape::Logistic, &points(&trials), i, 100).unwrap();
            covered += usize::from(f.alpha_ci.0 <= truth.alpha && truth.alpha <= f.alpha_ci.1);
        }
        assert!((180..=196).contains(&covered), "covered {covered} of {runs}");
    }
}
