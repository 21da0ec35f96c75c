//! [`use_commands`]: the main module carries out what an on-demand module
//! asks of it ([`send`] a `lab_core::share::command::Command`): running a
//! study as a test participant, whose flow lives here.

use lab_core::share::command::{Command, EVENT};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::study::UseParticipantFlow;

/// Asks the module that owns `command` to carry it out.
pub fn send(command: &Command) {
    super::page::dispatch(EVENT, &command.to_json());
}

/// Carries out the commands sent to the main module while its owner lives.
pub fn use_commands(flow: UseParticipantFlow) {
    let listener = window_event_listener_untyped(EVENT, move |ev: web_sys::Event| {
        let json = ev.dyn_ref::<web_sys::CustomEvent>().and_then(|e| e.detail().as_string());
        match json.as_deref().and_then(Command::from_json) {
            Some(Command::RunTest { study }) => flow.run_test(*study),
            None => {}
        }
    });
    on_cleanup(move || listener.remove());
}
