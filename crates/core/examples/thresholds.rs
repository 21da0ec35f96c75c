//! How well the threshold procedures recover a simulated observer's
//! threshold, and in how many trials: 200 seeded experiments per row, each
//! a simulated participant (logistic, threshold log-uniform over 30–333 ms
//! of extra TTFT, slope 1.5–5, lapse 0–4%) over a 10–1000 ms range.
//!
//! ```sh
//! cargo run --release -p lab-core --example thresholds
//! ```
//!
//! - **coverage**: share of experiments whose 95% interval holds the true
//!   threshold (Psi: its credible interval per participant; staircase: a
//!   pooled fit of 8 participants with bootstrap interval).
//! - **error**: median |log(estimate / truth)| as a percent (the
//!   staircase's own estimate is compared with the level of its target,
//!   70.7% correct).
//!
//! A second table times what the Results view computes on every change of
//! the answers (`analysis::summarize`: each participant's procedure
//! replayed, the pooled fit and its 200 bootstrap refits), natively.

use lab_core::replay::rng::Rng;
use lab_core::study::threshold::analysis::summarize;
use lab_core::study::threshold::design::{Dimension, ThresholdDesign};
use lab_core::study::threshold::psychometric::{Shape, fit_with_ci, points};
use lab_core::study::threshold::simulate::{draw_truth, recorded, run};
use lab_core::study::threshold::staircase::Rule;
use lab_core::study::threshold::{Adaptive, Procedure};

const RANGE: (f64, f64) = (10.0, 1000.0);
const RUNS: usize = 200;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    println!(
        "| procedure | trials per participant (median, max) | coverage of the 95% interval | median error of the estimate |"
    );
    println!("|---|---|---|---|");
    for trials in [30, 50, 80] {
        let mut rng = Rng::new(2026);
        let (mut covered, mut errors) = (0, Vec::new());
        for _ in 0..RUNS {
            let truth = draw_truth(RANGE, &mut rng);
            let a = run(Procedure::Psi { trials }, RANGE, &truth, &mut rng);
            let Some((t, Some((lo, hi)))) = a.threshold() else { continue };
            covered += usize::from(lo <= truth.alpha && truth.alpha <= hi);
            errors.push((t / truth.alpha).ln().abs() * 100.0);
        }
        println!(
            "| Psi, {trials} trials | {trials}, {trials} | {:.1}% | {:.0}% |",
            covered as f64 * 100.0 / RUNS as f64,
            median(errors)
        );
    }
    let rule = Rule::default();
    let mut rng = Rng::new(2026);
    let (mut covered, mut errors, mut lengths) = (0, Vec::new(), Vec::new());
    for i in 0..RUNS {
        let truth = draw_truth(RANGE, &mut rng);
        let people: Vec<Adaptive> =
            (0..8).map(|_| run(Procedure::Staircase(rule), RANGE, &truth, &mut rng)).collect();
        let target = truth.level_at(rule.target()).unwrap_or(truth.alpha);
        for a in &people {
            lengths.push(a.trials().len() as f64);
            if let Some((t, _)) = a.threshold() {
                errors.push((t / target).ln().abs() * 100.0);
            }
        }
        let trials: Vec<(f64, bool)> = people.iter().flat_map(|a| a.trials().to_vec()).collect();
        if let Some(f) = fit_with_ci(Shape::Logistic, &points(&trials), i as u64) {
            covered += usize::from(f.alpha_ci.0 <= truth.alpha && truth.alpha <= f.alpha_ci.1);
        }
    }
    println!(
        "| 2-down-1-up staircase, 12 reversals | {:.0}, {:.0} | {:.1}% (pooled fit of 8) | {:.0}% |",
        median(lengths.clone()),
        lengths.iter().copied().fold(0.0, f64::max),
        covered as f64 * 100.0 / RUNS as f64,
        median(errors)
    );
    println!();
    summarize_cost();
}

/// Times `summarize` over simulated studies of 1 to 40 participants.
fn summarize_cost() {
    println!("| procedure | participants | answers | summarize, best of 5 |");
    println!("|---|---:|---:|---:|");
    for procedure in [Procedure::Staircase(Rule::default()), Procedure::Psi { trials: 40 }] {
        let design = ThresholdDesign {
            procedure,
            ..ThresholdDesign::new(Dimension::Ttft, "ttft=200,tpot=30,tokens=40".into(), 1)
        };
        for people in [1u32, 10, 40] {
            let mut rng = Rng::new(u64::from(people));
            let mut trials = Vec::new();
            for p in 0..people {
                let truth = draw_truth(RANGE, &mut rng);
                let a = run(procedure, design.range, &truth, &mut rng);
                trials.extend(recorded(&design, p, &a));
            }
            let best = (0..5)
                .map(|_| {
                    let t = std::time::Instant::now();
                    std::hint::black_box(summarize(&design, &trials, 1));
                    t.elapsed().as_secs_f64() * 1000.0
                })
                .fold(f64::INFINITY, f64::min);
            let name =
                if matches!(procedure, Procedure::Psi { .. }) { "Psi, 40" } else { "staircase 2-down-1-up" };
            println!("| {name} | {people} | {} | {best:.1} ms |", trials.len());
        }
    }
}
