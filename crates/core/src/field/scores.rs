//! Scenario scores per summary group: how a period's requests of each day,
//! browser, model or site score against a scenario
//! ([`crate::measure::score`]), the same definition a run's card uses.
//!
//! A score is a run statistic (TTFT P95, pooled ITL, …), which the stored
//! figures of each request cannot give, so it is taken over a random
//! sample of the period's whole requests (the collector draws about
//! [`SAMPLE`], each request with the same chance): each group's score is
//! over its requests in the sample, and says how many. A group with fewer
//! than [`MIN_SCORED`] of them in the sample is scored all the same, as a
//! run of those requests is on its card (the same number in both places),
//! and [`GroupScore::rough`] says so: its P95 or P99 is one or two
//! requests.

use super::span::FieldSpan;
use super::summary::FieldSummary;
pub use super::summary::GroupScore;
use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::measure::score::Scenario;

/// Requests drawn from the period for the scores.
pub const SAMPLE: u64 = 2_000;
/// Fewest sampled requests whose score is more than a rough guide (a P95
/// of 20 requests is its 19th).
pub const MIN_SCORED: usize = 20;

impl GroupScore {
    /// Scored on fewer than [`MIN_SCORED`] requests: a rough guide.
    pub fn rough(&self) -> bool {
        self.sampled < MIN_SCORED
    }
}

impl FieldSummary {
    /// Scores each group against `scenario` over `sample`, requests of the
    /// same period (and filters) drawn at random.
    pub fn score_groups(&mut self, sample: Vec<FieldSpan>, scenario: &Scenario) {
        let mut by_key: std::collections::BTreeMap<String, Vec<FieldSpan>> = Default::default();
        for s in sample {
            let browser = s.browser.as_ref().map(|b| b.0.as_str());
            let key = self.by.key_of(s.at_unix_ms, [browser, s.model.as_deref(), s.site.as_deref()]);
            by_key.entry(key).or_default().push(s);
        }
        let cfg = MetricsConfig::default();
        for g in &mut self.groups {
            let spans = by_key.remove(&g.key).unwrap_or_default();
            let score = (!spans.is_empty())
                .then(|| scenario.score(&RunMetrics::of(&super::trace_of(&spans), &cfg)).score)
                .flatten();
            g.score = Some(GroupScore { score, sampled: spans.len() });
        }
        self.scenario = Some(scenario.name.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::row::FieldRow;
    use crate::field::summary::GroupBy;
    use crate::replay::profile::Profile;

    /// A request of `browser` with TTFT `ttft` (ms), as a stored span.
    fn span(browser: &str, ttft: f64, k: u32) -> FieldSpan {
        let request = Profile::simple("p", ttft, 20.0, 30).to_trace(1, 1).requests.remove(0);
        FieldSpan {
            request,
            at_unix_ms: 1_796_472_000_000.0 + f64::from(k) * 1000.0,
            model: Some("m".into()),
            site: Some("demo".into()),
            browser: Some((browser.into(), "Blink".into(), "1".into())),
            clock_step_ms: Some(0.1),
            display_hz: Some(60.0),
            chunks_recorded: true,
            painted: false,
            wire: None,
            sample_rate: None,
        }
    }

    #[test]
    fn each_group_is_scored_over_its_sampled_requests_as_a_run_would_be() {
        let chat = crate::measure::score::preset("chat").unwrap();
        let fast: Vec<FieldSpan> = (0..40).map(|k| span("Chrome", 150.0, k)).collect();
        let slow: Vec<FieldSpan> = (0..30).map(|k| span("Firefox", 1500.0, 100 + k)).collect();
        let few: Vec<FieldSpan> = (0..5).map(|k| span("Safari", 150.0, 200 + k)).collect();
        let all: Vec<FieldSpan> = fast.iter().chain(&slow).chain(&few).cloned().collect();
        let rows: Vec<FieldRow> = all.iter().map(FieldRow::of).collect();
        let mut summary = FieldSummary::of(&rows, GroupBy::Browser);
        summary.score_groups(all.clone(), &chat);
        assert_eq!(summary.scenario.as_deref(), Some(chat.name.as_str()));
        let score = |key: &str| summary.groups.iter().find(|g| g.key == key).unwrap().score.unwrap();
        // The same definition as a run of the same requests.
        let as_run = |spans: &[FieldSpan]| {
            chat.score(&RunMetrics::of(&crate::field::trace_of(spans), &MetricsConfig::default())).score
        };
        assert_eq!(score("Chrome"), GroupScore { score: as_run(&fast), sampled: 40 });
        assert_eq!(score("Firefox"), GroupScore { score: as_run(&slow), sampled: 30 });
        assert!(score("Chrome").score.unwrap() > score("Firefox").score.unwrap() + 20.0);
        // Five requests: the score a run of those five has on its card
        // (issue 44: the summary refused it while the card showed "51 fair"),
        // marked rough.
        let few_score = score("Safari");
        assert_eq!(few_score, GroupScore { score: as_run(&few), sampled: 5 });
        assert!(few_score.score.is_some() && few_score.rough() && !score("Chrome").rough());
        // A group absent from the sample says so.
        let mut summary = FieldSummary::of(&rows, GroupBy::Browser);
        summary.score_groups(fast.clone(), &chat);
        assert_eq!(summary.groups.iter().find(|g| g.key == "Firefox").unwrap().score.unwrap().sampled, 0);
    }
}
