//! Goodput under editable SLOs, and one card per scenario score with its
//! explanation and editable weights.

use lab_core::measure::analysis::Analysis;
use lab_core::measure::score::ScenarioScore;
use lab_core::measure::slo::{SloError, SloSet};
use leptos::prelude::*;

use crate::ui::format::percent;

/// The goodput line and its SLOs.
#[component]
pub fn GoodputSection(
    slo_text: RwSignal<String>,
    slos: Memo<Result<SloSet, SloError>>,
    analysis: Signal<Analysis>,
) -> impl IntoView {
    view! {
        <section class="goodput">
            <h4>"Goodput"</h4>
            <label>"SLOs (ms) "
                <input type="text" data-testid="slo-input" prop:value=move || slo_text.get()
                    on:change=move |ev| slo_text.set(event_target_value(&ev))/>
            </label>
            {move || match slos.get() {
                Err(e) => view! { <p class="error" role="alert" data-testid="slo-error">{e.to_string()}</p> }.into_any(),
                Ok(_) => view! {
                    <p data-testid="goodput">
                        {analysis.with(|a| a.goodput.clone()).map(|g| format!("{} of requests meet every SLO ({} of {})", percent(g.ratio), g.good, g.total))}
                    </p>
                }
                .into_any(),
            }}
        </section>
    }
}

/// A scenario's score, its explanation and its targets' weights;
/// `set_weight` takes (scenario, target, weight) and says why it refused.
#[component]
pub fn ScenarioCard(
    index: usize,
    score: ScenarioScore,
    weights: Vec<f64>,
    set_weight: Callback<(usize, usize, f64), Result<(), String>>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let verdict = score.verdict.map(|v| v.word()).unwrap_or("n/a");
    let value = score.score.map(|s| format!("{s:.0}")).unwrap_or_else(|| "—".into());
    let id = score.id.clone();
    view! {
        <article class=format!("score-card verdict-{verdict}") data-testid=format!("score-{id}")>
            <header>
                <h5>{score.name.clone()}</h5>
                <span class="score" data-testid=format!("score-{id}-value")>{value}</span>
                <span class="verdict">{verdict}</span>
            </header>
            <p class="explanation">{score.explanation.clone()}</p>
            <ul class="breakdown">
                {score.breakdown.iter().enumerate().map(|(t, b)| view! {
                    <li>
                        <span>{b.explanation.clone()}</span>
                        <label class="weight">"weight "
                            <input type="number" min="0" step="5" prop:value=weights.get(t).copied().unwrap_or(0.0).to_string()
                                aria-label=format!("weight of {} {}", b.metric.label(), b.stat.label())
                                on:change=move |ev| {
                                    let w = event_target_value(&ev).parse::<f64>().map_err(|e| e.to_string());
                                    error.set(w.and_then(|w| set_weight.run((index, t, w))).err());
                                }/>
                        </label>
                    </li>
                }).collect_view()}
            </ul>
            <Show when=move || error.get().is_some()>
                <p class="error" role="alert">{move || error.get().unwrap_or_default()}</p>
            </Show>
        </article>
    }
}
