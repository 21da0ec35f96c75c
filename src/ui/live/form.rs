//! The endpoint form: preset, base URL, key, model (listed from the server),
//! API flavour, prompt, limits, usage toggle and extra body fields.
//! Settings persist in `localStorage` without the key; the key stays in
//! `sessionStorage` unless "remember" is ticked.

use lab_core::stream::endpoint::{self, EndpointConfig, MaxTokensField, PRESETS};
use lab_core::trace::ApiFlavor;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::live::get_text;
use crate::browser::storage::{self, Store};

const CONFIG_KEY: &str = "latency-lab.live.config";
const PRESET_KEY: &str = "latency-lab.live.preset";
const API_KEY: &str = "latency-lab.live.api-key";

/// The form's state (all signals, so the view and the run share it).
#[derive(Clone, Copy)]
pub struct FormState {
    /// Chosen preset id.
    pub preset: RwSignal<String>,
    /// The request config.
    pub config: RwSignal<EndpointConfig>,
    /// The API key (never in `config`).
    pub api_key: RwSignal<String>,
    /// Keep the key in localStorage.
    pub remember: RwSignal<bool>,
    /// Models the server listed.
    pub models: RwSignal<Vec<String>>,
    /// Why the model list could not be fetched.
    pub models_error: RwSignal<Option<String>>,
}

fn page_origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

impl FormState {
    /// Restores saved settings, or the replay preset.
    pub fn load() -> Self {
        let preset = storage::get(Store::Local, PRESET_KEY).unwrap_or_else(|| "replay".into());
        let mut config = storage::get(Store::Local, CONFIG_KEY)
            .and_then(|s| serde_json::from_str::<EndpointConfig>(&s).ok())
            .unwrap_or_else(|| EndpointConfig::from_preset(&PRESETS[0], &page_origin()));
        if preset == "replay" {
            // The built-in endpoint is wherever this page is served from now.
            config.base_url = format!("{}/v1", page_origin());
        }
        let remembered = storage::get(Store::Local, API_KEY);
        let key = remembered.clone().or_else(|| storage::get(Store::Session, API_KEY)).unwrap_or_default();
        Self {
            preset: RwSignal::new(preset),
            config: RwSignal::new(config),
            api_key: RwSignal::new(key),
            remember: RwSignal::new(remembered.is_some()),
            models: RwSignal::new(Vec::new()),
            models_error: RwSignal::new(None),
        }
    }

    /// Saves settings (config without key; key per the remember choice).
    pub fn save(&self) {
        let _ = storage::set(Store::Local, PRESET_KEY, &self.preset.get_untracked());
        if let Ok(json) = serde_json::to_string(&self.config.get_untracked()) {
            let _ = storage::set(Store::Local, CONFIG_KEY, &json);
        }
        let key = self.api_key.get_untracked();
        if self.remember.get_untracked() && !key.is_empty() {
            let _ = storage::set(Store::Local, API_KEY, &key);
            storage::remove(Store::Session, API_KEY);
        } else {
            storage::remove(Store::Local, API_KEY);
            let _ = storage::set(Store::Session, API_KEY, &key);
        }
    }

    /// The CORS advice of the chosen preset.
    pub fn cors_hint(&self) -> String {
        endpoint::preset(&self.preset.get_untracked()).map_or("", |p| p.cors_hint).to_string()
    }

    /// Applies a preset's defaults, keeping the prompt.
    pub fn apply_preset(&self, id: &str) {
        let Some(p) = endpoint::preset(id) else { return };
        let prompt = self.config.get_untracked();
        let mut c = EndpointConfig::from_preset(p, &page_origin());
        c.prompt = prompt.prompt;
        c.system = prompt.system;
        self.preset.set(id.to_string());
        self.config.set(c);
        self.models.set(Vec::new());
        self.models_error.set(None);
        self.save();
        self.fetch_models();
    }

    /// Lists the server's models (`GET <base>/models`).
    pub fn fetch_models(&self) {
        let s = *self;
        let Ok(url) = s.config.get_untracked().models_url() else { return };
        let key = s.api_key.get_untracked();
        spawn_local(async move {
            match get_text(&url, Some(&key)).await {
                Ok(body) => {
                    let models = endpoint::parse_models(&body);
                    s.models_error.set(models.is_empty().then(|| format!("{url} listed no models")));
                    let current = s.config.get_untracked().model;
                    if current.is_empty()
                        && let Some(first) = models.first()
                    {
                        s.config.update(|c| c.model = first.clone());
                    }
                    s.models.set(models);
                }
                Err(e) => s.models_error.set(Some(format!("Could not list models from {url}: {e}"))),
            }
        });
    }

    fn edit(&self, f: impl FnOnce(&mut EndpointConfig)) {
        self.config.update(f);
        self.save();
    }
}

/// The form.
#[component]
pub fn EndpointForm(state: FormState, disabled: Signal<bool>) -> impl IntoView {
    let s = state;
    let cfg = move || s.config.get();
    let needs_key = move || endpoint::preset(&s.preset.get()).is_some_and(|p| p.needs_key);
    view! {
        <form class="endpoint-form" data-testid="endpoint-form" on:submit=|ev| ev.prevent_default()>
            <fieldset prop:disabled=move || disabled.get()>
                <legend>"Endpoint"</legend>
                <label>
                    "Server "
                    <select
                        data-testid="preset"
                        prop:value=move || s.preset.get()
                        on:change=move |ev| s.apply_preset(&event_target_value(&ev))
                    >
                        {PRESETS.iter().map(|p| view! { <option value=p.id>{p.name}</option> }).collect_view()}
                    </select>
                </label>
                <label>
                    "Base URL "
                    <input
                        type="url"
                        data-testid="base-url"
                        prop:value=move || cfg().base_url
                        on:change=move |ev| {
                            s.edit(|c| c.base_url = event_target_value(&ev));
                            s.fetch_models();
                        }
                    />
                </label>
                <label>
                    "API key " {move || if needs_key() { "(required)" } else { "(optional)" }}
                    <input
                        type="password"
                        autocomplete="off"
                        data-testid="api-key"
                        prop:value=move || s.api_key.get()
                        on:change=move |ev| {
                            s.api_key.set(event_target_value(&ev));
                            s.save();
                        }
                    />
                </label>
                <label class="inline">
                    <input
                        type="checkbox"
                        data-testid="remember-key"
                        prop:checked=move || s.remember.get()
                        on:change=move |ev| {
                            s.remember.set(event_target_checked(&ev));
                            s.save();
                        }
                    />
                    " Remember the key on this device (otherwise it is forgotten when the tab closes)"
                </label>
                <label>
                    "Model "
                    <input
                        type="text"
                        list="model-list"
                        data-testid="model"
                        prop:value=move || cfg().model
                        on:change=move |ev| s.edit(|c| c.model = event_target_value(&ev))
                    />
                    <datalist id="model-list">
                        {move || s.models.get().into_iter().map(|m| view! { <option value=m.clone()></option> }).collect_view()}
                    </datalist>
                </label>
                <button type="button" class="secondary" data-testid="list-models" on:click=move |_| s.fetch_models()>
                    "List models"
                </button>
                {move || s.models_error.get().map(|e| view! { <p class="warn" data-testid="models-error">{e}</p> })}
                <label>
                    "API "
                    <select
                        data-testid="api-flavour"
                        prop:value=move || if cfg().api == ApiFlavor::Chat { "chat" } else { "completions" }
                        on:change=move |ev| {
                            let chat = event_target_value(&ev) == "chat";
                            s.edit(|c| c.api = if chat { ApiFlavor::Chat } else { ApiFlavor::Completions });
                        }
                    >
                        <option value="chat">"/v1/chat/completions"</option>
                        <option value="completions">"/v1/completions"</option>
                    </select>
                </label>
            </fieldset>
            <fieldset prop:disabled=move || disabled.get()>
                <legend>"Request"</legend>
                <Show when=move || cfg().api == ApiFlavor::Chat>
                    <label>
                        "System message "
                        <textarea
                            rows="2"
                            data-testid="system"
                            prop:value=move || cfg().system
                            on:change=move |ev| s.edit(|c| c.system = event_target_value(&ev))
                        ></textarea>
                    </label>
                </Show>
                <label>
                    {move || if cfg().api == ApiFlavor::Chat { "User message " } else { "Prompt " }}
                    <textarea
                        rows="4"
                        data-testid="prompt"
                        prop:value=move || cfg().prompt
                        on:change=move |ev| s.edit(|c| c.prompt = event_target_value(&ev))
                    ></textarea>
                </label>
                <div class="row">
                    <label>
                        "Max tokens "
                        <input
                            type="number"
                            min="1"
                            data-testid="max-tokens"
                            prop:value=move || cfg().max_tokens.to_string()
                            on:change=move |ev| {
                                let v = event_target_value(&ev).parse().unwrap_or(0);
                                s.edit(|c| c.max_tokens = v);
                            }
                        />
                    </label>
                    <label>
                        "Temperature "
                        <input
                            type="number"
                            min="0"
                            max="2"
                            step="0.1"
                            data-testid="temperature"
                            prop:value=move || cfg().temperature.map(|t| t.to_string()).unwrap_or_default()
                            on:change=move |ev| {
                                let v = event_target_value(&ev).parse().ok();
                                s.edit(|c| c.temperature = v);
                            }
                        />
                    </label>
                    <label>
                        "Limit field "
                        <select
                            prop:value=move || if cfg().max_tokens_field == MaxTokensField::MaxTokens { "max_tokens" } else { "max_completion_tokens" }
                            on:change=move |ev| {
                                let v = event_target_value(&ev);
                                s.edit(|c| {
                                    c.max_tokens_field = if v == "max_tokens" {
                                        MaxTokensField::MaxTokens
                                    } else {
                                        MaxTokensField::MaxCompletionTokens
                                    }
                                });
                            }
                        >
                            <option value="max_tokens">"max_tokens"</option>
                            <option value="max_completion_tokens">"max_completion_tokens"</option>
                        </select>
                    </label>
                </div>
                <label class="inline">
                    <input
                        type="checkbox"
                        data-testid="include-usage"
                        prop:checked=move || cfg().include_usage
                        on:change=move |ev| {
                            let v = event_target_checked(&ev);
                            s.edit(|c| c.include_usage = v);
                        }
                    />
                    " Ask for token usage (stream_options.include_usage)"
                </label>
                <label>
                    "Extra body fields (JSON object) "
                    <textarea
                        rows="2"
                        placeholder="{\"ignore_eos\": true}"
                        data-testid="extra-body"
                        prop:value=move || cfg().extra_body
                        on:change=move |ev| s.edit(|c| c.extra_body = event_target_value(&ev))
                    ></textarea>
                </label>
            </fieldset>
        </form>
    }
}
