//! One replay pane: its title and source, the profile editor, live
//! figures, the streamed text, and after the end the metrics, scores and
//! scheduler fidelity of what was played.

use lab_core::measure::run::MeasuredRun;
use lab_core::replay::pane::PaneConfig;
use lab_core::replay::player::Fidelity;
use leptos::prelude::*;

use super::editor::ProfileEditor;
use super::smoothing::PaneSmoothing;
use crate::browser::files::download_text;
use crate::browser::use_replay_lab::UseReplayLab;
use crate::ui::format::{ms_or_s, opt};

/// Pane `index` of the replay lab.
#[component]
pub fn PaneCard(index: usize) -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    let i = index;
    let stats = lab.engine.panes[i].stats;
    let config = move || lab.panes.with(|p| p.get(i).cloned());
    let title = move || config().map(|c| c.title).unwrap_or_default();
    let source = move || config().map(|c| c.source_name()).unwrap_or_default();
    let tile = move |label: &'static str, id: &'static str, value: Signal<String>| {
        view! {
            <div class="tile"><span class="label">{label}</span>
                <span class="value" data-testid=format!("pane-{i}-{id}")>{move || value.get()}</span></div>
        }
    };
    view! {
        <article class="pane" data-testid=format!("pane-{i}")>
            <header>
                <h3 data-testid=format!("pane-{i}-title")>{title}</h3>
                <p class="source" title=source>{source}</p>
            </header>
            <div class="pane-settings">
                {move || config().as_ref().and_then(PaneConfig::draft).cloned().map(|d| view! {
                    <details class="edit">
                        <summary>"Edit profile"</summary>
                        <ProfileEditor index=i draft=d on_apply=Callback::new(move |d| lab.edit_pane(i, d))/>
                    </details>
                })}
                <PaneSmoothing index=i/>
            </div>
            <div class="tiles compact">
                {tile("TTFT", "ttft", Signal::derive(move || opt(stats.get().ttft_ms, ms_or_s)))}
                {tile("Tokens/s, whole answer", "live-tps-overall", Signal::derive(move || opt(stats.get().overall_tokens_per_s, |v| format!("{v:.1}"))))}
                {tile("Tokens/s after the first", "live-tps", Signal::derive(move || opt(stats.get().tokens_per_s, |v| format!("{v:.1}"))))}
                {tile("Tokens", "tokens", Signal::derive(move || stats.get().tokens.to_string()))}
                {tile("Stalls", "stalls", Signal::derive(move || stats.get().stalls.to_string()))}
            </div>
            <div class="output replay-output" node_ref=lab.outputs[i] data-testid=format!("pane-{i}-output")
                tabindex="0" role="region" aria-label=move || format!("Answer: {}", title())></div>
            {move || lab.engine.panes[i].result.get().map(|run| view! { <PaneOutcome index=i run=run/> })}
        </article>
    }
}

/// What a finished pane shows.
#[component]
pub fn PaneOutcome(index: usize, run: MeasuredRun) -> impl IntoView {
    let i = index;
    let r = run.analysis.metrics.per_request.first().cloned();
    let f = |get: fn(&lab_core::RequestMetrics) -> Option<f64>, show: fn(f64) -> String| {
        opt(r.as_ref().and_then(get), show)
    };
    let trace = run.trace.clone();
    let download = move |_| {
        let _ = download_text(&trace.file_name(".trace.json"), "application/json", &trace.to_json());
    };
    view! {
        <section class="pane-outcome" data-testid=format!("pane-{i}-result")>
            <dl class="figures">
                <dt>"TTFT"</dt><dd data-testid=format!("pane-{i}-result-ttft")>{f(|r| r.ttft_ms, |v| format!("{v:.0} ms"))}</dd>
                <dt>"Tokens/s, whole answer"</dt><dd data-testid=format!("pane-{i}-result-tps")>{f(|r| r.output_tokens_per_s, |v| format!("{v:.1}"))}</dd>
                <dt>"Tokens/s after the first"</dt><dd data-testid=format!("pane-{i}-result-decode")>{f(|r| r.decode_tokens_per_s, |v| format!("{v:.1}"))}</dd>
                <dt>"TPOT"</dt><dd>{f(|r| r.tpot_ms, |v| format!("{v:.1} ms"))}</dd>
                <dt>"E2EL"</dt><dd data-testid=format!("pane-{i}-result-e2el")>{f(|r| r.e2el_ms, ms_or_s)}</dd>
                <dt>"Longest gap"</dt><dd>{f(|r| r.max_itl_ms(), ms_or_s)}</dd>
                <dt>"QoE"</dt><dd data-testid=format!("pane-{i}-result-qoe")>{f(|r| r.qoe, |v| format!("{v:.2}"))}</dd>
                <dt>"Fluidity"</dt><dd data-testid=format!("pane-{i}-result-fluidity")>{f(|r| r.fluidity_index, |v| format!("{v:.2}"))}</dd>
            </dl>
            <ul class="score-chips">
                {run.analysis.scores.iter().map(|s| {
                    let verdict = s.verdict.map(|v| v.word()).unwrap_or("n/a");
                    view! {
                        <li class=format!("chip verdict-{verdict}") title=s.explanation.clone()>
                            {s.name.clone()} " " <b>{s.score.map(|v| format!("{v:.0}")).unwrap_or_else(|| "—".into())}</b>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <p class="fidelity" data-testid=format!("pane-{i}-fidelity")>{fidelity(&run)}</p>
            <button type="button" class="secondary" data-testid=format!("pane-{i}-download") on:click=download>
                "Download trace"
            </button>
        </section>
    }
}

/// The scheduler's fidelity in one sentence (`Fidelity::sentence`).
fn fidelity(run: &MeasuredRun) -> String {
    let info = run.trace.meta.replay.clone().unwrap_or_default();
    match run.trace.requests.first().and_then(Fidelity::of) {
        Some(f) => f.sentence(&info),
        None => "No timing recorded.".into(),
    }
}
