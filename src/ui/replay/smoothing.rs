//! A pane's display smoothing (off, word pacing, frame pacing) and what it
//! does to the cadence people see, in words (`lab_core::replay::smooth`).

use lab_core::measure::metrics::DEFAULT_STALL_MS;
use lab_core::replay::pane::PaneConfig;
use lab_core::replay::smooth::{self, CHOICES, Smoothing};
use leptos::prelude::*;

use crate::browser::replay_lab::UseReplayLab;

/// The cadence shown against the source's, in one sentence.
fn describe(c: &PaneConfig) -> Option<String> {
    if c.smoothing == Smoothing::Off {
        return None;
    }
    let net = c.network_chunks();
    let raw = smooth::chunk_cadence(&net, &net, DEFAULT_STALL_MS)?;
    let shown = c.cadence(DEFAULT_STALL_MS)?;
    let hidden = raw.network_stalls.saturating_sub(shown.shown_stalls);
    Some(format!(
        "Shown every {:.1} ms at P50 ({:.1} ms at P99) against {:.1} ms ({:.1} ms) as streamed; stalls over {:.0} ms: {} streamed, {} on screen{}; the text ends {:.0} ms after the last token arrived.",
        shown.gap_p50_ms,
        shown.gap_p99_ms,
        raw.gap_p50_ms,
        raw.gap_p99_ms,
        DEFAULT_STALL_MS,
        raw.network_stalls,
        shown.shown_stalls,
        if hidden > 0 { format!(" ({hidden} hidden by smoothing)") } else { String::new() },
        shown.end_delay_ms,
    ))
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
