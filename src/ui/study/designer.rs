//! The study designer: title, id, the text streamed, repetitions, order,
//! instructions and consent, then the conditions and the questions. Every
//! edit goes through `lab_core::study::design`; the study's validity and
//! plan are shown in words.

use lab_core::replay::text::SAMPLES;
use lab_core::study::{Order, Study, confound};
use leptos::prelude::*;

use super::conditions::Conditions;
use super::questions::Questions;
use super::threshold::ThresholdFields;
use crate::browser::study::UseStudyDesigner;

/// The designer form over the designer's draft.
#[component]
pub fn StudyDesigner(designer: UseStudyDesigner) -> impl IntoView {
    let draft = designer.draft;
    // The kind's fields are drawn again when the kind changes, not at
    // every edit (the focus stays in the field being typed in).
    let threshold = Memo::new(move |_| draft.with(Study::is_threshold));
    view! {
        <div class="designer" data-testid="study-designer">
            {move || designer.frozen.get().map(|f| view! { <p class="hint" data-testid="study-frozen">{f.hint()}</p> })}
            <DesignFields designer=designer/>
            {move || if threshold.get() {
                view! { <ThresholdFields designer=designer/> }.into_any()
            } else {
                view! { <Conditions designer=designer/><Confounds designer=designer/><Questions designer=designer/> }.into_any()
            }}
            <p class="hint" data-testid="study-plan">{move || draft.with(|s| s.plan_summary())}</p>
            {move || draft.with(|s| s.validate().err().map(|e| e.to_string())).map(|m| view! { <p class="error" role="alert" data-testid="study-invalid">{m}</p> })}
        </div>
    }
}

/// What besides latency differs between the conditions, and a button
/// that makes it equal ([`lab_core::study::confound`]).
#[component]
fn Confounds(designer: UseStudyDesigner) -> impl IntoView {
    let d = designer;
    let found = Memo::new(move |_| {
        d.draft.with(|s| confound::confounds(s).iter().map(|c| c.describe(&s.text)).collect::<Vec<_>>())
    });
    move || {
        (!found.with(Vec::is_empty)).then(|| view! {
            <div class="warn" role="status" data-testid="study-confounds">
                <p>"The conditions differ in more than latency:"</p>
                <ul>{found.get().into_iter().map(|w| view! { <li data-testid="study-confound">{w}</li> }).collect_view()}</ul>
                <button type="button" class="secondary" data-testid="study-equalise" on:click=move |_| d.edit(confound::equalise)>
                    "Make length, text and seed equal"
                </button>
            </div>
        })
    }
}

/// The study's own fields.
#[component]
fn DesignFields(designer: UseStudyDesigner) -> impl IntoView {
    let d = designer;
    let draft = d.draft;
    let text = move |get: fn(&lab_core::study::Study) -> String| move || draft.with(get);
    let random = Memo::new(move |_| matches!(draft.with(|s| s.order), Order::Random { .. }));
    let consent = Memo::new(move |_| draft.with(|s| s.consent.is_some()));
    view! {
        <div class="form-grid">
            <label>"Kind"
                <select data-testid="study-kind" prop:value=move || draft.with(Study::kind)
                    on:change=move |ev| d.set_kind(&event_target_value(&ev))>
                    <option value="comparison">"compare conditions (ratings, A/B)"</option>
                    <option value="threshold">"threshold: the just-noticeable difference"</option>
                </select>
            </label>
            <label>"Title"<input type="text" data-testid="study-title" prop:value=text(|s| s.title.clone())
                on:input=move |ev| d.edit(|s| s.title = event_target_value(&ev))/></label>
            <label>"Study id (in results files)"<input type="text" data-testid="study-id" prop:value=text(|s| s.id.clone())
                on:input=move |ev| d.edit(|s| s.set_id_typed(&event_target_value(&ev)))/></label>
            <label>"Text streamed in every sample"
                <select data-testid="study-text" prop:value=text(|s| s.text.clone()) on:change=move |ev| d.edit(|s| s.text = event_target_value(&ev))>
                    {SAMPLES.iter().map(|t| view! { <option value=t.id>{t.name}</option> }).collect_view()}
                </select>
            </label>
            <label hidden=move || draft.with(Study::is_threshold)>"Repetitions"<input type="number" min="1" max="20" data-testid="study-reps" prop:value=text(|s| s.repetitions.to_string())
                on:input=move |ev| if let Ok(n) = event_target_value(&ev).trim().parse() { d.edit(|s| s.repetitions = n) }/></label>
            <label hidden=move || draft.with(Study::is_threshold)>"Order"
                <select data-testid="study-order" prop:value=move || draft.with(|s| s.order_kind()) on:change=move |ev| d.edit(|s| s.set_order_kind(&event_target_value(&ev)))>
                    <option value="latin">"balanced Latin square"</option>
                    <option value="random">"random with a seed"</option>
                </select>
            </label>
            {move || random.get().then(|| view! {
                    <label>"Seed"<input type="number" min="0" data-testid="study-seed"
                        prop:value=text(|s| match s.order { Order::Random { seed } => seed.to_string(), Order::LatinSquare => String::new() })
                        on:input=move |ev| if let Ok(seed) = event_target_value(&ev).trim().parse() { d.edit(|s| s.order = Order::Random { seed }) }/></label>
                })}
        </div>
        <label class="block">"Instructions"<textarea rows="3" data-testid="study-instructions" prop:value=text(|s| s.instructions.clone())
            on:input=move |ev| d.edit(|s| s.instructions = event_target_value(&ev))></textarea></label>
        <label class="inline"><input type="checkbox" data-testid="study-consent-on" prop:checked=move || draft.with(|s| s.consent.is_some())
            on:change=move |ev| d.edit(|s| s.set_consent(event_target_checked(&ev)))/>" Ask for consent first"</label>
        {move || consent.get().then(|| view! {
            <label class="block">"Consent text"<textarea rows="2" data-testid="study-consent" prop:value=text(|s| s.consent.clone().unwrap_or_default())
                on:input=move |ev| d.edit(|s| s.consent = Some(event_target_value(&ev)))></textarea></label>
        })}
    }
}
