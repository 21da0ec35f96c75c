//! Answers by browser engine, and the switch that leaves out answers to
//! trials the participant's browser could not play precisely
//! (`lab_core::study::timing`).

use lab_core::study::timing::Timing;
use leptos::prelude::*;

use crate::browser::study::UseStudyResults;

/// Participants and answers per engine, with how many were played with a
/// timing limit, and the switch to leave those out of every figure.
#[component]
pub fn ByEngine(results: UseStudyResults) -> impl IntoView {
    let r = results;
    let imprecise = move || r.engines.with(|e| e.iter().map(|x| x.imprecise).sum::<usize>());
    move || {
        (!r.engines.with(Vec::is_empty)).then(|| {
            view! {
                <h4>"Browsers"</h4>
                <div class="table-scroll" tabindex="0">
                    <table class="metrics" data-testid="results-engines">
                        <thead><tr><th scope="col">"engine"</th><th scope="col">"participants"</th><th scope="col">"answers"</th><th scope="col">"not played precisely"</th></tr></thead>
                        <tbody>
                            {r.engines.get().into_iter().map(|e| view! {
                                <tr data-testid="engine-row" data-engine=e.engine.name()>
                                    <th scope="row">{e.engine.name()}</th><td>{e.participants}</td><td data-testid="engine-answers">{e.answers}</td>
                                    <td data-testid="engine-imprecise">{e.imprecise}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
                <p class="hint">{Timing::rule()}" \"other\": answers saved before browsers were recorded."</p>
                {move || (imprecise() > 0).then(|| view! {
                    <label class="inline" data-testid="results-precise">
                        <input type="checkbox" data-testid="results-precise-only" prop:checked=move || r.precise_only.get()
                            on:change=move |ev| r.precise_only.set(event_target_checked(&ev))/>
                        {move || format!(" Leave out the {} answer(s) not played precisely", imprecise())}
                    </label>
                })}
            }
        })
    }
}
