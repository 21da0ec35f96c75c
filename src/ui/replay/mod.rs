//! The replay lab: 2–4 panes of profiles or recorded requests played side
//! by side with exact timing, to feel "same tokens/s, different experience"
//! (state and actions: [`crate::browser::use_replay_lab`]).

mod controls;
mod editor;
mod pane;
mod slot;
mod smoothing;

use lab_core::chart::plot::token_timeline;
use lab_core::replay::story;
use leptos::prelude::*;

use controls::{PaneActions, ReplayControls, ShareLine, StoryPicker};
pub use editor::ProfileEditor;
pub use pane::{PaneCard, PaneOutcome};
use slot::PaneSlot;

use crate::browser::replay::MAX_PANES;
use crate::browser::use_replay_lab::UseReplayLab;
use crate::ui::charts::TimelineChart;

/// The replay view.
#[component]
pub fn ReplayView() -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    let n = Signal::derive(move || lab.panes.with(Vec::len));
    view! {
        <section class="panel replay" data-testid="replay-view">
            <h2>"Replay: feel the difference"</h2>
            <StoryPicker/>
            <p class="story-explanation" data-testid="story-explanation">
                {move || story::story(&lab.story_id.get()).map(|s| s.explanation)}
            </p>
            <p class="hint story-scores" data-testid="story-scores">
                {move || story::story(&lab.story_id.get()).map(|s| s.scores_sentence())}
            </p>
            <ReplayControls/>
            {move || lab.engine.notice.get().map(|m| view! { <p class="warn" role="status" data-testid="replay-notice">{m}</p> })}
            {move || lab.file_error.get().map(|m| view! { <p class="error" role="alert" data-testid="replay-file-error">{m}</p> })}
            <div class="panes" style=move || format!("--panes: {}", n.get())>
                {(0..MAX_PANES).map(|i| view! { <PaneSlot index=i shown=Signal::derive(move || i < n.get())/> }).collect_view()}
            </div>
            <PaneActions panes=n/>
            <ShareLine/>
            <Overlaid/>
        </section>
    }
}

/// The finished panes' token timelines in one chart.
#[component]
fn Overlaid() -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    move || {
        let series: Vec<(String, lab_core::chart::plot::Timeline)> = (0..lab.panes.with(Vec::len))
            .filter_map(|i| {
                let run = lab.engine.panes[i].result.get()?;
                let title = lab.panes.with(|p| p.get(i).map(|c| c.title.clone())).unwrap_or_default();
                Some((title, token_timeline(run.trace.requests.first()?, &run.config)))
            })
            .collect();
        (series.len() >= 2).then(|| view! {
            <TimelineChart id="chart-replay-timeline".to_string() title="The panes overlaid: tokens over time".to_string() series=series/>
        })
    }
}
