//! The shape of a live run (once, N in a row, N at once, a concurrency
//! sweep, a prompt-length sweep, a conversation, a request rate), its
//! label, Start and Stop.

use lab_core::load::shape::{RunShape, SHAPES, ShapeForm};
use leptos::prelude::*;

use super::shape_fields::ShapeFields;
use crate::browser::page;
use crate::browser::use_focus_handoff::{UseFocusHandoffOptions, use_focus_handoff};

/// The run controls; `on_start` receives the run's shape and label.
#[component]
pub fn RunControls(
    running: Signal<bool>,
    on_start: Callback<(RunShape, String)>,
    on_stop: Callback<()>,
) -> impl IntoView {
    let kind = RwSignal::new("single".to_string());
    let form = RwSignal::new(ShapeForm::default());
    let label = RwSignal::new(String::new());
    let start = move |_| {
        let seed = (page::random() * f64::from(u32::MAX)) as u64;
        let shape = form.get_untracked().shape(&kind.get_untracked(), seed);
        on_start.run((shape, label.get_untracked()));
    };
    let (start_ref, stop_ref) = (NodeRef::new(), NodeRef::new());
    use_focus_handoff(UseFocusHandoffOptions {
        first: start_ref,
        second: stop_ref,
        first_enabled: Signal::derive(move || !running.get()),
    });
    view! {
        <div class="run-controls">
            <label>"Run "
                <select data-testid="run-mode" prop:value=move || kind.get() prop:disabled=move || running.get()
                    on:change=move |ev| kind.set(event_target_value(&ev))>
                    {SHAPES.iter().map(|(k, l)| view! { <option value=*k>{*l}</option> }).collect_view()}
                </select>
            </label>
            <ShapeFields kind=kind.into() form=form/>
            <label>"Label "
                <input type="text" placeholder="(model name)" data-testid="run-label" prop:value=move || label.get()
                    on:change=move |ev| label.set(event_target_value(&ev))/>
            </label>
            <button type="button" data-testid="start" node_ref=start_ref prop:disabled=move || running.get() on:click=start>"Start"</button>
            <button type="button" class="secondary" data-testid="stop" node_ref=stop_ref prop:disabled=move || !running.get()
                on:click=move |_| on_stop.run(())>"Stop"</button>
        </div>
    }
}
