//! The replay lab's controls: stories, play/pause, speed, rendering,
//! scheduler, panes and the share link.

use lab_core::replay::story;
use leptos::prelude::*;

use crate::browser::replay::{MAX_PANES, RenderMode, SchedulerKind};
use crate::browser::use_replay_lab::{MIN_PANES, UseReplayLab};

/// Playback speeds offered.
pub const SPEEDS: [f64; 6] = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0];

/// The stories, one button each.
#[component]
pub fn StoryPicker() -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    view! {
        <div class="stories" role="group" aria-label="Stories">
            {story::stories().into_iter().map(|s| {
                let id = s.id.clone();
                view! {
                    <button type="button" class="chip" data-testid=format!("story-{}", s.id)
                        aria-pressed=move || (lab.story_id.get() == s.id).to_string()
                        on:click=move |_| lab.choose_story(&id)>
                        {s.title}
                    </button>
                }
            }).collect_view()}
        </div>
    }
}

/// Play, restart, loop, speed, rendering, scheduler.
#[component]
pub fn ReplayControls() -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    let e = lab.engine;
    view! {
        <div class="replay-controls">
            <button type="button" data-testid="play" on:click=move |_| lab.toggle_play()>
                {move || if e.playing.get() { "Pause" } else { "Play" }}
            </button>
            <button type="button" class="secondary" data-testid="restart" on:click=move |_| e.restart()>"Restart"</button>
            <label class="inline">
                <input type="checkbox" data-testid="loop" prop:checked=move || lab.looping.get()
                    on:change=move |ev| lab.set_loop(event_target_checked(&ev))/>
                " Loop"
            </label>
            <label>"Speed "
                <select data-testid="speed" prop:value=move || lab.speed.get().to_string()
                    on:change=move |ev| lab.set_speed(event_target_value(&ev).parse().unwrap_or(1.0))>
                    {SPEEDS.iter().map(|s| view! { <option value=s.to_string()>{format!("×{s}")}</option> }).collect_view()}
                </select>
            </label>
            <label>"Render "
                <select data-testid="render-mode" prop:value=move || lab.render.get().name() on:change=move |ev| lab.set_render(
                    if event_target_value(&ev) == "markdown" { RenderMode::Markdown } else { RenderMode::Text })>
                    <option value="text">"plain text"</option>
                    <option value="markdown">"Markdown"</option>
                </select>
            </label>
            <label>"Scheduler "
                <select data-testid="scheduler" prop:value=move || lab.scheduler.get().name() on:change=move |ev| lab.set_scheduler(
                    if event_target_value(&ev) == "naive" { SchedulerKind::Naive } else { SchedulerKind::Precise })>
                    <option value="precise">"precise"</option>
                    <option value="naive">"naive (setTimeout)"</option>
                </select>
            </label>
        </div>
    }
}

/// Panes in and out, and a link to them all (under the panes, so the
/// playing panes come first on the screen).
#[component]
pub fn PaneActions(panes: Signal<usize>) -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    view! {
        <div class="replay-controls">
            <button type="button" class="secondary" data-testid="add-pane" prop:disabled=move || { panes.get() >= MAX_PANES }
                on:click=move |_| lab.add_pane()>"Add pane"</button>
            <button type="button" class="secondary" data-testid="remove-pane" prop:disabled=move || { panes.get() <= MIN_PANES }
                on:click=move |_| lab.remove_pane()>"Remove pane"</button>
            <button type="button" class="secondary" data-testid="replay-share" on:click=move |_| lab.share(None)>"Share link"</button>
        </div>
    }
}

/// The share link just made, or why there is none.
#[component]
pub fn ShareLine() -> impl IntoView {
    let lab = expect_context::<UseReplayLab>();
    move || {
        lab.share_link.get().map(|r| match r {
            Ok(url) => view! {
                <p class="share-link">
                    <label>"Link to these panes (copied): "<input type="text" readonly data-testid="replay-link" prop:value=url/></label>
                    " "<button type="button" class="link" on:click=move |_| lab.share_link.set(None)>"Hide"</button>
                </p>
            }
            .into_any(),
            Err(m) => view! { <p class="error" role="alert" data-testid="replay-link-error">{m.to_string()}</p> }.into_any(),
        })
    }
}
