//! The study module's root: what the study view needs, in the module's own
//! Leptos runtime (its own route, library and scenarios, which follow the
//! main module's through the URL, IndexedDB and Web Storage), and the way
//! back to the main module for running a study as a participant.

use lab_core::share::command::Command;
use leptos::prelude::*;

use super::study::StudyView;
use crate::browser::library::use_library;
use crate::browser::use_commands;
use crate::browser::use_route::use_route;
use crate::browser::use_scenarios::use_scenarios;

/// The study view as the study module mounts it.
#[component]
pub fn StudyModule() -> impl IntoView {
    provide_context(use_route());
    provide_context(use_library());
    provide_context(use_scenarios());
    let run_test = Callback::new(|study| use_commands::send(&Command::RunTest { study: Box::new(study) }));
    view! { <StudyView run_test=run_test/> }
}
