//! One replay pane: its source (a profile, or a recorded request), the
//! profile editor, live figures, the streamed text, and after the end the
//! metrics, scores and scheduler fidelity of what was played.

use lab_core::measure::metrics::{MetricsConfig, RunMetrics};
use lab_core::measure::score;
use lab_core::replay::player::Fidelity;
use lab_core::trace::{RequestTrace, Trace};
use leptos::prelude::*;

use super::editor::{ProfileDraft, ProfileEditor};
use crate::browser::files::download_text;
use crate::browser::scheduler::{PaneResult, PaneSignals};
use crate::ui::format::opt;
use crate::ui::live::trace_file_name;

/// What a pane plays.
#[derive(Debug, Clone, PartialEq)]
pub enum PaneSource {
    /// A synthetic profile.
    Profile(ProfileDraft),
    /// A recorded request, replayed exactly.
    Recorded {
        /// Where it came from.
        label: String,
        /// The request.
        request: Box<RequestTrace>,
    },
}

/// A pane's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneConfig {
    /// Caption.
    pub title: String,
    /// Source.
    pub source: PaneSource,
}

impl PaneConfig {
    /// Chunks to play: due offset (ms), text, tokens.
    pub fn chunks(&self) -> Vec<(f64, String, u32)> {
        match &self.source {
            PaneSource::Profile(d) => d
                .profile
                .schedule(0, d.prompt_tokens, None)
                .chunks
                .into_iter()
                .map(|c| (c.due_ms, c.text, c.tokens))
                .collect(),
            PaneSource::Recorded { request, .. } => request
                .chunks
                .iter()
                .filter(|c| c.tokens > 0 || !c.text.is_empty())
                .map(|c| ((c.arrived_ms - request.sent_ms).max(0.0), c.text.clone(), c.tokens))
                .collect(),
        }
    }

    /// Source description for the trace (`profile:…` / `trace:…`).
    pub fn source_name(&self) -> String {
        match &self.source {
            PaneSource::Profile(d) => format!("profile:{}", d.profile),
            PaneSource::Recorded { label, .. } => format!("trace:{label}"),
        }
    }
}

fn fmt_ms(v: f64) -> String {
    if v >= 10_000.0 { format!("{:.1} s", v / 1000.0) } else { format!("{v:.0} ms") }
}

/// A pane card.
#[component]
pub fn PaneCard(
    index: usize,
    config: Signal<Option<PaneConfig>>,
    signals: PaneSignals,
    output: NodeRef<leptos::html::Div>,
    on_edit: Callback<(usize, ProfileDraft)>,
) -> impl IntoView {
    let stats = signals.stats;
    let title = move || config.with(|c| c.as_ref().map(|c| c.title.clone()).unwrap_or_default());
    let draft = move || {
        config.with(|c| match c.as_ref().map(|c| &c.source) {
            Some(PaneSource::Profile(d)) => Some(d.clone()),
            _ => None,
        })
    };
    let source = move || config.with(|c| c.as_ref().map(PaneConfig::source_name).unwrap_or_default());
    view! {
        <article class="pane" data-testid=format!("pane-{index}")>
            <header>
                <h3 data-testid=format!("pane-{index}-title")>{title}</h3>
                <p class="source" title=source>{source}</p>
            </header>
            {move || draft().map(|d| view! {
                <details class="edit">
                    <summary>"Edit profile"</summary>
                    <ProfileEditor index=index draft=d on_apply=Callback::new(move |d| on_edit.run((index, d)))/>
                </details>
            })}
            <div class="tiles compact">
                <div class="tile"><span class="label">"TTFT"</span>
                    <span class="value" data-testid=format!("pane-{index}-ttft")>{move || opt(stats.get().ttft_ms, fmt_ms)}</span></div>
                <div class="tile"><span class="label">"Tokens/s"</span>
                    <span class="value" data-testid=format!("pane-{index}-live-tps")>{move || opt(stats.get().tokens_per_s, |v| format!("{v:.1}"))}</span></div>
                <div class="tile"><span class="label">"Tokens"</span>
                    <span class="value" data-testid=format!("pane-{index}-tokens")>{move || stats.get().tokens}</span></div>
                <div class="tile"><span class="label">"Stalls"</span>
                    <span class="value" data-testid=format!("pane-{index}-stalls")>{move || stats.get().stalls}</span></div>
            </div>
            <div class="output replay-output" node_ref=output data-testid=format!("pane-{index}-output")></div>
            {move || signals.result.get().map(|r| view! { <PaneOutcome index=index result=r/> })}
        </article>
    }
}

/// What a finished pane shows.
#[component]
fn PaneOutcome(index: usize, result: PaneResult) -> impl IntoView {
    let trace: Trace = result.trace;
    let m = RunMetrics::of(&trace, &MetricsConfig::default());
    let fidelity = trace.requests.first().and_then(Fidelity::of);
    let info = trace.meta.replay.clone().unwrap_or_default();
    let r = m.per_request.first().cloned();
    let tps = r.as_ref().and_then(|r| r.output_tokens_per_s);
    let scores: Vec<_> = score::presets().iter().map(|s| s.score(&m)).collect();
    let t = trace.clone();
    let download = move |_| {
        let _ = download_text(&trace_file_name(&t), "application/json", &t.to_json());
    };
    view! {
        <section class="pane-outcome" data-testid=format!("pane-{index}-result")>
            <dl class="figures">
                <dt>"TTFT"</dt><dd data-testid=format!("pane-{index}-result-ttft")>{opt(r.as_ref().and_then(|r| r.ttft_ms), |v| format!("{v:.0} ms"))}</dd>
                <dt>"Tokens/s"</dt><dd data-testid=format!("pane-{index}-result-tps")>{opt(tps, |v| format!("{v:.1}"))}</dd>
                <dt>"TPOT"</dt><dd>{opt(r.as_ref().and_then(|r| r.tpot_ms), |v| format!("{v:.1} ms"))}</dd>
                <dt>"E2EL"</dt><dd data-testid=format!("pane-{index}-result-e2el")>{opt(r.as_ref().and_then(|r| r.e2el_ms), fmt_ms)}</dd>
                <dt>"Longest gap"</dt><dd>{opt(r.as_ref().and_then(|r| r.max_itl_ms()), fmt_ms)}</dd>
            </dl>
            <ul class="score-chips">
                {scores.into_iter().map(|s| {
                    let verdict = s.verdict.map(|v| v.word()).unwrap_or("n/a");
                    view! {
                        <li class=format!("chip verdict-{verdict}") title=s.explanation.clone()>
                            {s.name.clone()} " " <b>{s.score.map(|v| format!("{v:.0}")).unwrap_or_else(|| "—".into())}</b>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <p class="fidelity" data-testid=format!("pane-{index}-fidelity")>
                {match fidelity {
                    Some(f) => format!(
                        "Scheduler ({}): released {:.2} ms from due at P50, {:.2} ms at P99; painted {} after release; {} late frame(s) of {}; {} per token to render.",
                        info.scheduler,
                        f.emit_error_ms.p50,
                        f.emit_error_ms.p99,
                        f.paint_lag_ms.map(|p| format!("{:.1} ms (P50), {:.1} ms (P99)", p.p50, p.p99)).unwrap_or_else(|| "—".into()),
                        info.late_frames,
                        info.frames,
                        info.render_us_per_token.map(|u| format!("{u:.1} µs")).unwrap_or_else(|| "—".into()),
                    ),
                    None => "No timing recorded.".into(),
                }}
            </p>
            <button type="button" class="secondary" data-testid=format!("pane-{index}-download") on:click=download>
                "Download trace"
            </button>
        </section>
    }
}
