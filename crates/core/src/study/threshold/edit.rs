//! Designing a threshold study: the designer's edits as methods (the form
//! only shows fields and calls them) and what a participant will see, in
//! words. Like the other designer edits these never validate;
//! [`crate::study::Study::validate`] says what is wrong.

use super::Procedure;
use super::design::{Dimension, ThresholdDesign};
use super::in_study::QUESTION;
use super::staircase::Rule;
use crate::study::{Question, Study};

/// The reference a new threshold study starts from.
pub const NEW_REFERENCE: &str = "ttft=200,tpot=30,jitter=constant,tokens=40";

/// Trials a Psi procedure starts with.
pub const NEW_PSI_TRIALS: u32 = 40;

/// `n` in base 36 (lower case), at most 6 digits: a short, readable id part.
fn base36(n: u64) -> String {
    let mut n = n % 36u64.pow(6);
    let mut digits = Vec::new();
    loop {
        digits.push(char::from_digit((n % 36) as u32, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().collect()
}

impl Study {
    /// `threshold` or `comparison`.
    pub fn kind(&self) -> &'static str {
        if self.is_threshold() { "threshold" } else { "comparison" }
    }

    /// Turns the study into a new study of the other kind: a threshold
    /// study (a TTFT one, 2-down-1-up) or a comparison of conditions (the
    /// example's conditions and questions), with that kind's title and
    /// instructions and an id of its own (`<kind's id>-<seed in base 36>`),
    /// so it is never taken for the study it replaced; text and consent
    /// stay.
    pub fn set_kind(&mut self, kind: &str, seed: u64) {
        if kind == self.kind() {
            return;
        }
        let mut next = if kind == "threshold" {
            Study::new_threshold(ThresholdDesign::new(Dimension::Ttft, NEW_REFERENCE.into(), seed))
        } else {
            Study::example()
        };
        next.id = format!("{}-{}", next.id, base36(seed));
        next.text.clone_from(&self.text);
        next.consent.clone_from(&self.consent);
        *self = next;
    }

    /// Changes the threshold design (no-op for other studies).
    pub fn edit_threshold(&mut self, f: impl FnOnce(&mut ThresholdDesign)) {
        if let Some(d) = &mut self.threshold {
            f(d);
        }
    }

    /// Another dimension: its default range, and the question that suits
    /// it ("faster" or "smoother") when the question was the default one.
    pub fn set_dimension(&mut self, dimension: Dimension) {
        let Some(d) = &mut self.threshold else { return };
        let was = d.dimension.question();
        d.dimension = dimension;
        d.range = dimension.default_range();
        for q in &mut self.questions {
            if q.prompt() == was {
                q.set_prompt(dimension.question().into());
            }
        }
        if self.questions.is_empty() {
            self.questions
                .push(Question::Choice { id: QUESTION.into(), prompt: dimension.question().into() });
        }
    }

    /// What each participant of a threshold study will see, in one
    /// sentence (`None` while it is invalid or not a threshold study).
    pub fn threshold_summary(&self) -> Option<String> {
        let d = self.threshold.as_ref()?;
        self.validate().ok()?;
        let how = match d.procedure {
            Procedure::Staircase(r) => format!(
                "a {}-down-1-up staircase (converging where {:.1}% pick the reference) until {} reversals",
                r.down,
                100.0 * r.target(),
                r.reversals
            ),
            Procedure::Psi { .. } => "the Psi method (each level the most informative next one)".into(),
        };
        Some(format!(
            "Each participant sees up to {} pairs: the reference against it with {} of {}–{} {}, chosen by {how}; the reference's side is drawn per pair.",
            d.max_trials(),
            d.dimension.what(),
            d.range.0,
            d.range.1,
            d.dimension.unit()
        ))
    }
}

impl ThresholdDesign {
    /// `staircase` or `psi`.
    pub fn procedure_kind(&self) -> &'static str {
        match self.procedure {
            Procedure::Staircase(_) => "staircase",
            Procedure::Psi { .. } => "psi",
        }
    }

    /// Switches the procedure, with its defaults.
    pub fn set_procedure_kind(&mut self, kind: &str) {
        if kind == self.procedure_kind() {
            return;
        }
        self.procedure = if kind == "psi" {
            Procedure::Psi { trials: NEW_PSI_TRIALS }
        } else {
            Procedure::Staircase(Rule::default())
        };
    }

    /// Changes the staircase's rule (no-op for Psi).
    pub fn edit_rule(&mut self, f: impl FnOnce(&mut Rule)) {
        if let Procedure::Staircase(r) = &mut self.procedure {
            f(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_study_turns_into_a_threshold_study_and_back() {
        let mut s = Study::example();
        s.title = "mine".into();
        s.set_kind("threshold", 4);
        // A new study of the other kind: its own title and id, never the one it replaced.
        assert_eq!(
            (s.kind(), s.title.as_str(), s.id.as_str()),
            ("threshold", "Which one felt faster?", "ttft-threshold-4")
        );
        assert_eq!(base36(36 * 36 + 35), "10z");
        s.validate().unwrap();
        assert!(s.threshold_summary().unwrap().starts_with("Each participant sees up to 80 pairs"));
        s.set_dimension(Dimension::Jitter);
        assert_eq!(s.questions[0].prompt(), "Which one felt smoother?");
        assert_eq!(s.threshold.as_ref().unwrap().range, (0.05, 2.0));
        s.validate().unwrap();
        s.edit_threshold(|d| d.set_procedure_kind("psi"));
        assert!(s.threshold_summary().unwrap().contains("Psi method"));
        s.edit_threshold(|d| d.edit_rule(|r| r.down = 9));
        s.validate().unwrap();
        s.edit_threshold(|d| {
            d.set_procedure_kind("staircase");
            d.edit_rule(|r| r.down = 9);
        });
        assert!(s.validate().is_err() && s.threshold_summary().is_none());
        s.set_kind("comparison", 71);
        assert_eq!((s.kind(), s.conditions.len(), s.id.as_str()), ("comparison", 3, "ttft-vs-jitter-1z"));
        assert_eq!(s.title, Study::example().title);
        s.validate().unwrap();
    }
}
