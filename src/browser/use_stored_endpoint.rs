//! [`use_stored_endpoint`]: the Live endpoint as browser storage holds it,
//! read only (the preset, the request config and the key, in step with the
//! form in any module or tab: [`super::use_storage`]), and one endpoint of
//! it for a comparison ([`UseStoredEndpoint::side`]). The form that edits
//! it is [`super::use_endpoint_settings`], built on this.

use lab_core::share::command::CompareSide;
use lab_core::stream::endpoint::{self, EndpointConfig, PRESETS};
use leptos::prelude::*;

use super::page;
use super::use_storage::{Store, UseStorage, use_storage};

/// Storage key of the request config (JSON, no key).
pub const CONFIG_KEY: &str = "latency-lab.live.config";
/// Storage key of the chosen preset's id.
pub const PRESET_KEY: &str = "latency-lab.live.preset";
/// Storage key of the API key (session, or local when remembered).
pub const API_KEY: &str = "latency-lab.live.api-key";
/// The preset of the built-in replay endpoint (the page's own server).
pub const REPLAY_PRESET: &str = "replay";

/// The stored endpoint.
#[derive(Clone, Copy)]
pub struct UseStoredEndpoint {
    /// Chosen preset id (the replay endpoint's on a first visit).
    pub preset: Signal<String>,
    /// The request config (the first preset's on a first visit).
    pub config: Signal<EndpointConfig>,
    /// The key (from `localStorage` when remembered, else the tab's).
    pub api_key: Signal<String>,
    pub(super) stored_preset: UseStorage,
    pub(super) stored_config: UseStorage,
    pub(super) local_key: UseStorage,
    pub(super) session_key: UseStorage,
}

/// Reads the stored endpoint.
pub fn use_stored_endpoint() -> UseStoredEndpoint {
    let stored_preset = use_storage(Store::Local, PRESET_KEY);
    let stored_config = use_storage(Store::Local, CONFIG_KEY);
    let local_key = use_storage(Store::Local, API_KEY);
    let session_key = use_storage(Store::Session, API_KEY);
    let fresh = EndpointConfig::from_preset(&PRESETS[0], &page::origin());
    UseStoredEndpoint {
        preset: Signal::derive(move || {
            let p = stored_preset.value.get();
            if p.is_empty() { REPLAY_PRESET.to_string() } else { p }
        }),
        config: Signal::derive(move || {
            let stored = stored_config.value.with(|json| serde_json::from_str::<EndpointConfig>(json).ok());
            stored.unwrap_or_else(|| fresh.clone())
        }),
        api_key: Signal::derive(move || {
            let local = local_key.value.get();
            if local.is_empty() { session_key.value.get() } else { local }
        }),
        stored_preset,
        stored_config,
        local_key,
        session_key,
    }
}

impl UseStoredEndpoint {
    /// The CORS advice of the chosen preset.
    pub fn cors_hint(&self) -> String {
        endpoint::preset(&self.preset.get_untracked()).map_or("", |p| p.cors_hint).to_string()
    }

    /// The endpoint as it stands, with its key, for a comparison.
    pub fn side(&self) -> CompareSide {
        CompareSide {
            config: self.config.get_untracked(),
            key: Some(self.api_key.get_untracked()).filter(|k| !k.is_empty()),
            cors_hint: self.cors_hint(),
        }
    }
}
