//! Side-by-side replay presets that each tell one story of the thesis:
//! throughput numbers hide what people feel. Every story is 2–4 panes of
//! profiles ([`crate::replay::profile::presets`]) plus two sentences that say what to
//! notice; the first one is what a first-time visitor sees playing.
//!
//! A story's words and the lab's scores must agree. Each story names the
//! pane its scenario scores higher and the one it scores lower
//! ([`Story::scores_say`]), held by a native test against the scores the lab
//! computes from each pane's schedule ([`Story::scores`]); the app shows
//! them under the story ([`Story::scores_sentence`]). Where a score favours
//! the pane that looks worse (bursts: every latency figure is better, yet
//! the text lands in blocks), the story says what the scores do not see.

use serde::{Deserialize, Serialize};

use crate::replay::profile::{self, Profile};

/// One pane of a story.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSpec {
    /// Caption above the pane.
    pub title: String,
    /// What it plays.
    pub profile: Profile,
    /// Prompt length fed to the profile's prefill model.
    pub prompt_tokens: u64,
}

/// A side-by-side preset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Story {
    /// Identifier.
    pub id: String,
    /// Title.
    pub title: String,
    /// Two sentences: what differs, and what to notice.
    pub explanation: String,
    /// Scenario whose scores matter most here.
    pub scenario: String,
    /// The panes (2–4).
    pub panes: Vec<PaneSpec>,
    /// The panes the story's scenario scores higher and lower, in that
    /// order (indices into `panes`).
    #[serde(default)]
    pub scores_say: (usize, usize),
}

fn pane(title: &str, preset: &str, prompt_tokens: u64) -> PaneSpec {
    let profile = profile::preset(preset)
        .unwrap_or_else(|| Profile::simple(&format!("{preset} (missing)"), 200.0, 25.0, 100));
    PaneSpec { title: title.to_string(), profile, prompt_tokens }
}

/// The stories, the landing one first.
pub fn stories() -> Vec<Story> {
    vec![
        Story {
            id: "same-tps".into(),
            title: "Same tokens/s, different feel".into(),
            explanation: "Both panes stream the same 80 tokens in the same 3.3 seconds: identical tokens per second over the whole answer. \
                          One starts talking after 150 ms, the other makes you wait 2.5 s and then rushes: that wait is what users remember."
                .into(),
            scenario: "chat".into(),
            panes: vec![pane("Starts at once, reads like speech", "fast-start", 200), pane("Waits, then bursts", "slow-start", 200)],
            scores_say: (0, 1),
        },
        Story {
            id: "jitter".into(),
            title: "Jitter vs smooth, same average".into(),
            explanation: "Both produce a token every 30 ms on average. \
                          The smooth stream reads calmly; the jittery one stutters and lurches, though its mean TPOT is the same."
                .into(),
            scenario: "streaming".into(),
            panes: vec![pane("Smooth (CV 0.05)", "smooth", 200), pane("Jittery (CV 1.2)", "jittery", 200)],
            scores_say: (0, 1),
        },
        Story {
            id: "stalls".into(),
            title: "Stalls".into(),
            explanation: "Both streams decode at the same pace between tokens, every 30 ms, but one freezes for most of a second now and then. \
                          Its average tokens per second only says it is slower; a P99 inter-token latency or a stall count says it froze."
                .into(),
            scenario: "streaming".into(),
            panes: vec![pane("Steady", "smooth", 200), pane("Same pace, with stalls", "steady-stalls", 200)],
            scores_say: (0, 1),
        },
        Story {
            id: "code".into(),
            title: "Code completion: 80 ms vs 600 ms".into(),
            explanation: "A completion has to appear before the developer types the next character, about 100 ms. \
                          At 600 ms the same suggestion, at the same speed, arrives after the moment has passed."
                .into(),
            scenario: "code".into(),
            panes: vec![pane("TTFT 80 ms", "code-fast", 50), pane("TTFT 600 ms", "code-slow", 50)],
            scores_say: (0, 1),
        },
        Story {
            id: "rag".into(),
            title: "RAG: long prompt, short answer".into(),
            explanation: "The same model and decode speed, but one request carries 6,000 tokens of retrieved documents. \
                          Prefill makes its time to first token several seconds: for agents and RAG, TTFT is most of the wait."
                .into(),
            scenario: "rag".into(),
            panes: vec![pane("Chat, 200-token prompt", "rag-long-prompt", 200), pane("RAG, 6,000-token prompt", "rag-long-prompt", 6000)],
            scores_say: (0, 1),
        },
        Story {
            id: "bursts".into(),
            title: "Bursts vs token by token".into(),
            explanation: "Speculative decoding and coarse stream intervals deliver several tokens at once: higher tokens/s, and every latency score rates it higher. \
                          Yet the text lands in blocks instead of flowing, which no latency figure sees (chat apps smooth it on screen; a UX study tells whether people mind)."
                .into(),
            scenario: "chat".into(),
            panes: vec![pane("Token by token", "smooth", 200), pane("6-token bursts", "bursty", 200)],
            scores_say: (1, 0),
        },
    ]
}

/// A story by id.
pub fn story(id: &str) -> Option<Story> {
    stories().into_iter().find(|s| s.id == id)
}

impl Story {
    /// The story's scenario score of each pane's schedule (one request as
    /// planned, preset scoring), `None` where the pane cannot be scored.
    pub fn scores(&self) -> Vec<Option<f64>> {
        let Ok(scenario) = crate::measure::score::preset(&self.scenario) else {
            return vec![None; self.panes.len()];
        };
        self.panes
            .iter()
            .map(|p| {
                let t = p.profile.to_trace(1, p.prompt_tokens);
                let m = crate::measure::metrics::RunMetrics::of(&t, &Default::default());
                scenario.score(&m).score
            })
            .collect()
    }

    /// What the scores say, for people: "Interactive chat score of each
    /// pane as scheduled: Starts at once 93 · Waits, then bursts 59."
    pub fn scores_sentence(&self) -> String {
        let name =
            crate::measure::score::preset(&self.scenario).map_or_else(|_| self.scenario.clone(), |s| s.name);
        let each: Vec<String> = self
            .panes
            .iter()
            .zip(self.scores())
            .map(|(p, s)| format!("{} {}", p.title, s.map_or("–".into(), |v| format!("{v:.0}"))))
            .collect();
        format!("{name} score of each pane as scheduled: {}.", each.join(" · "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metrics::{MetricsConfig, RunMetrics};

    #[test]
    fn every_story_is_complete() {
        for s in stories() {
            assert!((2..=4).contains(&s.panes.len()), "{}", s.id);
            assert!(crate::measure::score::preset(&s.scenario).is_ok(), "{}", s.id);
            for p in &s.panes {
                assert!(!p.profile.name.contains("missing"), "{}: {}", s.id, p.profile.name);
            }
            assert_eq!(s.explanation.matches(". ").count() + 1, 2, "two sentences: {}", s.explanation);
        }
    }

    #[test]
    fn the_landing_story_has_equal_throughput_and_different_ttft() {
        let s = &stories()[0];
        let m: Vec<RunMetrics> = s
            .panes
            .iter()
            .map(|p| RunMetrics::of(&p.profile.to_trace(1, p.prompt_tokens), &MetricsConfig::default()))
            .collect();
        let tps = |m: &RunMetrics| m.user_output_tokens_per_s.unwrap().median;
        assert!((tps(&m[0]) - tps(&m[1])).abs() < 1e-9);
        assert!(m[1].ttft_ms.unwrap().median - m[0].ttft_ms.unwrap().median > 2000.0);
    }

    /// Each story's words against the scores the lab computes for it: the
    /// pane it says scores higher does, by a margin a person would notice.
    #[test]
    fn every_story_claim_holds_against_the_lab_s_scores() {
        for s in stories() {
            let scores = s.scores();
            let (hi, lo) = s.scores_say;
            let (h, l) = (scores[hi].unwrap(), scores[lo].unwrap());
            assert!(
                h >= l + 5.0,
                "{}: {} scores {h:.0}, {} {l:.0}",
                s.id,
                s.panes[hi].title,
                s.panes[lo].title
            );
            let sentence = s.scores_sentence();
            assert!(sentence.contains(&format!("{} {h:.0}", s.panes[hi].title)), "{sentence}");
        }
        // Bursts score higher, and the story says so (and what the scores miss).
        let b = story("bursts").unwrap();
        assert_eq!(b.scores_say, (1, 0));
        assert!(
            b.explanation.contains("every latency score rates it higher")
                && b.explanation.contains("no latency figure sees")
        );
    }

    #[test]
    fn the_landing_story_s_tokens_per_second_are_named() {
        // The tiles read 25.0 and 100.0 while the story says "identical
        // tokens per second": the story means over the whole answer.
        let s = &stories()[0];
        assert!(s.explanation.contains("identical tokens per second over the whole answer"));
        let live: Vec<crate::stream::live::LiveStats> = s
            .panes
            .iter()
            .map(|p| {
                let t = p.profile.to_trace(1, p.prompt_tokens);
                crate::stream::live::LiveStats::of(&t.requests[0], f64::MAX)
            })
            .collect();
        let overall = |l: &crate::stream::live::LiveStats| l.overall_tokens_per_s.unwrap();
        assert!((overall(&live[0]) - overall(&live[1])).abs() < 1e-9, "same over the whole answer");
        assert!((overall(&live[0]) - 80.0 / 3.31).abs() < 1e-6);
        assert!(live[1].tokens_per_s.unwrap() > 3.0 * live[0].tokens_per_s.unwrap(), "after the first token");
    }

    /// Issue 44's walk: the stalls story said "Nearly the same speed"
    /// beside 31.5 vs 20.3 tokens/s and 150 vs 200 tokens, and its title a
    /// share of tokens while its stalls filled half the time. Its panes now
    /// differ by the stalls alone, and its words say only that.
    #[test]
    fn the_stalls_story_s_panes_differ_by_their_stalls_alone() {
        let s = story("stalls").unwrap();
        let m: Vec<RunMetrics> = s
            .panes
            .iter()
            .map(|p| RunMetrics::of(&p.profile.to_trace(1, p.prompt_tokens), &MetricsConfig::default()))
            .collect();
        let tokens = |p: &PaneSpec| p.profile.schedule(0, p.prompt_tokens, None).chunks.len();
        assert_eq!(tokens(&s.panes[0]), tokens(&s.panes[1]), "the same answer length");
        let itl = |m: &RunMetrics| m.itl_ms.unwrap().median;
        assert!(
            (itl(&m[1]) / itl(&m[0]) - 1.0).abs() < 0.1,
            "the same pace between tokens: {} vs {}",
            itl(&m[0]),
            itl(&m[1])
        );
        let long = |p: &PaneSpec| {
            let c = p.profile.schedule(0, p.prompt_tokens, None).chunks;
            c.windows(2).filter(|w| w[1].due_ms - w[0].due_ms > 500.0).count()
        };
        assert_eq!(long(&s.panes[0]), 0, "the steady stream never freezes");
        assert!(long(&s.panes[1]) >= 2, "the other freezes now and then: {}", long(&s.panes[1]));
        assert!(s.explanation.contains("same pace between tokens, every 30 ms"));
        assert!(!s.panes.iter().any(|p| p.title.contains('%')), "no share the panes do not show");
    }

    #[test]
    fn rag_prefill_dominates() {
        let s = story("rag").unwrap();
        let ttft = |p: &PaneSpec| p.profile.schedule(0, p.prompt_tokens, None).chunks[0].due_ms;
        assert!(ttft(&s.panes[1]) > 5.0 * ttft(&s.panes[0]));
    }
}
