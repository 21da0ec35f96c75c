//! One pane slot: where the pane's source comes from (a preset, a request of
//! a run of this session, a trace file) and the pane itself.

use lab_core::replay::pane::PaneChoice;
use lab_core::replay::profile;
use leptos::prelude::*;

use super::pane::PaneCard;
use crate::browser::files;
use crate::browser::use_replay_lab::UseReplayLab;
use crate::browser::use_session_runs::SessionRuns;

/// Requests of a session run offered as sources.
pub const MAX_SOURCE_REQUESTS: usize = 20;

/// Pane `index` with its source picker.
#[component]
pub fn PaneSlot(index: usize, shown: Signal<bool>) -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    let runs = expect_context::<SessionRuns>();
    let i = index;
    view! {
        <div class="pane-slot" hidden=move || !shown.get()>
            <PaneCard index=i/>
            <div class="pane-source">
                <label>"Source "
                    <select data-testid=format!("pane-{i}-source") on:change=move |ev| lab.set_source(i, &event_target_value(&ev))>
                        <option value="">"(keep)"</option>
                        <optgroup label="Profiles">
                            {profile::presets().into_iter().map(|p| view! {
                                <option value=format!("profile:{}", p.name)>{p.name.clone()}</option>
                            }).collect_view()}
                        </optgroup>
                        <optgroup label="Runs of this session">
                            {move || runs.runs.get().into_iter().flat_map(|r| {
                                let label = r.trace.meta.label.clone().unwrap_or_default();
                                (0..r.trace.requests.len().min(MAX_SOURCE_REQUESTS)).map(move |k| view! {
                                    <option value=PaneChoice::run_value(r.id, k)>{format!("Run {} · {label} · request {}", r.id, k + 1)}</option>
                                }).collect::<Vec<_>>()
                            }).collect_view()}
                        </optgroup>
                    </select>
                </label>
                <button type="button" class="link" data-testid=format!("pane-{i}-share") on:click=move |_| lab.share(Some(i))>"Link to this profile"</button>
                <label class="file">"or a trace file "
                    <input type="file" accept=".json,application/json" data-testid=format!("pane-{i}-file")
                        on:change=move |ev| {
                            if let Some(f) = files::take_chosen(&ev).into_iter().next() {
                                lab.load_file(i, f);
                            }
                        }/>
                </label>
            </div>
        </div>
    }
}
