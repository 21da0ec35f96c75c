//! One scenario's score, its explanation and its editable weights.

use lab_core::measure::score::{Scenario, ScenarioScore};
use leptos::prelude::*;

use super::analysis_panel::set_weight;

/// A scenario card.
#[component]
pub fn ScenarioCard(index: usize, score: ScenarioScore, scenarios: RwSignal<Vec<Scenario>>) -> impl IntoView {
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
                {score
                    .breakdown
                    .iter()
                    .enumerate()
                    .map(|(t, b)| {
                        let weight = scenarios
                            .with_untracked(|s| s.get(index).and_then(|s| s.targets.get(t)).map(|t| t.weight))
                            .unwrap_or(0.0);
                        view! {
                            <li>
                                <span>{b.explanation.clone()}</span>
                                <label class="weight">
                                    "weight "
                                    <input
                                        type="number"
                                        min="0"
                                        step="5"
                                        prop:value=weight.to_string()
                                        aria-label=format!("weight of {} {}", b.metric.label(), b.stat.label())
                                        on:change=move |ev| {
                                            let v = event_target_value(&ev).parse::<f64>().map_err(|e| e.to_string());
                                            error.set(v.and_then(|w| set_weight(scenarios, index, t, w)).err());
                                        }
                                    />
                                </label>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <Show when=move || error.get().is_some()>
                <p class="error" role="alert">{move || error.get().unwrap_or_default()}</p>
            </Show>
        </article>
    }
}
