//! From perception to SLOs: a pooled psychometric fit of a threshold study
//! turned into words and into a scenario's scoring tiers.
//!
//! The share of people who **notice** a difference `x` is the fitted
//! sigmoid F(x) (the psychometric function without its guesses and
//! lapses: P = 0.5 + (0.5 − λ)·F). So "half notice" is F = 0.5, the level
//! [`noticed_by`] gives for 0.5, and "75% notice" is F = 0.75.
//!
//! Tiers ([`perceived_tiers`]) place a metric's scoring curve on what
//! people notice, for a metric whose reference level is `reference`
//! (e.g. TTFT 200 ms): 100 up to where 10% notice the increase, 60 where
//! half do, 0 where 90% do. The target keeps its weight and statistic; its
//! sentence says where the tiers came from (study, participants, interval).

use super::design::Dimension;
use super::psychometric::{Fitted, Psychometric};
use crate::measure::score::{Scenario, ScoreMetric, Stat, Target, Tier};

/// Shares of people noticing at the three tiers, with their scores.
pub const TIER_SHARES: [(f64, f64); 3] = [(0.1, 100.0), (0.5, 60.0), (0.9, 0.0)];

/// The difference `share` of people notice (F = share).
pub fn noticed_by(f: &Psychometric, share: f64) -> Option<f64> {
    f.level_at(0.5 + (0.5 - f.lapse) * share)
}

/// What the fit says, in one sentence: "Half of your participants notice
/// a TTFT increase of 95 ms over 200 ms (95% interval 70–130 ms); 75%
/// notice 165 ms." (without "over" when the reference is 0: a stall, or
/// smoothing).
pub fn summary(dimension: Dimension, reference: f64, fit: &Fitted) -> String {
    let f = &fit.fit;
    let what = dimension.what();
    let n = |x: f64| dimension.format(x);
    let over = if reference > 0.0 { format!(" over {}", n(reference)) } else { String::new() };
    match (noticed_by(f, 0.5), noticed_by(f, 0.75)) {
        (Some(half), Some(most)) => format!(
            "Half of your participants notice {what} of {}{over} (95% interval {}–{} {}); 75% notice {}.",
            n(half),
            dimension.number(fit.alpha_ci.0),
            dimension.number(fit.alpha_ci.1),
            dimension.unit(),
            n(most)
        ),
        _ => format!(
            "The answers do not show where people notice {what}: the fit never reaches half noticing."
        ),
    }
}

/// Where the scenario's tiers of a metric with reference `reference` go.
pub fn perceived_tiers(reference: f64, f: &Psychometric) -> Option<Vec<Tier>> {
    TIER_SHARES
        .iter()
        .map(|&(share, score)| Some(Tier { at: reference + noticed_by(f, share)?, score }))
        .collect()
}

/// Where a tier set came from, for the score's explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// The study's id.
    pub study_id: String,
    /// Participants pooled.
    pub participants: usize,
}

/// Weight of a target [`apply`] adds to a scenario that lacks the metric.
pub const ADDED_WEIGHT: f64 = 15.0;

/// `scenario` with the tiers of every `metric` target placed on what
/// people notice (a target of weight [`ADDED_WEIGHT`] is added when the
/// scenario has none: P95, or the mean for pace and jitter); `None` when
/// the fit does not reach the tier shares.
pub fn apply(
    scenario: &Scenario,
    metric: ScoreMetric,
    reference: f64,
    fit: &Fitted,
    from: &Provenance,
) -> Option<Scenario> {
    let tiers = perceived_tiers(reference, &fit.fit)?;
    let mut out = scenario.clone();
    let mut changed = false;
    for t in out.targets.iter_mut().filter(|t| t.metric == metric) {
        t.tiers = tiers.clone();
        t.why = format!(
            "Tiers measured in study \"{}\" (n = {}): 100 until 10% of people notice the difference from {reference:.0}, 60 where half notice ({:.0}, 95% interval of the threshold {:.0}–{:.0}), 0 where 90% do.",
            from.study_id,
            from.participants,
            tiers[1].at,
            reference + fit.alpha_ci.0,
            reference + fit.alpha_ci.1
        );
        changed = true;
    }
    if !changed {
        let stat = match metric {
            ScoreMetric::Tpot | ScoreMetric::ItlCv => Stat::Mean,
            _ => Stat::P95,
        };
        let mut with = scenario.clone();
        with.targets.push(Target {
            metric,
            stat,
            tiers,
            weight: ADDED_WEIGHT,
            why: String::new(),
            only_when_measured: false,
        });
        return apply(&with, metric, reference, fit, from);
    }
    out.id = format!("{}-perceived", scenario.id);
    out.name = format!("{} (perceived, {})", scenario.name, from.study_id);
    Some(out)
}

/// Why a study's results give no scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PerceivedError {
    /// Not a threshold study.
    #[error("only a threshold study's results give scenario tiers")]
    NotThreshold,
    /// Smoothing has no scenario metric.
    #[error("no score metric measures a display setting such as smoothing: its threshold stays a finding")]
    NoMetric,
    /// No pooled fit yet.
    #[error("no fit yet: the study needs answers first")]
    NoFit,
    /// The fit does not reach the tier shares.
    #[error("the fit never reaches 90% noticing within reach: more answers at larger levels are needed")]
    Unreached,
}

#[cfg(test)]
mod tests {
    use super::super::psychometric::Shape;
    use super::*;
    use crate::measure::score::preset;

    fn fitted() -> Fitted {
        let fit = Psychometric { shape: Shape::Logistic, alpha: 95.0, beta: 2.0, lapse: 0.0 };
        Fitted { fit, alpha_ci: (70.0, 130.0), beta_ci: (1.2, 3.0), band: Vec::new() }
    }

    #[test]
    fn half_notice_at_the_threshold_and_three_quarters_further() {
        let f = fitted();
        assert!((noticed_by(&f.fit, 0.5).unwrap() - 95.0).abs() < 1e-9, "logistic: F(α) = ½");
        // F = ¾ ⇔ (x/α)^β = 3 ⇔ x = α·√3.
        assert!((noticed_by(&f.fit, 0.75).unwrap() - 95.0 * 3f64.sqrt()).abs() < 1e-9);
        let s = summary(Dimension::Ttft, 200.0, &f);
        assert_eq!(
            s,
            "Half of your participants notice a TTFT increase of 95 ms over 200 ms (95% interval 70–130 ms); 75% notice 165 ms."
        );
        let cv = Fitted { fit: Psychometric { alpha: 0.35, ..f.fit }, alpha_ci: (0.2, 0.5), ..f.clone() };
        assert_eq!(
            summary(Dimension::Jitter, 0.0, &cv),
            "Half of your participants notice more jitter of 0.35 CV (95% interval 0.20–0.50 CV); 75% notice 0.61 CV."
        );
    }

    #[test]
    fn the_chat_preset_gets_ttft_tiers_where_people_notice() {
        let chat = preset("chat").unwrap();
        let from = Provenance { study_id: "ttft-jnd".into(), participants: 12 };
        let s = apply(&chat, ScoreMetric::Ttft, 200.0, &fitted(), &from).unwrap();
        let t = s.targets.iter().find(|t| t.metric == ScoreMetric::Ttft).unwrap();
        // F = 0.1 ⇔ (x/α)^β = 1/9 ⇔ x = α/3; F = 0.9 ⇔ x = 3α.
        let at: Vec<f64> = t.tiers.iter().map(|t| t.at).collect();
        let want = [200.0 + 95.0 / 3.0, 295.0, 200.0 + 285.0];
        assert!(at.iter().zip(want).all(|(a, w)| (a - w).abs() < 1e-9), "{at:?}");
        assert!(t.why.contains("study \"ttft-jnd\" (n = 12)"));
        s.validate().unwrap();
        assert_eq!(s.id, "chat-perceived");
        // Other targets are untouched; a metric the scenario lacks changes nothing.
        assert_eq!(s.targets.len(), chat.targets.len());
        assert!(s.targets.iter().filter(|t| t.metric != ScoreMetric::Ttft).all(|t| chat.targets.contains(t)));
        let stalls = apply(&chat, ScoreMetric::LongestStall, 30.0, &fitted(), &from).unwrap();
        assert_eq!(stalls.targets.len(), chat.targets.len() + 1, "a target the scenario lacked is added");
        let added = stalls.targets.last().unwrap();
        assert_eq!((added.metric, added.weight), (ScoreMetric::LongestStall, ADDED_WEIGHT));
        assert!((added.tiers[1].at - 125.0).abs() < 1e-9 && added.why.contains("(n = 12)"));
        stalls.validate().unwrap();
    }
}
