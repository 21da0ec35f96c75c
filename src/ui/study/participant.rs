//! Participant mode: a clean full-screen flow (consent, instructions, then
//! each trial: play, answer) that never shows a condition's name, profile or
//! metrics, only blind labels ("Sample 3", "A", "B"). The flow itself is
//! `lab_core::study::flow`'s; saving, playback and focus are the hook's
//! ([`crate::browser::study::use_participant_flow`]). The page behind is
//! inert while the flow is open; each new step or question takes the
//! keyboard focus and is announced.

use lab_core::study::flow::{Step, pane_label, trial_title};
use leptos::prelude::*;

use super::steps::{QuestionView, StepCard};
use crate::browser::page;
use crate::browser::study::UseParticipantFlow;

/// The full-screen participant flow.
#[component]
pub fn ParticipantMode() -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    let progress = move || f.flow.with(|f| f.as_ref().map(|f| f.progress_text()));
    let quit = move |_| {
        if page::confirm("Leave the study? Your answers so far are saved.") {
            f.leave();
        }
    };
    view! {
        <div class="participant" data-testid="participant" hidden=move || !f.is_open() role="dialog" aria-modal="true"
            aria-label="Study" node_ref=f.overlay>
            <div class="participant-bar">
                <span data-testid="participant-progress">{progress}</span>
                <span data-testid="participant-saved" aria-live="polite">
                    {move || if f.pending.get() > 0 { "saving…" } else if f.save_failed.get() { "not saved" } else { "saved" }}
                </span>
                <ServerStatus/>
                <span class="spacer"></span>
                <button type="button" class="link" on:click=move |_| page::full_screen()>"Full screen"</button>
                <button type="button" class="link" data-testid="participant-quit" on:click=quit>"Leave"</button>
            </div>
            <p class="sr-only" aria-live="polite" data-testid="participant-announce">{move || f.announcement.get()}</p>
            {move || f.error.get().map(|m| view! { <p class="error" role="alert" data-testid="participant-error">{m}</p> })}
            <div class="participant-body">
                <StepCard/>
                <Trial/>
            </div>
        </div>
    }
}

/// The trial in progress: its blind title, the panes, Play, the question.
#[component]
fn Trial() -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    let step = move || f.flow.with(|f| f.as_ref().map(|f| f.step));
    let trial = Memo::new(move |_| f.flow.with(|f| f.as_ref().and_then(|f| f.trial().cloned())));
    let in_trial = move || matches!(step(), Some(Step::Ready | Step::Playing | Step::Answer(_)));
    view! {
        <div class="participant-trial" hidden=move || !in_trial()>
            <p class="trial-title" data-testid="trial-title">{move || trial.get().map(|t| trial_title(&t))}</p>
            <div class="trial-panes" data-panes=move || trial.get().map_or(1, |t| t.conditions.len())>
                {(0..2).map(|i| view! {
                    <div class="trial-pane" hidden=move || { trial.get().is_none_or(|t| t.conditions.len() <= i) }>
                        <h3>{move || trial.get().map_or("", |t| pane_label(&t, i))}</h3>
                        <div class="stream-output markdown" data-testid=format!("trial-output-{i}") node_ref=f.outputs[i] aria-live="off"></div>
                    </div>
                }).collect_view()}
            </div>
            <div class="trial-actions">
                {move || (step() == Some(Step::Ready)).then(|| view! {
                    <button type="button" data-testid="trial-play" data-autofocus="" on:click=move |_| f.play()>"Play"</button>
                })}
                {move || (step() == Some(Step::Playing)).then(|| view! {
                    <p class="hint" tabindex="-1" data-autofocus="">"Watch until it is complete…"</p>
                })}
            </div>
            {move || f.flow.with(|fl| fl.as_ref().and_then(|fl| fl.question().cloned())).map(|q| view! { <QuestionView question=q/> })}
        </div>
    }
}

/// Where the answers are, for a study on a study server: "saved to the
/// study server", or how many wait and why.
#[component]
fn ServerStatus() -> impl IntoView {
    let f = expect_context::<UseParticipantFlow>();
    let o = f.outbox;
    move || {
        f.server.with(Option::is_some).then(|| {
            let answered = move || f.flow.with(|fl| fl.as_ref().map_or(0, |fl| fl.session.responses.len()));
            let text = move || lab_core::study::delivery::status(answered(), o.waiting.get());
            view! {
                <span data-testid="participant-server" aria-live="polite">{text}</span>
                {move || o.problem.get().map(|p| view! { <span class="warn" data-testid="participant-server-problem">{p.to_string()}</span> })}
            }
        })
    }
}
