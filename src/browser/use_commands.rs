//! [`use_commands`]: the main module carries out what an on-demand module
//! asks of it ([`send`] a `lab_core::share::command::Command`): running a
//! study as a test participant, whose flow lives here, playing recorded
//! requests in the replay lab, which lives here too, and announcing Live's
//! last run again.

use lab_core::replay::pane::PaneConfig;
use lab_core::share::command::{Command, EVENT};
use lab_core::share::route::{Route, View};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::study::UseParticipantFlow;
use super::use_replay_lab::UseReplayLab;
use super::use_route::UseRoute;
use super::use_run_announcer::RunAnnouncer;

/// Asks the module that owns `command` to carry it out.
pub fn send(command: &Command) {
    super::page::dispatch(EVENT, &command.to_json());
}

/// What carries the commands out.
#[derive(Clone, Copy)]
pub struct UseCommandsOptions {
    /// Runs a study as a test participant.
    pub flow: UseParticipantFlow,
    /// Plays recorded requests.
    pub lab: UseReplayLab,
    /// Shows the Replay view.
    pub route: UseRoute,
    /// Announces Live's last run again.
    pub announcer: RunAnnouncer,
}

/// Carries out the commands sent to the main module while its owner lives.
pub fn use_commands(options: UseCommandsOptions) {
    let UseCommandsOptions { flow, lab, route, announcer } = options;
    let listener = window_event_listener_untyped(EVENT, move |ev: web_sys::Event| {
        let json = ev.dyn_ref::<web_sys::CustomEvent>().and_then(|e| e.detail().as_string());
        match json.as_deref().and_then(Command::from_json) {
            Some(Command::RunTest { study }) => flow.run_test(*study),
            Some(Command::Replay { panes }) => {
                lab.show(
                    panes.into_iter().map(|p| PaneConfig::recorded(p.title, p.label, p.request)).collect(),
                );
                route.go(Route::View(View::Replay));
            }
            Some(Command::AnnounceRun) => announcer.again(),
            // Heard by Live's run hook, which runs it.
            Some(Command::Compare { .. }) => {}
            None => {}
        }
    });
    on_cleanup(move || listener.remove());
}
