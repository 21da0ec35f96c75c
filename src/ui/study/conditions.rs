//! The conditions of a study: a profile spec (or a preset) each, or a
//! request recorded in a trace file. Names are for the researcher only.

use lab_core::replay::profile;
use lab_core::replay::smooth::{CHOICES, Smoothing};
use lab_core::study::{Condition, ConditionSource, MAX_CONDITIONS};
use leptos::prelude::*;

use crate::browser::files;
use crate::browser::study::UseStudyDesigner;

/// The conditions table and its buttons.
#[component]
pub fn Conditions(designer: UseStudyDesigner) -> impl IntoView {
    let d = designer;
    // Rows are drawn again only when conditions come or go (or change
    // kind), never as a field is typed in: the focus stays where it is.
    let shape = Memo::new(move |_| {
        d.draft.with(|s| {
            s.conditions.iter().map(|c| matches!(c.source, ConditionSource::Recorded(_))).collect::<Vec<_>>()
        })
    });
    view! {
        <h3>"Conditions"</h3>
        <p class="hint">"Participants never see these names: samples are labelled only “Sample n”, “A” and “B”. A condition is a profile spec (e.g. "<code>"ttft=300,tpot=20,jitter=gamma:0.5"</code>") or a request recorded in a trace, displayed as it arrives or smoothed as chat front ends do."</p>
        <div class="table-scroll" tabindex="0">
            <table class="metrics conditions" data-testid="study-conditions">
                <thead><tr><th scope="col">"id"</th><th scope="col">"name (researcher only)"</th><th scope="col">"profile"</th><th scope="col">"display"</th><th scope="col">""</th></tr></thead>
                <tbody>
                    {move || shape.get().into_iter().enumerate().map(|(i, recorded)| {
                        let get = move |f: fn(&Condition) -> String| move || d.draft.with(|s| s.conditions.get(i).map(f).unwrap_or_default());
                        view! {
                        <tr data-testid="condition-row">
                            <th scope="row">{get(|c| c.id.clone())}</th>
                            <td><input type="text" data-testid="condition-name" aria-label="condition name" prop:value=get(|c| c.name.clone())
                                on:input=move |ev| d.edit(|s| s.conditions.get_mut(i).into_iter().for_each(|c| c.name = event_target_value(&ev)))/></td>
                            <td>{if recorded {
                                view! { <span>"recorded request"</span> }.into_any()
                            } else {
                                view! { <SpecField designer=d index=i/> }.into_any()
                            }}</td>
                            <td><select data-testid="condition-smoothing" aria-label="how the text is displayed" prop:value=get(|c| c.smoothing.key().to_string())
                                on:change=move |ev| d.edit(|s| s.conditions.get_mut(i).into_iter().for_each(|c| c.smoothing = Smoothing::from_key(&event_target_value(&ev))))>
                                {CHOICES.iter().map(|(k, label)| view! { <option value=*k>{*label}</option> }).collect_view()}
                            </select></td>
                            <td><button type="button" class="secondary" data-testid="condition-remove" on:click=move |_| d.edit(|s| s.remove_condition(i))>"Remove"</button></td>
                        </tr>
                    }}).collect_view()}
                </tbody>
            </table>
        </div>
        <div class="row-actions">
            <button type="button" class="secondary" data-testid="condition-add" prop:disabled=move || { d.draft.with(|s| s.conditions.len() >= MAX_CONDITIONS) }
                on:click=move |_| d.edit(|s| s.add_condition())>"Add condition"</button>
            <label class="file">"or a recorded request from a trace file "
                <input type="file" accept=".json,application/json" data-testid="condition-file"
                    on:change=move |ev| files::take_chosen(&ev).into_iter().take(1).for_each(|f| d.add_recorded(f))/>
            </label>
        </div>
        {move || d.file_error.get().map(|m| view! { <p class="error" role="alert">{m}</p> })}
    }
}

/// A condition's profile spec, or a preset to fill it from.
#[component]
fn SpecField(designer: UseStudyDesigner, index: usize) -> impl IntoView {
    let d = designer;
    let i = index;
    let spec = move || {
        d.draft.with(|s| match s.conditions.get(i).map(|c| &c.source) {
            Some(ConditionSource::Profile(spec)) => spec.clone(),
            _ => String::new(),
        })
    };
    view! {
        <input type="text" class="spec" data-testid="condition-spec" aria-label="profile spec" prop:value=spec
            on:input=move |ev| d.edit(|s| s.conditions.get_mut(i).into_iter().for_each(|c| c.source = ConditionSource::Profile(event_target_value(&ev))))/>
        <select aria-label="fill from a preset" data-testid="condition-preset" on:change=move |ev| d.edit(|s| s.use_preset(i, &event_target_value(&ev)))>
            <option value="">"preset…"</option>
            {profile::presets().into_iter().map(|p| view! { <option value=p.name.clone()>{p.name.clone()}</option> }).collect_view()}
        </select>
    }
}
