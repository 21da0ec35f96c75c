//! The five preset scenarios, with the numbers of the project brief and the
//! source article (see the parent module's docs for where each comes from).

use super::{Scenario, ScenarioError, ScoreMetric, Stat, Target, Tier};

fn t(metric: ScoreMetric, stat: Stat, tiers: &[(f64, f64)], weight: f64, why: &str) -> Target {
    Target {
        metric,
        stat,
        tiers: tiers.iter().map(|&(at, score)| Tier { at, score }).collect(),
        weight,
        why: why.to_string(),
        only_when_measured: false,
    }
}

use ScoreMetric as M;

/// TPOT tiers shared by streamed scenarios: 15 ms is the engineering SLO,
/// 50 ms (20 tokens/s) still outpaces reading, 100 ms (10 tokens/s) is as
/// slow as people read.
const READING_TPOT: [(f64, f64); 3] = [(15.0, 100.0), (50.0, 70.0), (100.0, 0.0)];

/// The five preset scenarios.
pub fn presets() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "chat".into(),
            name: "Interactive chat".into(),
            summary: "An assistant answering a person who is waiting and reading along.".into(),
            targets: vec![
                t(
                    M::Ttft,
                    Stat::P95,
                    &[(200.0, 100.0), (500.0, 60.0), (1000.0, 0.0)],
                    40.0,
                    "The wait before anything appears decides whether the assistant feels responsive; past ~500 ms people feel it is sluggish.",
                ),
                t(
                    M::Tpot,
                    Stat::Mean,
                    &READING_TPOT,
                    25.0,
                    "Text should stream faster than people read (10-20 tokens/s, i.e. 50-100 ms per token).",
                ),
                t(
                    M::Itl,
                    Stat::P99,
                    &[(100.0, 100.0), (250.0, 60.0), (1000.0, 0.0)],
                    15.0,
                    "Long gaps between tokens read as stutter even when the average is fast.",
                ),
                t(
                    M::E2el,
                    Stat::P99,
                    &[(3000.0, 100.0), (10000.0, 40.0), (30000.0, 0.0)],
                    20.0,
                    "The whole answer should be done within a few seconds for most people.",
                ),
            ],
        },
        Scenario {
            id: "code".into(),
            name: "Code completion".into(),
            summary: "Inline suggestions that must appear before the developer types on.".into(),
            targets: vec![
                t(
                    M::Ttft,
                    Stat::P95,
                    &[(100.0, 100.0), (200.0, 50.0), (500.0, 0.0)],
                    55.0,
                    "A completion is useful only if it shows up within ~100 ms, before the next keystroke.",
                ),
                t(
                    M::E2el,
                    Stat::P95,
                    &[(300.0, 100.0), (1000.0, 50.0), (2000.0, 0.0)],
                    30.0,
                    "Short suggestions should be complete almost at once.",
                ),
                t(
                    M::Tpot,
                    Stat::Mean,
                    &[(15.0, 100.0), (50.0, 0.0)],
                    15.0,
                    "Multi-line suggestions need a fast decode.",
                ),
            ],
        },
        Scenario {
            id: "rag".into(),
            name: "Agent / RAG".into(),
            summary: "Long retrieved context in, short answer out: prefill dominates.".into(),
            targets: vec![
                t(
                    M::Ttft,
                    Stat::P95,
                    &[(200.0, 100.0), (1000.0, 60.0), (3000.0, 0.0)],
                    55.0,
                    "With long prompts the prefill (TTFT) is most of the wait; each agent step pays it again.",
                ),
                t(
                    M::E2el,
                    Stat::P99,
                    &[(3000.0, 100.0), (10000.0, 0.0)],
                    35.0,
                    "Agent loops chain many calls, so each call's total time adds up.",
                ),
                t(
                    M::Tpot,
                    Stat::Mean,
                    &[(15.0, 100.0), (50.0, 0.0)],
                    10.0,
                    "Answers are short, so decode speed matters little.",
                ),
                Target {
                    only_when_measured: true,
                    ..t(
                        M::ToolCallsComplete,
                        Stat::P95,
                        &[(500.0, 100.0), (2000.0, 60.0), (5000.0, 0.0)],
                        30.0,
                        "An agent runs a tool only once the whole call has arrived: this is the wait before its next step (scored when the run called tools).",
                    )
                },
            ],
        },
        Scenario {
            id: "batch".into(),
            name: "Batch generation".into(),
            summary: "Reports, labelling, offline jobs: only the finished output matters.".into(),
            targets: vec![
                t(
                    M::E2el,
                    Stat::P99,
                    &[(3000.0, 100.0), (30000.0, 50.0), (120000.0, 0.0)],
                    45.0,
                    "Downstream work waits for complete outputs, so the slowest requests set the pace.",
                ),
                t(
                    M::E2el,
                    Stat::P50,
                    &[(3000.0, 100.0), (30000.0, 50.0), (120000.0, 0.0)],
                    30.0,
                    "The typical request time sets how long a batch takes.",
                ),
                t(
                    M::Tpot,
                    Stat::Mean,
                    &[(15.0, 100.0), (100.0, 0.0)],
                    25.0,
                    "Decode speed per request decides cost and capacity; system tokens/s matters for planning.",
                ),
            ],
        },
        Scenario {
            id: "streaming".into(),
            name: "Long streaming text".into(),
            summary: "Live captions, translation, long articles: a steady stream matters more than speed."
                .into(),
            targets: vec![
                t(
                    M::ItlCv,
                    Stat::P50,
                    &[(0.2, 100.0), (0.5, 60.0), (1.5, 0.0)],
                    30.0,
                    "People accept a slower stream but not one that jerks and pauses (low jitter).",
                ),
                t(
                    M::LongestStall,
                    Stat::P95,
                    &[(250.0, 100.0), (1000.0, 30.0), (3000.0, 0.0)],
                    25.0,
                    "A visible pause mid-sentence breaks reading flow.",
                ),
                t(
                    M::Tpot,
                    Stat::P95,
                    &READING_TPOT,
                    25.0,
                    "The stream must stay at or above reading speed (10-20 tokens/s).",
                ),
                t(
                    M::Ttft,
                    Stat::P95,
                    &[(500.0, 100.0), (2000.0, 0.0)],
                    20.0,
                    "The start can be a little slower, but not seconds.",
                ),
            ],
        },
    ]
}

/// Finds a preset by id or a few common aliases.
pub fn preset(name: &str) -> Result<Scenario, ScenarioError> {
    let key = name.trim().to_ascii_lowercase();
    let id = match key.as_str() {
        "chat" | "interactive" | "interactive-chat" => "chat",
        "code" | "completion" | "code-completion" => "code",
        "rag" | "agent" | "agent-rag" => "rag",
        "batch" | "batch-generation" => "batch",
        "streaming" | "stream" | "long-streaming" | "long-text" => "streaming",
        _ => return Err(ScenarioError::Unknown(name.to_string())),
    };
    presets().into_iter().find(|s| s.id == id).ok_or(ScenarioError::Unknown(name.to_string()))
}
