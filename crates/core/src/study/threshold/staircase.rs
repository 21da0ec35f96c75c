//! A transformed N-down-1-up staircase (Levitt 1971): after `down`
//! correct answers in a row the test level moves closer to the reference
//! (harder), after one wrong answer it moves away (easier). It settles
//! where a run of `down` correct answers is as likely as not,
//! P(correct)^down = ½: 2-down-1-up at **70.7%** correct, 3-down-1-up at
//! 79.4% ([`Rule::target`]).
//!
//! Steps are in log units (the level is multiplied or divided by a
//! factor): [`Rule::first_step`] until the second reversal, then
//! [`Rule::step`]. A **reversal** is a trial where the direction changes.
//! The staircase stops after [`Rule::reversals`] reversals or
//! [`Rule::max_trials`] trials; its **threshold** is the geometric mean of
//! the levels of the last [`Rule::average`] reversals.
//!
//! Levels lie on the design's **grid**, `start × step^k` for whole k: when
//! the first step is a whole number of steps (×2 = (2^⅓)³), the staircase
//! counts k instead of multiplying, so a level reached by different paths
//! is the same number (exports write it one way); k stays where its level
//! is inside the range. Other rules multiply, rounded to 12 digits.

use serde::{Deserialize, Serialize};

/// The staircase's rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Correct answers in a row that make it harder.
    pub down: u32,
    /// Factor per step until the second reversal.
    pub first_step: f64,
    /// Factor per step after it.
    pub step: f64,
    /// Reversals that end the staircase.
    pub reversals: u32,
    /// Last reversals averaged into the threshold.
    pub average: u32,
    /// Most trials.
    pub max_trials: u32,
}

impl Default for Rule {
    /// 2-down-1-up, steps ×2 then ×1.26 (2^⅓), 12 reversals, the last 8
    /// averaged, at most 80 trials.
    fn default() -> Self {
        Self {
            down: 2,
            first_step: 2.0,
            step: 2f64.powf(1.0 / 3.0),
            reversals: 12,
            average: 8,
            max_trials: 80,
        }
    }
}

impl Rule {
    /// The percent correct it converges to: 0.5^(1/down).
    pub fn target(&self) -> f64 {
        0.5f64.powf(1.0 / f64::from(self.down.max(1)))
    }
}

/// One staircase in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Staircase {
    /// Its rule.
    pub rule: Rule,
    /// Lowest and highest level it may present.
    pub range: (f64, f64),
    /// Trials so far: level and whether the answer was correct.
    pub trials: Vec<(f64, bool)>,
    /// Levels at the reversals.
    pub reversal_levels: Vec<f64>,
    level: f64,
    /// The first level (the grid's origin; 0 when unknown).
    #[serde(default)]
    start: f64,
    /// The level's place on the grid, in steps from `start`.
    #[serde(default)]
    pos: i64,
    /// Answers of one kind in a row since the last step.
    run: u32,
    run_correct: bool,
    last_direction: i8,
}

impl Staircase {
    /// A staircase starting at `start` within `range`.
    pub fn new(rule: Rule, range: (f64, f64), start: f64) -> Self {
        Self {
            rule,
            range,
            trials: Vec::new(),
            reversal_levels: Vec::new(),
            level: start.clamp(range.0, range.1),
            start: start.clamp(range.0, range.1),
            pos: 0,
            run: 0,
            run_correct: true,
            last_direction: 0,
        }
    }

    /// Whether it has stopped.
    pub fn done(&self) -> bool {
        self.reversal_levels.len() as u32 >= self.rule.reversals
            || self.trials.len() as u32 >= self.rule.max_trials
    }

    /// The level of the next trial (`None` once done).
    pub fn next_level(&self) -> Option<f64> {
        (!self.done()).then_some(self.level)
    }

    /// Records the answer to the trial at the current level.
    pub fn record(&mut self, correct: bool) {
        if self.done() {
            return;
        }
        self.trials.push((self.level, correct));
        self.run = if self.run > 0 && self.run_correct == correct { self.run + 1 } else { 1 };
        self.run_correct = correct;
        let direction: i8 = if correct && self.run >= self.rule.down {
            -1
        } else if !correct {
            1
        } else {
            return;
        };
        if self.last_direction != 0 && direction != self.last_direction {
            self.reversal_levels.push(self.level);
        }
        self.last_direction = direction;
        let first = self.reversal_levels.len() < 2;
        self.level = match self.steps_per_first() {
            Some(k) => {
                let by = if first { k } else { 1 };
                self.pos = self.clamp_pos(self.pos + if direction < 0 { -by } else { by });
                self.grid(self.pos).clamp(self.range.0, self.range.1)
            }
            None => {
                let factor = if first { self.rule.first_step } else { self.rule.step };
                let next = if direction < 0 { self.level / factor } else { self.level * factor };
                super::psychometric::snap(next).clamp(self.range.0, self.range.1)
            }
        };
        self.run = 0;
    }

    /// How many steps the first step is, when a whole number (and the grid's
    /// origin is known).
    fn steps_per_first(&self) -> Option<i64> {
        let r = self.rule.first_step.ln() / self.rule.step.ln();
        let k = r.round();
        (self.start > 0.0 && self.rule.step > 1.0 && k >= 1.0 && (r - k).abs() < 1e-9).then_some(k as i64)
    }

    /// The level `pos` steps from the start.
    fn grid(&self, pos: i64) -> f64 {
        super::psychometric::snap(self.start * (pos as f64 * self.rule.step.ln()).exp())
    }

    /// `pos`, kept where its level is inside the range.
    fn clamp_pos(&self, pos: i64) -> i64 {
        let at = |bound: f64| (bound / self.start).ln() / self.rule.step.ln();
        let (lo, hi) = ((at(self.range.0) - 1e-9).ceil() as i64, (at(self.range.1) + 1e-9).floor() as i64);
        pos.clamp(lo.min(0), hi.max(0))
    }

    /// Geometric mean of the last [`Rule::average`] reversal levels
    /// (`None` before that many reversals).
    pub fn threshold(&self) -> Option<f64> {
        let k = self.rule.average as usize;
        if self.reversal_levels.len() < k || k == 0 {
            return None;
        }
        let last = &self.reversal_levels[self.reversal_levels.len() - k..];
        Some((last.iter().map(|l| l.ln()).sum::<f64>() / k as f64).exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_of_the_usual_rules() {
        assert!((Rule::default().target() - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        let three = Rule { down: 3, ..Rule::default() };
        assert!((three.target() - 0.7937).abs() < 1e-4);
    }

    #[test]
    fn two_right_go_down_one_wrong_goes_up_and_turns_are_reversals() {
        let mut s = Staircase::new(Rule::default(), (1.0, 1000.0), 400.0);
        s.record(true);
        assert_eq!(s.next_level(), Some(400.0), "one correct answer is not enough");
        s.record(true);
        assert_eq!(s.next_level(), Some(200.0));
        s.record(false);
        assert_eq!(s.next_level(), Some(400.0));
        assert_eq!(s.reversal_levels, [200.0]);
        s.record(true);
        s.record(true);
        assert_eq!(s.reversal_levels, [200.0, 400.0]);
        let small = 2f64.powf(1.0 / 3.0);
        assert!(
            (s.next_level().unwrap() - 400.0 / small).abs() < 1e-9,
            "×2 until the second reversal, then ×2^⅓"
        );
        s.record(false);
        assert_eq!(s.next_level(), Some(400.0), "back on the grid point, not 400.00000000000006");
        assert_eq!(s.reversal_levels.len(), 3);
        assert_eq!(s.threshold(), None, "not enough reversals yet");
        let mut low = Staircase::new(Rule::default(), (10.0, 1000.0), 10.0);
        low.record(true);
        low.record(true);
        assert_eq!(low.next_level(), Some(10.0), "clamped to the range");
    }

    #[test]
    fn the_threshold_is_the_geometric_mean_of_the_last_reversals() {
        // Steps ×2 throughout, 4 reversals, the last 3 averaged. From 100:
        // ✓✓ → 50, ✗ (reversal at 50) → 100, ✓✓ (reversal at 100) → 50,
        // ✗ (reversal at 50) → 100, ✓✓ (reversal at 100): done.
        let rule = Rule { down: 2, first_step: 2.0, step: 2.0, reversals: 4, average: 3, max_trials: 80 };
        let mut s = Staircase::new(rule, (1.0, 1000.0), 100.0);
        for answer in [true, true, false, true, true, false, true, true] {
            assert!(!s.done());
            s.record(answer);
        }
        assert!(s.done());
        assert_eq!(s.reversal_levels, [50.0, 100.0, 50.0, 100.0]);
        // ∛(100 · 50 · 100) = 79.37: not the arithmetic mean (83.3), not
        // the mean of all four (70.7).
        let t = s.threshold().unwrap();
        assert!((t - 500_000f64.cbrt()).abs() < 1e-9, "{t}");
        assert_eq!(s.next_level(), None);
    }

    #[test]
    fn the_same_level_reached_two_ways_is_one_number() {
        // The walk of 2026-12-04: a CSV with both 62.49999999999999 and 62.5.
        // From 500: ÷2, ×2, then steps of 2^⅓: three down reach 250 exactly (as
        // ÷2 would), and three more 125.
        let mut s = Staircase::new(Rule::default(), (1.0, 1000.0), 500.0);
        let mut answers =
            vec![true, true, false, true, true, true, true, false, true, true, true, true, true, true];
        answers.extend([true; 6]);
        for answer in answers {
            s.record(answer);
        }
        let levels: Vec<f64> = s.trials.iter().map(|t| t.0).collect();
        for l in &levels {
            let text = l.to_string();
            assert!(text.len() <= 18 && !text.contains("99999") && !text.contains("00000"), "{levels:?}");
        }
        assert!(levels.contains(&250.0) && levels.contains(&125.0), "{levels:?}");
        // Without the grid, 2^⅓ three times over lands next to the level.
        let drifted = 500.0 / 2f64.powf(1.0 / 3.0) / 2f64.powf(1.0 / 3.0) / 2f64.powf(1.0 / 3.0);
        assert_ne!(drifted, 250.0, "the drift this guards against");
        // Any path: levels that are equal to 1e-9 are the same number. The
        // e2e of 2026-12-04 exported both 158.740105197 and 158.740105196.
        let mut rng = crate::replay::rng::Rng::new(3);
        let mut seen: Vec<f64> = Vec::new();
        for _ in 0..200 {
            let mut s = Staircase::new(Rule::default(), (20.0, 800.0), 800.0);
            while !s.done() {
                s.record(rng.uniform() < 0.7);
            }
            seen.extend(s.trials.iter().map(|t| t.0));
        }
        for a in &seen {
            for b in &seen {
                assert!(a == b || (a - b).abs() > 1e-9 * a, "{a} and {b} are one level written two ways");
            }
        }
    }
}
