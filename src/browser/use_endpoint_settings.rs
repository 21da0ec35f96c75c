//! The Live endpoint's settings, kept in browser storage and in step with
//! other tabs (through `leptos-use`'s storage hooks): the preset, the
//! request config and the API key. The key is never part of the config: it
//! sits in `sessionStorage` (gone when the tab closes) unless "remember" is
//! ticked, which moves it to `localStorage`; nothing else ever holds it.
//! Also lists the server's models (`GET <base>/models`).

use codee::string::{FromToStringCodec, JsonSerdeCodec};
use lab_core::stream::endpoint::{self, EndpointConfig, PRESETS};
use leptos::prelude::*;
use leptos_use_storage::{
    UseStorageOptions, use_local_storage, use_local_storage_with_options, use_session_storage,
};

use lab_core::measure::sweep::RunMode;

use super::fetch::get_text;
use super::live::RunSpec;
use super::page;

/// Storage key of the request config (JSON, no key).
pub const CONFIG_KEY: &str = "latency-lab.live.config";
/// Storage key of the chosen preset's id.
pub const PRESET_KEY: &str = "latency-lab.live.preset";
/// Storage key of the API key (session, or local when remembered).
pub const API_KEY: &str = "latency-lab.live.api-key";
/// The preset of the built-in replay endpoint (the page's own server).
pub const REPLAY_PRESET: &str = "replay";

/// The settings and what can be done with them.
#[derive(Clone, Copy)]
pub struct UseEndpointSettings {
    /// Chosen preset id.
    pub preset: Signal<String>,
    /// The request config.
    pub config: Signal<EndpointConfig>,
    /// The API key.
    pub api_key: Signal<String>,
    /// The key is kept on this device.
    pub remember: RwSignal<bool>,
    /// Models the server listed.
    pub models: RwSignal<Vec<String>>,
    /// Why the model list could not be fetched.
    pub models_error: RwSignal<Option<String>>,
    set_preset: WriteSignal<String>,
    set_config: WriteSignal<EndpointConfig>,
    set_local_key: WriteSignal<String>,
    set_session_key: WriteSignal<String>,
    forget_local_key: Callback<()>,
    forget_session_key: Callback<()>,
}

/// Reads the saved settings (the replay preset on a first visit) and lists
/// the models of the endpoint they name.
pub fn use_endpoint_settings() -> UseEndpointSettings {
    let origin = page::origin();
    let fresh = EndpointConfig::from_preset(&PRESETS[0], &origin);
    let (preset, set_preset, _) = use_local_storage::<String, FromToStringCodec>(PRESET_KEY);
    let (config, set_config, _) = use_local_storage_with_options::<EndpointConfig, JsonSerdeCodec>(
        CONFIG_KEY,
        UseStorageOptions::default().initial_value(fresh),
    );
    let (local_key, set_local_key, forget_local) = use_local_storage::<String, FromToStringCodec>(API_KEY);
    let (session_key, set_session_key, forget_session) =
        use_session_storage::<String, FromToStringCodec>(API_KEY);
    if preset.get_untracked().is_empty() {
        set_preset.set(REPLAY_PRESET.into());
    }
    if preset.get_untracked() == REPLAY_PRESET {
        // The built-in endpoint is wherever this page is served from now.
        set_config.update(|c| c.base_url = format!("{origin}/v1"));
    }
    let s = UseEndpointSettings {
        preset,
        config,
        api_key: Signal::derive(move || {
            let local = local_key.get();
            if local.is_empty() { session_key.get() } else { local }
        }),
        remember: RwSignal::new(!local_key.get_untracked().is_empty()),
        models: RwSignal::new(Vec::new()),
        models_error: RwSignal::new(None),
        set_preset,
        set_config,
        set_local_key,
        set_session_key,
        forget_local_key: Callback::new(move |()| forget_local()),
        forget_session_key: Callback::new(move |()| forget_session()),
    };
    s.list_models();
    s
}

impl UseEndpointSettings {
    /// Changes the config.
    pub fn edit(&self, f: impl FnOnce(&mut EndpointConfig)) {
        self.set_config.update(f);
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
        let (keep, forget_other) = if remember {
            (self.set_local_key, self.forget_session_key)
        } else {
            (self.set_session_key, self.forget_local_key)
        };
        forget_other.run(());
        if key.is_empty() {
            self.forget_local_key.run(());
            self.forget_session_key.run(());
        } else {
            keep.set(key);
        }
    }

    /// What a run of `mode` needs, labelled `label` (the model's name when
    /// blank).
    pub fn run_spec(&self, mode: RunMode, label: &str) -> RunSpec {
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
        endpoint::preset(&self.preset.get_untracked()).map_or("", |p| p.cors_hint).to_string()
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
        self.set_preset.set(id.to_string());
        self.set_config.set(c);
        self.models.set(Vec::new());
        self.models_error.set(None);
        self.list_models();
    }

    /// Lists the server's models (`GET <base>/models`); picks the first
    /// when no model is set.
    pub fn list_models(&self) {
        let s = *self;
        let Ok(url) = s.config.get_untracked().models_url() else { return };
        let key = s.api_key.get_untracked();
        leptos::task::spawn_local(async move {
            match get_text(&url, Some(&key)).await {
                Ok(body) => {
                    let models = endpoint::parse_models(&body);
                    s.models_error.set(models.is_empty().then(|| format!("{url} listed no models")));
                    if s.config.get_untracked().model.is_empty()
                        && let Some(first) = models.first()
                    {
                        s.set_config.update(|c| c.model = first.clone());
                    }
                    s.models.set(models);
                }
                Err(e) => s.models_error.set(Some(format!("Could not list models from {url}: {e}"))),
            }
        });
    }
}
