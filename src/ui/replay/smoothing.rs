//! A pane's display smoothing (off, word pacing, frame pacing) and what it
//! does to the cadence people see, in words (`lab_core::replay::smooth`).

use lab_core::measure::metrics::DEFAULT_STALL_MS;
use lab_core::replay::pane::PaneConfig;
use lab_core::replay::smooth::{CHOICES, Smoothing};
use leptos::prelude::*;

use crate::browser::use_replay_lab::UseReplayLab;

/// The cadence shown against the source's, in one sentence.
fn describe(c: &PaneConfig) -> Option<String> {
    (c.smoothing != Smoothing::Off).then(|| c.cadence(DEFAULT_STALL_MS).map(|k| k.describe())).flatten()
}

/// Pane `index`'s smoothing picker and its cadence note.
#[component]
pub fn PaneSmoothing(index: usize) -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    let i = index;
    let current = move || lab.panes.with(|p| p.get(i).map(|c| c.smoothing).unwrap_or_default());
    let note = move || lab.panes.with(|p| p.get(i).and_then(describe));
    view! {
        <label class="smoothing">"Display "
            <select data-testid=format!("pane-{i}-smoothing") prop:value=move || current().key()
                on:change=move |ev| lab.set_smoothing(i, Smoothing::from_key(&event_target_value(&ev)))>
                {CHOICES.iter().map(|(k, label)| view! { <option value=*k>{*label}</option> }).collect_view()}
            </select>
        </label>
        {move || note().map(|n| view! { <p class="hint" data-testid=format!("pane-{i}-cadence")>{n}</p> })}
    }
}
