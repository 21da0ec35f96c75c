//! The shape of a live run (once, N in a row, N at once, a concurrency
//! sweep), its label, Start and Stop.

use lab_core::measure::sweep::RunMode;
use leptos::prelude::*;

/// The run controls; `on_start` receives the run's shape and label.
#[component]
pub fn RunControls(
    running: Signal<bool>,
    on_start: Callback<(RunMode, String)>,
    on_stop: Callback<()>,
) -> impl IntoView {
    let kind = RwSignal::new("single".to_string());
    let n = RwSignal::new(4u32);
    let rounds = RwSignal::new(2u32);
    let label = RwSignal::new(String::new());
    let number = |id: &'static str, max: &'static str, value: RwSignal<u32>| {
        view! {
            <input type="number" min="1" max=max data-testid=id prop:value=move || value.get().to_string()
                on:change=move |ev| value.set(event_target_value(&ev).parse().unwrap_or(1))/>
        }
    };
    let start = move |_| {
        let mode = RunMode::from_choice(&kind.get_untracked(), n.get_untracked(), rounds.get_untracked());
        on_start.run((mode, label.get_untracked()));
    };
    view! {
        <div class="run-controls">
            <label>"Run "
                <select data-testid="run-mode" prop:value=move || kind.get() prop:disabled=move || running.get()
                    on:change=move |ev| kind.set(event_target_value(&ev))>
                    <option value="single">"once"</option>
                    <option value="repeat">"N times in a row"</option>
                    <option value="concurrent">"N at once"</option>
                    <option value="sweep">"concurrency sweep 1…N"</option>
                </select>
            </label>
            <Show when=move || kind.get() != "single"><label>"N "{number("run-n", "256", n)}</label></Show>
            <Show when=move || kind.get() == "sweep"><label>"rounds per level "{number("run-rounds", "20", rounds)}</label></Show>
            <label>"Label "
                <input type="text" placeholder="(model name)" data-testid="run-label" prop:value=move || label.get()
                    on:change=move |ev| label.set(event_target_value(&ev))/>
            </label>
            <button type="button" data-testid="start" prop:disabled=move || running.get() on:click=start>"Start"</button>
            <button type="button" class="secondary" data-testid="stop" prop:disabled=move || !running.get()
                on:click=move |_| on_stop.run(())>"Stop"</button>
        </div>
    }
}
