//! The trials of one participant.
//!
//! - Rating block (when the study has rating questions): each condition
//!   `repetitions` times.
//! - Choice block (when it has choice questions): each pair of conditions in
//!   both placements (A/B and B/A), `repetitions` times.
//! - Rating trials come first, then choice trials.
//!
//! Order within a block:
//! - `Random { seed }`: a Fisher–Yates shuffle driven by the lab's seeded
//!   generator, seeded with `seed` mixed with the participant number:
//!   reproducible per participant, different between participants.
//! - `LatinSquare`: rating trials follow row `(p + r) mod rows` of a
//!   balanced Latin square (Williams design: n rows for even n, 2n for odd
//!   n) in repetition r, so across a full cycle of participants every
//!   condition is shown equally often at every position, and each condition
//!   follows each other one equally often. Choice trials are rotated by the
//!   participant number.

use serde::{Deserialize, Serialize};

use super::{Order, Question, Study};
use crate::replay::rng::Rng;

/// Which block a trial belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Block {
    /// One condition, rating questions.
    Rating,
    /// Two conditions, choice questions.
    Choice,
}

/// One trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// Position in the participant's session (0-based).
    pub index: usize,
    /// Block.
    pub block: Block,
    /// Condition ids: one (rating), or two (choice: A then B); in a
    /// threshold study `reference` and `test` in their placement.
    pub conditions: Vec<String>,
    /// A threshold study's level in this trial (the test's difference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
}

/// A balanced Latin square of `n` conditions (Williams design): `n` rows for
/// even `n`, `2n` for odd `n` (each row followed by its mirror).
pub fn williams(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return Vec::new();
    }
    // First row: 0, 1, n−1, 2, n−2, …
    let mut first = Vec::with_capacity(n);
    let (mut lo, mut hi) = (1usize, n - 1);
    first.push(0);
    for k in 1..n {
        if k % 2 == 1 {
            first.push(lo);
            lo += 1;
        } else {
            first.push(hi);
            hi -= 1;
        }
    }
    let mut rows: Vec<Vec<usize>> = (0..n).map(|i| first.iter().map(|c| (c + i) % n).collect()).collect();
    if n % 2 == 1 {
        let mirrored: Vec<Vec<usize>> = rows.iter().map(|r| r.iter().rev().copied().collect()).collect();
        rows.extend(mirrored);
    }
    rows
}

/// Rows of the Latin square used for `n` conditions (the participant cycle).
pub fn cycle_len(n: usize) -> usize {
    williams(n).len()
}

fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
}

fn mix(seed: u64, participant: u32, block: u64) -> u64 {
    seed ^ (u64::from(participant).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        ^ block.wrapping_mul(0xD1B5_4A32_D192_ED03)
}

/// The trials of participant `participant` (0-based).
///
/// A threshold study has no fixed plan: its trials are chosen one at a
/// time by its procedure ([`super::threshold::in_study`]); this gives none.
pub fn plan(study: &Study, participant: u32) -> Vec<Trial> {
    if study.threshold.is_some() {
        return Vec::new();
    }
    let n = study.conditions.len();
    let ids: Vec<String> = study.conditions.iter().map(|c| c.id.clone()).collect();
    let has_rating = study.questions.iter().any(|q| matches!(q, Question::Rating { .. }));
    let has_choice = study.questions.iter().any(|q| matches!(q, Question::Choice { .. }));
    let reps = study.repetitions as usize;
    let mut trials: Vec<(Block, Vec<String>)> = Vec::new();
    if has_rating && n > 0 {
        let order: Vec<usize> = match study.order {
            Order::LatinSquare => {
                let rows = williams(n);
                (0..reps).flat_map(|r| rows[(participant as usize + r) % rows.len()].clone()).collect()
            }
            Order::Random { seed } => {
                let mut all: Vec<usize> = (0..reps).flat_map(|_| 0..n).collect();
                shuffle(&mut all, &mut Rng::new(mix(seed, participant, 1)));
                all
            }
        };
        trials.extend(order.into_iter().map(|c| (Block::Rating, vec![ids[c].clone()])));
    }
    if has_choice && n > 1 {
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for _ in 0..reps {
            for a in 0..n {
                for b in 0..n {
                    if a != b {
                        pairs.push((a, b));
                    }
                }
            }
        }
        match study.order {
            Order::LatinSquare => {
                let len = pairs.len();
                pairs.rotate_left(participant as usize % len);
            }
            Order::Random { seed } => shuffle(&mut pairs, &mut Rng::new(mix(seed, participant, 2))),
        }
        trials.extend(pairs.into_iter().map(|(a, b)| (Block::Choice, vec![ids[a].clone(), ids[b].clone()])));
    }
    trials
        .into_iter()
        .enumerate()
        .map(|(index, (block, conditions))| Trial { index, block, conditions, level: None })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::{Condition, ConditionSource, STUDY_SCHEMA_VERSION};

    fn study(n: usize, order: Order, reps: u32) -> Study {
        Study {
            schema_version: STUDY_SCHEMA_VERSION,
            id: "s".into(),
            title: "t".into(),
            instructions: String::new(),
            consent: None,
            text: "chat".into(),
            conditions: (0..n)
                .map(|i| Condition {
                    id: format!("c{i}"),
                    name: format!("n{i}"),
                    source: ConditionSource::Profile("fast-start".into()),
                    smoothing: crate::replay::smooth::Smoothing::Off,
                })
                .collect(),
            questions: Study::example().questions,
            repetitions: reps,
            order,
            threshold: None,
        }
    }

    #[test]
    fn latin_square_balances_positions_and_carryover() {
        for n in 2..=7 {
            let rows = williams(n);
            assert_eq!(rows.len(), if n % 2 == 0 { n } else { 2 * n });
            // Each row is a permutation.
            for r in &rows {
                let mut s = r.clone();
                s.sort_unstable();
                assert_eq!(s, (0..n).collect::<Vec<_>>());
            }
            // Every condition equally often at every position.
            for pos in 0..n {
                let mut count = vec![0; n];
                for r in &rows {
                    count[r[pos]] += 1;
                }
                assert!(count.iter().all(|&c| c == rows.len() / n), "n {n} pos {pos}: {count:?}");
            }
            // Every ordered pair (a then b) equally often as neighbours.
            let mut follow = vec![vec![0; n]; n];
            for r in &rows {
                for w in r.windows(2) {
                    follow[w[0]][w[1]] += 1;
                }
            }
            let want = follow[0][1];
            for (a, row) in follow.iter().enumerate() {
                for (b, &f) in row.iter().enumerate() {
                    if a != b {
                        assert_eq!(f, want, "n {n}: {a}→{b}");
                    }
                }
            }
        }
    }

    #[test]
    fn participants_over_a_cycle_see_each_condition_equally_often_per_position() {
        for n in [3, 4] {
            let s = study(n, Order::LatinSquare, 2);
            let cycle = cycle_len(n) as u32;
            let mut count = vec![vec![0; n]; n * 2];
            for p in 0..cycle {
                let rating: Vec<Trial> =
                    plan(&s, p).into_iter().filter(|t| t.block == Block::Rating).collect();
                assert_eq!(rating.len(), n * 2);
                for (pos, t) in rating.iter().enumerate() {
                    let c: usize = t.conditions[0][1..].parse().unwrap();
                    count[pos][c] += 1;
                }
            }
            for (pos, c) in count.iter().enumerate() {
                assert!(c.iter().all(|&x| x == c[0]), "n {n} position {pos}: {c:?}");
            }
        }
    }

    #[test]
    fn choice_block_has_every_pair_in_both_placements() {
        let s = study(3, Order::Random { seed: 7 }, 1);
        let t = plan(&s, 0);
        let choice: Vec<&Trial> = t.iter().filter(|t| t.block == Block::Choice).collect();
        assert_eq!(choice.len(), 6);
        for a in 0..3 {
            for b in 0..3 {
                if a != b {
                    let pair = vec![format!("c{a}"), format!("c{b}")];
                    assert_eq!(choice.iter().filter(|t| t.conditions == pair).count(), 1);
                }
            }
        }
        assert!(t.iter().take(3).all(|t| t.block == Block::Rating), "ratings first");
        assert_eq!(t.iter().map(|t| t.index).collect::<Vec<_>>(), (0..9).collect::<Vec<_>>());
    }

    #[test]
    fn seeded_orders_are_reproducible_and_differ_between_participants() {
        let s = study(5, Order::Random { seed: 42 }, 2);
        assert_eq!(plan(&s, 3), plan(&s, 3));
        assert_ne!(plan(&s, 3), plan(&s, 4));
        let other = study(5, Order::Random { seed: 43 }, 2);
        assert_ne!(plan(&s, 3), plan(&other, 3));
        // Random order still shows each condition `repetitions` times.
        let rating: Vec<String> = plan(&s, 1)
            .into_iter()
            .filter(|t| t.block == Block::Rating)
            .map(|t| t.conditions[0].clone())
            .collect();
        for c in 0..5 {
            assert_eq!(rating.iter().filter(|x| **x == format!("c{c}")).count(), 2);
        }
    }
}
