//! Scenario scores: one 0–100 number per use case, with a breakdown that
//! says in words where the points went.
//!
//! Definitions:
//! - A **scenario** is a weighted list of **targets**. A target names a run
//!   statistic (metric + statistic, e.g. TTFT P95) and **tiers**: points
//!   `(value, score)` such as "≤ 200 ms → 100, 500 ms → 60, ≥ 1000 ms → 0".
//! - A target's score interpolates between the two tiers around the measured
//!   value, on a logarithmic scale when both tier values are positive
//!   (latency is perceived roughly logarithmically: 200→400 ms hurts as much
//!   as 1→2 s) and linearly otherwise; outside the tiers it is clamped to the
//!   nearest tier's score. Tiers work in both directions, so a
//!   higher-is-better metric simply has rising scores.
//! - The scenario score is the weighted mean of the target scores, over the
//!   targets that could be measured (weights are renormalised, and the
//!   missing targets are listed).
//! - **Verdict**: ≥ 90 excellent, ≥ 75 good, ≥ 50 fair, below poor.
//!
//! The presets encode the SLOs of the project brief and of the source
//! article: chat TTFT ≤ 200 ms P95 with sluggishness felt past 500 ms;
//! code completion TTFT < 100 ms; agent/RAG dominated by TTFT (long
//! prompt, short answer); batch by E2EL (≤ 3 s P99); long streaming text by
//! ITL stability; and a reading speed of 10–20 tokens/s (TPOT 50–100 ms) as
//! the floor for any streamed text. Scenarios are plain data (serde), so users
//! can edit weights and tiers or load their own.

pub mod custom;
mod explain;
mod presets;

pub use presets::{preset, presets};

use serde::{Deserialize, Serialize};

use crate::measure::metrics::RunMetrics;
use crate::measure::stats::Summary;
use explain::{explain, summarise};

/// A run statistic a target can score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScoreMetric {
    /// Time to first token (per request), ms.
    Ttft,
    /// Time per output token (per request), ms.
    Tpot,
    /// Inter-token latency (pooled gaps), ms.
    Itl,
    /// End-to-end latency (per request), ms.
    E2el,
    /// Per-request ITL coefficient of variation (jitter), ratio.
    ItlCv,
    /// Per-request longest stall, ms (0 when none).
    LongestStall,
    /// When every tool call of a response had arrived (per request), ms.
    ToolCallsComplete,
    /// QoE against the reader's pace (per request), 0–1: higher is better
    /// (give it rising tiers, e.g. 0.5 → 0, 0.95 → 100).
    Qoe,
    /// Fluidity-index (per request), 0–1: higher is better.
    Fluidity,
}

impl ScoreMetric {
    /// Label for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Ttft => "TTFT",
            Self::Tpot => "TPOT",
            Self::Itl => "ITL",
            Self::E2el => "E2EL",
            Self::ItlCv => "ITL jitter (CV)",
            Self::LongestStall => "Longest stall",
            Self::ToolCallsComplete => "Tool calls complete",
            Self::Qoe => "QoE",
            Self::Fluidity => "Fluidity-index",
        }
    }

    fn summary(self, run: &RunMetrics) -> Option<Summary> {
        match self {
            Self::Ttft => run.ttft_ms,
            Self::Tpot => run.tpot_ms,
            Self::Itl => run.itl_ms,
            Self::E2el => run.e2el_ms,
            Self::ItlCv => run.itl_cv,
            Self::LongestStall => run.longest_stall_ms,
            Self::ToolCallsComplete => run.tool_calls_complete_ms,
            Self::Qoe => run.qoe,
            Self::Fluidity => run.fluidity_index,
        }
    }

    /// Formats a value of this metric.
    pub fn format(self, v: f64) -> String {
        match self {
            Self::ItlCv | Self::Qoe | Self::Fluidity => format!("{v:.2}"),
            _ if v >= 10_000.0 => format!("{:.1} s", v / 1000.0),
            _ if v >= 100.0 => format!("{v:.0} ms"),
            _ => format!("{v:.1} ms"),
        }
    }
}

/// Which statistic of the metric (one definition: [`crate::measure::stats::Stat`]).
pub use crate::measure::stats::Stat;

/// A point of a target's scoring curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tier {
    /// Metric value.
    pub at: f64,
    /// Score (0–100) at that value.
    pub score: f64,
}

/// One scored statistic of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// The metric.
    pub metric: ScoreMetric,
    /// Its statistic.
    pub stat: Stat,
    /// Scoring curve, sorted by `at`.
    pub tiers: Vec<Tier>,
    /// Relative weight (any non-negative scale).
    pub weight: f64,
    /// Why this matters in this scenario, in one sentence.
    pub why: String,
    /// Left out silently when the run has no data for it (tool calls in a
    /// run without them), instead of being reported as not measurable.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub only_when_measured: bool,
}

/// A use case with its targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Short identifier (`chat`, `code`, …).
    pub id: String,
    /// Display name.
    pub name: String,
    /// What the scenario is, in one sentence.
    pub summary: String,
    /// The targets.
    pub targets: Vec<Target>,
}

/// Why a (user-edited) scenario is unusable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScenarioError {
    /// No targets.
    #[error("scenario \"{0}\" has no targets")]
    NoTargets(String),
    /// A target has no tiers or bad numbers.
    #[error("scenario \"{scenario}\", target {target}: {message}")]
    BadTarget {
        /// Scenario id.
        scenario: String,
        /// Target label.
        target: String,
        /// What is wrong.
        message: String,
    },
    /// All weights are zero.
    #[error("scenario \"{0}\": weights must be non-negative and not all zero")]
    Weights(String),
    /// Unknown preset name.
    #[error("unknown scenario \"{0}\"; presets are: chat, code, rag, batch, streaming")]
    Unknown(String),
}

/// The verdict band of a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// ≥ 90.
    Excellent,
    /// ≥ 75.
    Good,
    /// ≥ 50.
    Fair,
    /// < 50.
    Poor,
}

impl Verdict {
    /// Band of a 0–100 score.
    pub fn of(score: f64) -> Self {
        match score {
            s if s >= 90.0 => Self::Excellent,
            s if s >= 75.0 => Self::Good,
            s if s >= 50.0 => Self::Fair,
            _ => Self::Poor,
        }
    }

    /// Lower-case word.
    pub fn word(self) -> &'static str {
        match self {
            Self::Excellent => "excellent",
            Self::Good => "good",
            Self::Fair => "fair",
            Self::Poor => "poor",
        }
    }
}

/// How one target scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetScore {
    /// The metric.
    pub metric: ScoreMetric,
    /// The statistic.
    pub stat: Stat,
    /// Measured value (None when not measurable).
    pub value: Option<f64>,
    /// Target score 0–100.
    pub score: Option<f64>,
    /// Weight as a share of the measured targets (0–1).
    pub weight: f64,
    /// Points contributed to the scenario score.
    pub points: f64,
    /// Points lost against a perfect score.
    pub lost: f64,
    /// One sentence explaining the score.
    pub explanation: String,
}

/// A scenario's score with its explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioScore {
    /// Scenario id.
    pub id: String,
    /// Scenario name.
    pub name: String,
    /// 0–100, `None` when nothing could be measured.
    pub score: Option<f64>,
    /// Band.
    pub verdict: Option<Verdict>,
    /// Per-target breakdown.
    pub breakdown: Vec<TargetScore>,
    /// Stakeholder-readable summary.
    pub explanation: String,
}

impl Scenario {
    /// Checks a scenario's numbers (presets always pass; user edits may not).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.targets.is_empty() {
            return Err(ScenarioError::NoTargets(self.id.clone()));
        }
        for target in &self.targets {
            let bad = |message: &str| ScenarioError::BadTarget {
                scenario: self.id.clone(),
                target: format!("{} {}", target.metric.label(), target.stat.label()),
                message: message.to_string(),
            };
            if target.tiers.is_empty() {
                return Err(bad("needs at least one tier"));
            }
            if target.tiers.iter().any(|t| !t.at.is_finite() || !(0.0..=100.0).contains(&t.score)) {
                return Err(bad("tier values must be finite and scores within 0-100"));
            }
            if target.tiers.windows(2).any(|w| w[1].at <= w[0].at) {
                return Err(bad("tiers must be sorted by strictly increasing value"));
            }
            if !target.weight.is_finite() || target.weight < 0.0 {
                return Err(ScenarioError::Weights(self.id.clone()));
            }
        }
        if self.targets.iter().map(|t| t.weight).sum::<f64>() <= 0.0 {
            return Err(ScenarioError::Weights(self.id.clone()));
        }
        Ok(())
    }

    /// The scenario with target `target` weighted `weight`, if the result
    /// is still valid (a missing target is an error too).
    pub fn with_weight(&self, target: usize, weight: f64) -> Result<Self, ScenarioError> {
        let mut next = self.clone();
        let t = next.targets.get_mut(target).ok_or_else(|| ScenarioError::BadTarget {
            scenario: self.id.clone(),
            target: format!("#{}", target + 1),
            message: "no such target".into(),
        })?;
        t.weight = weight;
        next.validate()?;
        Ok(next)
    }

    /// Each target's value in `run` (`None` where it has no data) and the
    /// summed weight of the targets that have one.
    fn measured(&self, run: &RunMetrics) -> (Vec<Option<f64>>, f64) {
        let values: Vec<Option<f64>> =
            self.targets.iter().map(|t| t.metric.summary(run).map(|s| t.stat.of(&s))).collect();
        let weight =
            self.targets.iter().zip(&values).filter(|(_, v)| v.is_some()).map(|(t, _)| t.weight).sum();
        (values, weight)
    }

    /// The score of a run (0–100; `None` when nothing could be
    /// measured), without its breakdown: [`Scenario::score`]'s number.
    pub fn value(&self, run: &RunMetrics) -> Option<f64> {
        let (values, measured_weight) = self.measured(run);
        (measured_weight > 0.0).then(|| {
            self.targets
                .iter()
                .zip(values)
                .filter_map(|(t, v)| Some(interpolate(&t.tiers, v?) * (t.weight / measured_weight)))
                .sum()
        })
    }

    /// Scores a run.
    pub fn score(&self, run: &RunMetrics) -> ScenarioScore {
        let (values, measured_weight) = self.measured(run);
        let mut breakdown = Vec::with_capacity(self.targets.len());
        let mut total = 0.0;
        for (target, value) in self.targets.iter().zip(values) {
            let name = format!("{} {}", target.metric.label(), target.stat.label());
            let Some(v) = value.filter(|_| measured_weight > 0.0) else {
                if target.only_when_measured {
                    continue;
                }
                breakdown.push(TargetScore {
                    metric: target.metric,
                    stat: target.stat,
                    value: None,
                    score: None,
                    weight: 0.0,
                    points: 0.0,
                    lost: 0.0,
                    explanation: format!("{name}: not measurable in this run (no data), left out."),
                });
                continue;
            };
            let s = interpolate(&target.tiers, v);
            let weight = target.weight / measured_weight;
            let points = s * weight;
            total += points;
            breakdown.push(TargetScore {
                metric: target.metric,
                stat: target.stat,
                value: Some(v),
                score: Some(s),
                weight,
                points,
                lost: 100.0 * weight - points,
                explanation: explain(target, &name, v, s, weight),
            });
        }
        let score = (measured_weight > 0.0).then_some(total);
        ScenarioScore {
            id: self.id.clone(),
            name: self.name.clone(),
            score,
            verdict: score.map(Verdict::of),
            explanation: summarise(self, score, &breakdown),
            breakdown,
        }
    }
}

/// Score of `v` on a tier curve (see the module docs).
pub fn interpolate(tiers: &[Tier], v: f64) -> f64 {
    let (Some(first), Some(last)) = (tiers.first(), tiers.last()) else { return 0.0 };
    if v <= first.at {
        return first.score;
    }
    if v >= last.at {
        return last.score;
    }
    for w in tiers.windows(2) {
        let (a, b) = (w[0], w[1]);
        if v <= b.at {
            let f = if a.at > 0.0 && b.at > 0.0 {
                (v.ln() - a.at.ln()) / (b.at.ln() - a.at.ln())
            } else {
                (v - a.at) / (b.at - a.at)
            };
            return a.score + (b.score - a.score) * f;
        }
    }
    last.score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scores_value_is_its_scores_number() {
        use crate::measure::metrics::MetricsConfig;
        use crate::replay::profile::Profile;
        for spec in
            ["ttft=200,tpot=20,jitter=constant,tokens=50", "ttft=1500,tpot=120,tokens=50", "ttft=90,tokens=1"]
        {
            let p: Profile = spec.parse().unwrap();
            let run = RunMetrics::of(&p.to_trace(5, 100), &MetricsConfig::default());
            for s in presets() {
                assert_eq!(s.value(&run), s.score(&run).score, "{} on {spec}", s.id);
            }
        }
        let none = RunMetrics::of(&crate::trace::Trace::default(), &MetricsConfig::default());
        assert_eq!(preset("chat").unwrap().value(&none), None);
    }

    #[test]
    fn a_scenario_can_weigh_qoe_and_fluidity() {
        use crate::measure::metrics::MetricsConfig;
        use crate::replay::profile::Profile;
        let json = r#"{"id":"reading","name":"Reading","summary":"People read as it streams.","targets":[
            {"metric":"qoe","stat":"p50","tiers":[{"at":0.5,"score":0},{"at":0.95,"score":100}],"weight":2,"why":"Keeps pace with the reader."},
            {"metric":"fluidity","stat":"mean","tiers":[{"at":0.5,"score":0},{"at":0.99,"score":100}],"weight":1,"why":"No token late."}]}"#;
        let s: Scenario = serde_json::from_str(json).unwrap();
        s.validate().unwrap();
        let run = |spec: &str| {
            let p: Profile = spec.parse().unwrap();
            RunMetrics::of(&p.to_trace(2, 100), &MetricsConfig::default())
        };
        let smooth = s.score(&run("ttft=200,tpot=20,jitter=constant,tokens=50"));
        let late = s.score(&run("ttft=1500,tpot=120,jitter=constant,tokens=50"));
        assert!(smooth.score.unwrap() > 99.99, "{smooth:?}");
        assert!(late.score.unwrap() < 50.0, "{late:?}");
        assert!(
            late.breakdown[0].explanation.starts_with("QoE P50 = 0."),
            "{}",
            late.breakdown[0].explanation
        );
        assert!(late.breakdown[0].explanation.contains("target ≥ 0.95"));
    }

    #[test]
    fn agents_are_scored_on_their_tool_calls_where_there_are_any() {
        use crate::measure::metrics::MetricsConfig;
        use crate::replay::profile::Profile;
        let rag = preset("rag").unwrap();
        let scored = |spec: &str| {
            let p: Profile = spec.parse().unwrap();
            rag.score(&RunMetrics::of(&p.to_trace(3, 1000), &MetricsConfig::default()))
        };
        let agent = scored("ttft=300,tpot=10,jitter=constant,tokens=0,tool_call=search:40");
        let tool = agent.breakdown.iter().find(|b| b.metric == ScoreMetric::ToolCallsComplete).unwrap();
        // 300 ms + 40 fragments after the named one, 10 ms apart.
        assert!((tool.value.unwrap() - 700.0).abs() < 1e-6, "{tool:?}");
        assert!(tool.score.unwrap() < 100.0 && tool.weight > 0.0);
        let chat = scored("ttft=300,tpot=10,jitter=constant,tokens=40");
        assert!(
            chat.breakdown.iter().all(|b| b.metric != ScoreMetric::ToolCallsComplete),
            "left out, not 'not measurable'"
        );
        assert!(chat.score.is_some());
    }

    #[test]
    fn weights_change_only_into_valid_scenarios() {
        let s = presets().swap_remove(1);
        let w = s.with_weight(0, 0.0).unwrap();
        assert_eq!(w.targets[0].weight, 0.0);
        assert_eq!(w.targets[1..], s.targets[1..]);
        assert!(s.with_weight(0, -1.0).is_err());
        assert!(s.with_weight(0, f64::NAN).is_err());
        assert!(s.with_weight(99, 1.0).is_err());
        let mut all_zero = s.clone();
        for i in 0..s.targets.len() {
            all_zero = all_zero.with_weight(i, 0.0).unwrap_or(all_zero);
        }
        assert!(all_zero.targets.iter().any(|t| t.weight > 0.0), "one weight must stay");
    }

    #[test]
    fn presets_are_valid_and_findable() {
        for s in presets() {
            s.validate().unwrap();
            assert_eq!(preset(&s.id).unwrap().id, s.id);
        }
        assert_eq!(preset("Agent").unwrap().id, "rag");
        assert!(matches!(preset("nope"), Err(ScenarioError::Unknown(_))));
    }

    #[test]
    fn interpolation_is_logarithmic_and_clamped() {
        let tiers = [Tier { at: 100.0, score: 100.0 }, Tier { at: 400.0, score: 0.0 }];
        assert_eq!(interpolate(&tiers, 50.0), 100.0);
        assert_eq!(interpolate(&tiers, 1000.0), 0.0);
        // 200 ms is halfway between 100 and 400 on a log scale.
        assert!((interpolate(&tiers, 200.0) - 50.0).abs() < 1e-9);
        let rising = [Tier { at: 0.0, score: 0.0 }, Tier { at: 10.0, score: 100.0 }];
        assert!((interpolate(&rising, 2.5) - 25.0).abs() < 1e-9);
    }

    #[test]
    fn validation_catches_user_mistakes() {
        let mut s = preset("chat").unwrap();
        s.targets[0].tiers.reverse();
        assert!(matches!(s.validate(), Err(ScenarioError::BadTarget { .. })));
        let mut s = preset("chat").unwrap();
        s.targets.iter_mut().for_each(|t| t.weight = 0.0);
        assert!(matches!(s.validate(), Err(ScenarioError::Weights(_))));
    }
}
