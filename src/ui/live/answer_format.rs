//! How the live answer is shown: text or Markdown, as it arrives or paced
//! as chat front ends pace it (read when a request starts).

use lab_core::replay::smooth::{CHOICES, Smoothing};
use leptos::prelude::*;

/// The two pickers.
#[component]
pub fn AnswerFormat(markdown: RwSignal<bool>, smoothing: RwSignal<Smoothing>) -> impl IntoView {
    view! {
        <div class="answer-format">
            <label>"Show the answer as "
                <select data-testid="live-render-mode" on:change=move |ev| markdown.set(event_target_value(&ev) == "markdown")>
                    <option value="text">"text"</option>
                    <option value="markdown">"Markdown (as chat apps do)"</option>
                </select>
            </label>
            <label>"Displayed "
                <select data-testid="live-smoothing" prop:value=move || smoothing.get().key()
                    on:change=move |ev| smoothing.set(Smoothing::from_key(&event_target_value(&ev)))>
                    {CHOICES.iter().map(|(k, label)| view! { <option value=*k>{*label}</option> }).collect_view()}
                </select>
            </label>
        </div>
    }
}
