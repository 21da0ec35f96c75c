//! The scenarios every analysis scores: the presets and the custom ones
//! people saved (a threshold study's perceived tiers), kept in
//! `localStorage` and in step across tabs, so Live, Import and Analyze
//! score with the same list (`lab_core::measure::score::custom`).

use lab_core::measure::score::{Scenario, custom};
use leptos::prelude::*;

use super::files::FileError;
use super::idb::StoreError;
use super::use_storage::{Store, UseStorage, use_storage};

/// Storage key of the custom scenarios.
pub const SCENARIOS_KEY: &str = "latency-lab.scenarios";

/// The scenarios and how to change the custom ones (app-wide context).
#[derive(Clone, Copy)]
pub struct UseScenarios {
    /// Presets, then the custom scenarios.
    pub all: Memo<Vec<Scenario>>,
    /// The custom scenarios.
    pub custom: Memo<Vec<Scenario>>,
    /// Why stored scenarios were left out, or a save failed.
    pub problem: RwSignal<Option<String>>,
    stored: UseStorage,
}

/// Reads the custom scenarios and follows them.
pub fn use_scenarios() -> UseScenarios {
    let stored = use_storage(Store::Local, SCENARIOS_KEY);
    let problem = RwSignal::new(None);
    let custom = Memo::new(move |_| {
        let (good, bad) = stored.value.with(|t| custom::read(t));
        if !bad.is_empty() {
            problem.set(Some(format!("Saved scenarios left out: {}", bad.join("; "))));
        }
        good
    });
    let all = Memo::new(move |_| custom.with(|c| custom::all(c)));
    UseScenarios { all, custom, problem, stored }
}

impl UseScenarios {
    /// Saves `s` (replacing the custom scenario of its id).
    pub fn save(&self, s: Scenario) -> Result<(), StoreError> {
        let next = self.custom.with_untracked(|c| custom::with(c, s));
        self.stored.set(custom::write(&next))
    }

    /// Offers custom scenario `id` as a file, for `latency-lab analyze
    /// --scenario-file`.
    pub fn download(&self, id: &str) -> Result<(), FileError> {
        let name = format!("{id}.scenario.json");
        let s = self
            .custom
            .with_untracked(|c| c.iter().find(|s| s.id == id).cloned())
            .ok_or_else(|| FileError::Offer { name: name.clone(), message: "no such scenario".into() })?;
        let json = serde_json::to_string_pretty(&s).unwrap_or_default();
        super::files::download_text(&name, "application/json", &json)
    }

    /// Removes the custom scenario `id`.
    pub fn remove(&self, id: &str) -> Result<(), StoreError> {
        let next: Vec<Scenario> =
            self.custom.with_untracked(|c| c.iter().filter(|s| s.id != id).cloned().collect());
        self.stored.set(if next.is_empty() { String::new() } else { custom::write(&next) })
    }
}

/// The app's scenarios, or the presets where no app provides them (a
/// component mounted alone in a test).
pub fn scenarios_in_context() -> Signal<Vec<Scenario>> {
    match use_context::<UseScenarios>() {
        Some(s) => s.all.into(),
        None => Signal::stored(lab_core::measure::score::presets()),
    }
}
