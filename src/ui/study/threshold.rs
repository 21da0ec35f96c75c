//! The designer's fields of a threshold study: what varies (the
//! dimension), the reference, the range of levels, the adaptive procedure
//! and the question. Every edit goes through
//! `lab_core::study::threshold::edit`.

use lab_core::study::Study;
use lab_core::study::threshold::Procedure;
use lab_core::study::threshold::design::{DIMENSIONS, Dimension, ThresholdDesign};
use leptos::prelude::*;

use crate::browser::study::UseStudyDesigner;

/// A number typed into a field (`None` when it is not one).
fn typed<T: std::str::FromStr>(ev: &leptos::ev::Event) -> Option<T> {
    event_target_value(ev).trim().parse().ok()
}

/// The threshold design's fields.
#[component]
pub fn ThresholdFields(designer: UseStudyDesigner) -> impl IntoView {
    let d = designer;
    let get = move |f: fn(&ThresholdDesign) -> String| move || d.draft.with(|s| s.threshold.as_ref().map(f));
    let reference_value = move || {
        d.draft.with(|s| {
            let t = s.threshold.as_ref()?;
            let p = t.reference_profile().ok()?;
            Some(format!(
                "The reference's own value: {} {}.",
                t.dimension.reference_value(&p),
                t.dimension.unit()
            ))
        })
    };
    view! {
        <div class="form-grid" data-testid="study-threshold">
            <label>"What varies"
                <select data-testid="threshold-dimension" prop:value=get(|t| t.dimension.id().into())
                    on:change=move |ev| if let Some(dim) = Dimension::from_id(&event_target_value(&ev)) { d.edit(|s| s.set_dimension(dim)) }>
                    {DIMENSIONS.iter().map(|x| view! { <option value=x.id()>{x.label()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Reference profile"<input type="text" data-testid="threshold-reference" prop:value=get(|t| t.reference.clone())
                on:input=move |ev| d.edit(|s| s.edit_threshold(|t| t.reference = event_target_value(&ev).trim().to_string()))/></label>
            <label>{move || format!("Smallest level ({})", d.draft.with(|s| s.threshold.as_ref().map_or("", |t| t.dimension.unit())))}
                <input type="number" step="any" data-testid="threshold-low" prop:value=get(|t| t.range.0.to_string())
                    on:input=move |ev| if let Some(v) = typed(&ev) { d.edit(|s| s.edit_threshold(|t| t.range.0 = v)) }/></label>
            <label>"Largest level (the first, easy pair)"
                <input type="number" step="any" data-testid="threshold-high" prop:value=get(|t| t.range.1.to_string())
                    on:input=move |ev| if let Some(v) = typed(&ev) { d.edit(|s| s.edit_threshold(|t| t.range.1 = v)) }/></label>
            <label>"Placement seed"<input type="number" min="0" data-testid="threshold-seed" prop:value=get(|t| t.seed.to_string())
                on:input=move |ev| if let Some(v) = typed(&ev) { d.edit(|s| s.edit_threshold(|t| t.seed = v)) }/></label>
            <label>"Question asked of each pair"
                <input type="text" data-testid="threshold-question" prop:value=move || d.draft.with(|s| s.questions.first().map(|q| q.prompt().to_string()))
                    on:input=move |ev| d.edit(|s: &mut Study| s.questions.iter_mut().for_each(|q| q.set_prompt(event_target_value(&ev))))/></label>
        </div>
        <p class="hint" data-testid="threshold-reference-value">{reference_value}</p>
        <ProcedureFields designer=designer/>
    }
}

/// The adaptive procedure and its settings.
#[component]
fn ProcedureFields(designer: UseStudyDesigner) -> impl IntoView {
    let d = designer;
    let procedure = move || d.draft.with(|s| s.threshold.as_ref().map(|t| t.procedure));
    // The procedure's fields are drawn again when the procedure changes
    // kind, not as a number is typed in them.
    let psi = Memo::new(move |_| matches!(procedure(), Some(Procedure::Psi { .. })));
    let rule_field =
        move |label: &'static str,
              testid: &'static str,
              get: fn(&lab_core::study::threshold::staircase::Rule) -> u32,
              set: fn(&mut lab_core::study::threshold::staircase::Rule, u32)| {
            view! {
                <label>{label}<input type="number" min="1" data-testid=testid
                    prop:value=move || match procedure() { Some(Procedure::Staircase(r)) => get(&r).to_string(), _ => String::new() }
                    on:change=move |ev| if let Some(v) = typed(&ev) { d.edit(|s| s.edit_threshold(|t| t.edit_rule(|r| set(r, v)))) }/></label>
            }
        };
    view! {
        <div class="form-grid">
            <label>"Procedure"
                <select data-testid="threshold-procedure" prop:value=move || d.draft.with(|s| s.threshold.as_ref().map(|t| t.procedure_kind()))
                    on:change=move |ev| d.edit(|s| s.edit_threshold(|t| t.set_procedure_kind(&event_target_value(&ev))))>
                    <option value="staircase">"transformed staircase (N-down-1-up)"</option>
                    <option value="psi">"Psi method (Bayesian, most informative level)"</option>
                </select>
            </label>
            {move || match psi.get() {
                true => view! {
                    <label>"Pairs per participant"<input type="number" min="10" max="200" data-testid="threshold-trials"
                        prop:value=move || match procedure() { Some(Procedure::Psi { trials }) => trials.to_string(), _ => String::new() }
                        on:input=move |ev| if let Some(v) = typed(&ev) { d.edit(|s| s.edit_threshold(|t| t.procedure = Procedure::Psi { trials: v })) }/></label>
                }.into_any(),
                false => view! {
                    {rule_field("Correct in a row to go down (N)", "threshold-down", |r| r.down, |r, v| r.down = v)}
                    {rule_field("Reversals that end it", "threshold-reversals", |r| r.reversals, |r, v| r.reversals = v)}
                    {rule_field("Last reversals averaged", "threshold-average", |r| r.average, |r, v| r.average = v)}
                    {rule_field("Most pairs", "threshold-max", |r| r.max_trials, |r, v| r.max_trials = v)}
                }.into_any(),
            }}
        </div>
    }
}
