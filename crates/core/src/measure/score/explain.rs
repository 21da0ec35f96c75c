//! The sentences that explain a score to people who did not compute it.

use super::{Scenario, ScoreMetric, Target, TargetScore, Verdict};

pub(super) fn explain(target: &Target, name: &str, v: f64, s: f64, weight: f64) -> String {
    let m = target.metric;
    let full = target.tiers.iter().filter(|t| t.score >= 100.0).map(|t| t.at);
    let zero = target.tiers.iter().filter(|t| t.score <= 0.0).map(|t| t.at);
    let rising = target.tiers.last().map(|t| t.score) >= target.tiers.first().map(|t| t.score);
    let (goal, floor) = if rising {
        (full.reduce(f64::min).map(|g| format!("≥ {}", m.format(g))), zero.reduce(f64::max))
    } else {
        (full.reduce(f64::max).map(|g| format!("≤ {}", m.format(g))), zero.reduce(f64::min))
    };
    let mut out = format!("{name} = {}{}", m.format(v), rate_hint(m, v));
    if let Some(goal) = goal {
        out.push_str(&format!("; target {goal}"));
    }
    if let Some(z) = floor {
        out.push_str(&format!(", 0 at {}", m.format(z)));
    }
    out.push_str(&format!(
        " → {:.0}/100, worth {:.0} of {:.0} points. {}",
        s,
        s * weight,
        100.0 * weight,
        target.why
    ));
    out
}

/// For TPOT, the equivalent streaming rate a reader feels.
fn rate_hint(m: ScoreMetric, v: f64) -> String {
    if m == ScoreMetric::Tpot && v > 0.0 { format!(" ({:.0} tokens/s)", 1000.0 / v) } else { String::new() }
}

pub(super) fn summarise(s: &Scenario, score: Option<f64>, breakdown: &[TargetScore]) -> String {
    let Some(score) = score else {
        return format!("{}: no completed requests to score.", s.name);
    };
    let mut out = format!("{}: {:.0}/100 ({}).", s.name, score, Verdict::of(score).word());
    let mut losses: Vec<&TargetScore> = breakdown.iter().filter(|b| b.lost >= 0.5).collect();
    losses.sort_by(|a, b| b.lost.total_cmp(&a.lost));
    if losses.is_empty() {
        out.push_str(" Every target is met.");
    } else {
        let parts: Vec<String> = losses
            .iter()
            .take(2)
            .map(|b| {
                format!(
                    "{} {} at {} (−{:.0} points)",
                    b.metric.label(),
                    b.stat.label(),
                    b.value.map(|v| b.metric.format(v)).unwrap_or_default(),
                    b.lost
                )
            })
            .collect();
        out.push_str(&format!(" Most points lost to {}.", parts.join(" and ")));
    }
    let missing = breakdown.iter().filter(|b| b.value.is_none()).count();
    if missing > 0 {
        out.push_str(&format!(" {missing} target(s) could not be measured and were left out."));
    }
    out
}
