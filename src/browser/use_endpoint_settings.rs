//! The Live endpoint's settings, kept in browser storage and in step with
//! other tabs ([`super::use_storage`]): the preset, the
//! request config and the API key. The key is never part of the config: it
//! sits in `sessionStorage` (gone when the tab closes) unless "remember" is
//! ticked, which moves it to `localStorage`; nothing else ever holds it.
//! Also lists the server's models (`GET <base>/models`).

use lab_core::load::shape::RunShape;
use lab_core::stream::endpoint::{self, EndpointConfig};
use leptos::prelude::*;

use super::fetch::get_text_with;
use super::live::RunSpec;
use super::page;
pub use super::use_stored_endpoint::{API_KEY, CONFIG_KEY, PRESET_KEY, REPLAY_PRESET};
use super::use_stored_endpoint::{UseStoredEndpoint, use_stored_endpoint};

/// The settings and what can be done with them.
#[derive(Clone, Copy)]
pub struct UseEndpointSettings {
    /// Chosen preset id.
    pub preset: Signal<String>,
    /// Request config (no key).
    pub config: Signal<EndpointConfig>,
    /// API key (never stored in the config).
    pub api_key: Signal<String>,
    /// Whether the key is kept on this device (`localStorage`).
    pub remember: RwSignal<bool>,
    /// Models listed by the server.
    pub models: RwSignal<Vec<String>>,
    /// Why listing models failed, if it did.
    pub models_error: RwSignal<Option<String>>,
    stored: UseStoredEndpoint,
}

/// Reads the saved settings (the replay preset on a first visit) and lists
/// the models of the endpoint they name.
pub fn use_endpoint_settings() -> UseEndpointSettings {
    let stored = use_stored_endpoint();
    let s = UseEndpointSettings {
        preset: stored.preset,
        config: stored.config,
        api_key: stored.api_key,
        remember: RwSignal::new(!stored.local_key.value.get_untracked().is_empty()),
        models: RwSignal::new(Vec::new()),
        models_error: RwSignal::new(None),
        stored,
    };
    if s.preset.get_untracked() == REPLAY_PRESET {
        // The built-in endpoint is wherever this page is served from now
        // (once, at start: a base URL typed afterwards stays).
        s.edit(|c| c.base_url = format!("{}/v1", page::origin()));
    }
    s.list_models();
    s
}

impl UseEndpointSettings {
    /// Changes the config (and stores it, without the key).
    pub fn edit(&self, f: impl FnOnce(&mut EndpointConfig)) {
        let old = self.config.get_untracked();
        let mut c = old.clone();
        f(&mut c);
        // Unchanged (`0.` on the way to `0.5`): the field is not rewritten.
        if c != old {
            self.store_config(&c);
        }
    }

    fn store_config(&self, c: &EndpointConfig) {
        if let Ok(json) = serde_json::to_string(c) {
            let _ = self.stored.stored_config.set(json);
        }
    }

    /// Sets the key, kept where [`Self::remember`] says.
    pub fn set_key(&self, key: String) {
        self.store_key(key, self.remember.get_untracked());
    }

    /// Keeps the key on this device, or only for this tab.
    pub fn set_remember(&self, on: bool) {
        self.remember.set(on);
        self.store_key(self.api_key.get_untracked(), on);
    }

    fn store_key(&self, key: String, remember: bool) {
        let (keep, other) = if remember {
            (self.stored.local_key, self.stored.session_key)
        } else {
            (self.stored.session_key, self.stored.local_key)
        };
        let _ = other.set(String::new());
        let _ = keep.set(key);
    }

    /// What a run of `mode` needs, labelled `label` (the model's name when
    /// blank).
    pub fn run_spec(&self, mode: RunShape, label: &str) -> RunSpec {
        let config = self.config.get_untracked();
        RunSpec {
            label: if label.trim().is_empty() { config.model.clone() } else { label.to_string() },
            api_key: Some(self.api_key.get_untracked()).filter(|k| !k.is_empty()),
            cors_hint: self.cors_hint(),
            mode,
            config,
        }
    }

    /// The CORS advice of the chosen preset.
    pub fn cors_hint(&self) -> String {
        self.stored.cors_hint()
    }

    /// Whether the chosen preset needs a key.
    pub fn needs_key(&self) -> bool {
        endpoint::preset(&self.preset.get()).is_some_and(|p| p.needs_key)
    }

    /// Applies a preset's defaults, keeping the prompt.
    pub fn apply_preset(&self, id: &str) {
        let Some(p) = endpoint::preset(id) else { return };
        let old = self.config.get_untracked();
        let mut c = EndpointConfig::from_preset(p, &page::origin());
        c.prompt = old.prompt;
        c.system = old.system;
        let _ = self.stored.stored_preset.set(id.to_string());
        self.store_config(&c);
        self.models.set(Vec::new());
        self.models_error.set(None);
        self.list_models();
    }

    /// Lists the server's models (`GET <base>/models`); picks the first
    /// when no model is set.
    pub fn list_models(&self) {
        let s = *self;
        let config = s.config.get_untracked();
        let Ok(url) = config.models_url() else { return };
        let auth = config.auth_headers(Some(&s.api_key.get_untracked()));
        leptos::task::spawn_local(async move {
            match get_text_with(&url, &auth).await {
                Ok(body) => {
                    let models = endpoint::parse_models(&body);
                    s.models_error.set(models.is_empty().then(|| format!("{url} listed no models")));
                    if s.config.get_untracked().model.is_empty()
                        && let Some(first) = models.first()
                    {
                        s.edit(|c| c.model = first.clone());
                    }
                    s.models.set(models);
                }
                Err(e) => s.models_error.set(Some(format!("Could not list models from {url}: {e}"))),
            }
        });
    }
}
