//! Editing a pane's profile (`lab_core::replay::draft`): every field taken
//! as it is typed (not when it loses focus), checked by `lab_core` when
//! applied, with the reason shown when a number is out of range.

use lab_core::replay::draft::{DraftField, JITTER_KINDS, ProfileDraft};
use lab_core::replay::text::SAMPLES;
use leptos::prelude::*;

/// The editor of pane `index`; `on_apply` receives a valid draft.
#[component]
pub fn ProfileEditor(index: usize, draft: ProfileDraft, on_apply: Callback<ProfileDraft>) -> impl IntoView {
    let d = RwSignal::new(draft);
    let error = RwSignal::new(None::<String>);
    let field = move |f: DraftField| {
        let (label, key, step) = f.describe();
        view! {
            <label>{label}
                <input type="number" step=step data-testid=format!("pane-{index}-edit-{key}")
                    prop:value=move || d.with(|d| f.get(d).to_string())
                    on:input=move |ev| {
                        // As typed; text that reads as the value already there
                        // (`0.` on the way to `0.5`) leaves the field alone.
                        if let Ok(v) = event_target_value(&ev).trim().parse::<f64>()
                            && d.with_untracked(|d| f.get(d)) != v
                        {
                            d.update(|d| f.set(d, v));
                            error.set(d.with_untracked(|d| d.profile.validate().err().map(|e| e.to_string())));
                        }
                    }
                    on:change=move |ev| {
                        let raw = event_target_value(&ev);
                        if raw.trim().parse::<f64>().is_err() {
                            error.set(Some(format!("\"{raw}\" is not a number")));
                        }
                    }/>
            </label>
        }
    };
    let apply = move |_| match d.with_untracked(|d| d.profile.validate()) {
        Ok(()) => {
            error.set(None);
            on_apply.run(d.get_untracked());
        }
        Err(e) => error.set(Some(e.to_string())),
    };
    view! {
        <div class="profile-editor">
            {field(DraftField::Ttft)}
            {field(DraftField::Tpot)}
            <label>"Jitter"
                <select data-testid=format!("pane-{index}-edit-jitter") prop:value=move || d.with(ProfileDraft::jitter_kind)
                    on:change=move |ev| d.update(|d| d.set_jitter_kind(&event_target_value(&ev)))>
                    {JITTER_KINDS.iter().map(|(id, name)| view! { <option value=*id disabled=*id == "empirical">{*name}</option> }).collect_view()}
                </select>
            </label>
            {DraftField::ALL[2..].iter().map(|f| field(*f)).collect_view()}
            <label>"Text"
                <select data-testid=format!("pane-{index}-edit-text") prop:value=move || d.with(ProfileDraft::text_id)
                    on:change=move |ev| d.update(|d| d.set_sample(&event_target_value(&ev)))>
                    {SAMPLES.iter().map(|s| view! { <option value=s.id>{s.name}</option> }).collect_view()}
                    <option value="custom" disabled=true>"(own text)"</option>
                </select>
            </label>
            <label class="wide">"Or your own text"
                <textarea rows="2" data-testid=format!("pane-{index}-edit-own-text")
                    on:input=move |ev| d.update(|d| d.set_own_text(event_target_value(&ev)))></textarea>
            </label>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <button type="button" data-testid=format!("pane-{index}-apply") on:click=apply>"Apply"</button>
        </div>
    }
}
