//! Editing a study in the designer: every change a researcher makes, as a
//! method, so the designer's form only shows fields and calls them. Edits
//! never validate (a study may be invalid while it is being typed);
//! [`Study::validate`] says what is wrong, and [`Study::plan_summary`] what
//! a participant will see once it is right.

use super::plan::{Block, plan};
use super::{Condition, ConditionSource, MAX_CONDITIONS, Order, Question, Study};
use crate::replay::smooth::Smoothing;
use crate::trace::RequestTrace;

/// The consent text a study starts with when consent is switched on.
pub const DEFAULT_CONSENT: &str = "I agree that my answers are recorded anonymously.";
/// The profile a new condition starts with.
pub const NEW_CONDITION_SPEC: &str = "ttft=500,tpot=30,tokens=60";

impl Study {
    /// The first id `<prefix>1`, `<prefix>2`… not used by a condition or a
    /// question.
    pub fn next_id(&self, prefix: &str) -> String {
        (1..)
            .map(|i| format!("{prefix}{i}"))
            .find(|id| {
                !self.conditions.iter().any(|c| &c.id == id) && !self.questions.iter().any(|q| q.id() == id)
            })
            .unwrap_or_default()
    }

    /// Sets the id from what was typed: letters, digits, `-` and `_` kept.
    pub fn set_id_typed(&mut self, typed: &str) {
        self.id =
            typed.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    }

    /// Asks for consent (with the text given before, or the default), or not.
    pub fn set_consent(&mut self, on: bool) {
        self.consent = on.then(|| self.consent.clone().unwrap_or_else(|| DEFAULT_CONSENT.into()));
    }

    /// The order's kind: `latin` or `random`.
    pub fn order_kind(&self) -> &'static str {
        match self.order {
            Order::LatinSquare => "latin",
            Order::Random { .. } => "random",
        }
    }

    /// Orders trials by a balanced Latin square, or at random (seed 1).
    pub fn set_order_kind(&mut self, kind: &str) {
        self.order = if kind == "random" { Order::Random { seed: 1 } } else { Order::LatinSquare };
    }

    /// One more profile condition (up to [`MAX_CONDITIONS`]).
    pub fn add_condition(&mut self) {
        if self.conditions.len() < MAX_CONDITIONS {
            let id = self.next_id("c");
            let name = format!("condition {id}");
            self.conditions.push(Condition {
                id,
                name,
                source: ConditionSource::Profile(NEW_CONDITION_SPEC.into()),
                smoothing: Smoothing::Off,
            });
        }
    }

    /// A condition that replays a recorded request (up to
    /// [`MAX_CONDITIONS`]).
    pub fn add_recorded(&mut self, name: String, request: RequestTrace) {
        if self.conditions.len() < MAX_CONDITIONS {
            let id = self.next_id("c");
            self.conditions.push(Condition {
                id,
                name,
                source: ConditionSource::Recorded(Box::new(request)),
                smoothing: Smoothing::Off,
            });
        }
    }

    /// Condition `i`'s profile from a preset (named after it when it had no
    /// name).
    pub fn use_preset(&mut self, i: usize, preset: &str) {
        let Some(p) = crate::replay::profile::preset(preset) else { return };
        if let Some(c) = self.conditions.get_mut(i) {
            c.source = ConditionSource::Profile(p.to_string());
            if c.name.is_empty() {
                c.name = preset.to_string();
            }
        }
    }

    /// Removes condition `i` (no-op past the end).
    pub fn remove_condition(&mut self, i: usize) {
        if i < self.conditions.len() {
            self.conditions.remove(i);
        }
    }

    /// One more rating question (a 7-point "how responsive" scale).
    pub fn add_rating_question(&mut self) {
        let id = self.next_id("q");
        self.questions.push(Question::Rating {
            id,
            prompt: "How responsive did this answer feel?".into(),
            points: 7,
            low: "very sluggish".into(),
            high: "very responsive".into(),
        });
    }

    /// One more A/B question ("which felt faster?").
    pub fn add_choice_question(&mut self) {
        let id = self.next_id("q");
        self.questions.push(Question::Choice { id, prompt: "Which one felt faster?".into() });
    }

    /// Removes question `i` (no-op past the end).
    pub fn remove_question(&mut self, i: usize) {
        if i < self.questions.len() {
            self.questions.remove(i);
        }
    }

    /// What each participant will see, in one sentence; `None` while the
    /// study is invalid.
    pub fn plan_summary(&self) -> Option<String> {
        if self.is_threshold() {
            return self.threshold_summary();
        }
        self.validate().ok()?;
        let p = plan(self, 0);
        let rating = p.iter().filter(|t| t.block == Block::Rating).count();
        Some(format!(
            "Each participant sees {} trial(s): {} single sample(s) to rate and {} A/B pair(s).",
            p.len(),
            rating,
            p.len() - rating
        ))
    }
}

/// A rating question's part a person edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatingPart {
    /// The label of 1.
    Low,
    /// The label of the top point.
    High,
}

impl Question {
    /// Sets what it asks.
    pub fn set_prompt(&mut self, text: String) {
        match self {
            Self::Rating { prompt, .. } | Self::Choice { prompt, .. } => *prompt = text,
        }
    }

    /// Sets a rating question's number of points (no-op for a choice).
    pub fn set_points(&mut self, n: u8) {
        if let Self::Rating { points, .. } = self {
            *points = n;
        }
    }

    /// Sets a rating question's end label (no-op for a choice).
    pub fn set_label(&mut self, part: RatingPart, text: String) {
        if let Self::Rating { low, high, .. } = self {
            *match part {
                RatingPart::Low => low,
                RatingPart::High => high,
            } = text;
        }
    }
}

impl Condition {
    /// Its profile spec (empty for a recorded request).
    pub fn spec(&self) -> &str {
        match &self.source {
            ConditionSource::Profile(s) => s,
            ConditionSource::Recorded(_) => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_keep_ids_unique_and_limits_held() {
        let mut s = Study::example();
        assert_eq!(s.next_id("c"), "c4");
        s.add_condition();
        assert_eq!((s.conditions[3].id.as_str(), s.conditions[3].spec()), ("c4", NEW_CONDITION_SPEC));
        s.remove_condition(1);
        assert_eq!(s.next_id("c"), "c2", "a freed id is reused");
        s.remove_condition(99);
        assert_eq!(s.conditions.len(), 3);
        while s.conditions.len() < MAX_CONDITIONS {
            s.add_condition();
        }
        s.add_condition();
        s.add_recorded("rec".into(), RequestTrace::default());
        assert_eq!(s.conditions.len(), MAX_CONDITIONS, "never more than the maximum");
        s.add_rating_question();
        s.add_choice_question();
        assert_eq!(
            s.questions.iter().map(Question::id).collect::<Vec<_>>(),
            ["responsive", "faster", "q1", "q2"]
        );
        s.remove_question(0);
        assert_eq!(s.questions.len(), 3);
        let q = &mut s.questions[1];
        q.set_prompt("Faster?".into());
        q.set_points(5);
        q.set_label(RatingPart::High, "quick".into());
        assert_eq!(q.prompt(), "Faster?");
        assert!(matches!(q, Question::Rating { points: 5, high, .. } if high == "quick"));
        let mut choice = Question::Choice { id: "x".into(), prompt: "a".into() };
        choice.set_points(5);
        choice.set_label(RatingPart::Low, "slow".into());
        assert_eq!(
            choice,
            Question::Choice { id: "x".into(), prompt: "a".into() },
            "a choice has no points or labels"
        );
    }

    #[test]
    fn fields_from_what_was_typed() {
        let mut s = Study::example();
        s.set_id_typed("  my study/2026 ü_x ");
        assert_eq!(s.id, "mystudy2026_x");
        s.set_consent(false);
        assert_eq!(s.consent, None);
        s.set_consent(true);
        assert_eq!(s.consent.as_deref(), Some(DEFAULT_CONSENT));
        s.set_order_kind("random");
        assert_eq!((s.order, s.order_kind()), (Order::Random { seed: 1 }, "random"));
        s.set_order_kind("latin");
        assert_eq!(s.order_kind(), "latin");
        s.conditions[0].name.clear();
        s.use_preset(0, "fast-start");
        assert_eq!(s.conditions[0].name, "fast-start");
        assert!(s.conditions[0].profile().unwrap().is_some());
        s.use_preset(0, "no-such-preset");
        assert_eq!(s.conditions[0].name, "fast-start");
    }

    #[test]
    fn plan_summary_counts_trials_or_says_nothing() {
        let mut s = Study::example();
        assert_eq!(
            s.plan_summary().as_deref(),
            Some("Each participant sees 9 trial(s): 3 single sample(s) to rate and 6 A/B pair(s).")
        );
        s.conditions[0].source = ConditionSource::Profile("ttft=fast".into());
        assert_eq!(s.plan_summary(), None);
    }
}
