//! The endpoint form: preset, base URL, key, model (listed from the
//! server), the wire it streams in, prompt, limits, usage toggle and extra body fields
//! (kept by [`crate::browser::use_endpoint_settings`]; the key never in the
//! config).

use lab_core::stream::endpoint::{EndpointConfig, MaxTokensField, PRESETS};
use lab_core::stream::wire::{WIRES, Wire};
use lab_core::trace::ApiFlavor;
use leptos::prelude::*;

use crate::browser::use_endpoint_settings::UseEndpointSettings;

/// The form.
#[component]
pub fn EndpointForm(settings: UseEndpointSettings, disabled: Signal<bool>) -> impl IntoView {
    view! {
        <form class="endpoint-form" data-testid="endpoint-form" on:submit=|ev| ev.prevent_default()>
            <EndpointFields s=settings disabled=disabled/>
            <RequestFields s=settings disabled=disabled/>
        </form>
    }
}

/// Where the request goes: server, URL, key, model, API.
#[component]
fn EndpointFields(s: UseEndpointSettings, disabled: Signal<bool>) -> impl IntoView {
    let cfg = move || s.config.get();
    view! {
        <fieldset prop:disabled=move || disabled.get()>
            <legend>"Endpoint"</legend>
            <label>"Server "
                <select data-testid="preset" prop:value=move || s.preset.get() on:change=move |ev| s.apply_preset(&event_target_value(&ev))>
                    {PRESETS.iter().map(|p| view! { <option value=p.id>{p.name}</option> }).collect_view()}
                </select>
            </label>
            <label>"Base URL "
                <input type="url" data-testid="base-url" prop:value=move || cfg().base_url
                    on:input=move |ev| s.edit(|c| c.base_url = event_target_value(&ev))
                    on:change=move |_| s.list_models()/>
            </label>
            <label>"API key " {move || if s.needs_key() { "(required)" } else { "(optional)" }}
                <input type="password" autocomplete="off" data-testid="api-key" prop:value=move || s.api_key.get()
                    on:input=move |ev| s.set_key(event_target_value(&ev))/>
            </label>
            <label class="inline">
                <input type="checkbox" data-testid="remember-key" prop:checked=move || s.remember.get()
                    on:change=move |ev| s.set_remember(event_target_checked(&ev))/>
                " Remember the key on this device (otherwise it is forgotten when the tab closes)"
            </label>
            <label>"Model "
                <input type="text" list="model-list" data-testid="model" prop:value=move || cfg().model
                    on:input=move |ev| s.edit(|c| c.model = event_target_value(&ev))/>
                <datalist id="model-list">
                    {move || s.models.get().into_iter().map(|m| view! { <option value=m></option> }).collect_view()}
                </datalist>
            </label>
            <button type="button" class="secondary" data-testid="list-models" on:click=move |_| s.list_models()>"List models"</button>
            {move || s.models_error.get().map(|e| view! { <p class="warn" data-testid="models-error">{e}</p> })}
            <label>"Wire "
                <select data-testid="api-flavour" prop:value=move || wire_value(&cfg())
                    on:change=move |ev| s.edit(|c| set_wire(c, &event_target_value(&ev)))>
                    <option value="chat">"OpenAI Chat: /v1/chat/completions"</option>
                    <option value="completions">"OpenAI Completions: /v1/completions"</option>
                    {WIRES.iter().filter(|w| **w != Wire::Chat).map(|w| view! { <option value=w.id()>{w.name()}</option> }).collect_view()}
                </select>
            </label>
        </fieldset>
    }
}

/// What is asked: messages or prompt, limits, usage, extra fields.
#[component]
fn RequestFields(s: UseEndpointSettings, disabled: Signal<bool>) -> impl IntoView {
    let cfg = move || s.config.get();
    let chat = move || cfg().api == ApiFlavor::Chat;
    view! {
        <fieldset prop:disabled=move || disabled.get()>
            <legend>"Request"</legend>
            <Show when=chat>
                <label>"System message "
                    <textarea rows="2" data-testid="system" prop:value=move || cfg().system
                        on:input=move |ev| s.edit(|c| c.system = event_target_value(&ev))></textarea>
                </label>
            </Show>
            <label>{move || if chat() { "User message " } else { "Prompt " }}
                <textarea rows="4" data-testid="prompt" prop:value=move || cfg().prompt
                    on:input=move |ev| s.edit(|c| c.prompt = event_target_value(&ev))></textarea>
            </label>
            <div class="row">
                <label>"Max tokens "
                    <input type="number" min="1" data-testid="max-tokens" prop:value=move || cfg().max_tokens.to_string()
                        on:input=move |ev| if let Ok(n) = event_target_value(&ev).trim().parse() { s.edit(|c| c.max_tokens = n) }/>
                </label>
                <label>"Temperature "
                    <input type="number" min="0" max="2" step="0.1" data-testid="temperature"
                        prop:value=move || cfg().temperature.map(|t| t.to_string()).unwrap_or_default()
                        on:input=move |ev| s.edit(|c| c.temperature = event_target_value(&ev).trim().parse().ok())/>
                </label>
                <label>"Limit field "
                    <select prop:value=move || cfg().max_tokens_field.name()
                        on:change=move |ev| s.edit(|c| c.max_tokens_field = MaxTokensField::from_name(&event_target_value(&ev)))>
                        <option value="max_tokens">"max_tokens"</option>
                        <option value="max_completion_tokens">"max_completion_tokens"</option>
                    </select>
                </label>
            </div>
            <label class="inline">
                <input type="checkbox" data-testid="include-usage" prop:checked=move || cfg().include_usage
                    on:change=move |ev| s.edit(|c| c.include_usage = event_target_checked(&ev))/>
                " Ask for token usage (stream_options.include_usage)"
            </label>
            <label>"Extra body fields (JSON object) "
                <textarea rows="2" placeholder="{\"ignore_eos\": true}" data-testid="extra-body" prop:value=move || cfg().extra_body
                    on:input=move |ev| s.edit(|c| c.extra_body = event_target_value(&ev))></textarea>
            </label>
        </fieldset>
    }
}

/// The wire select's value: `chat` or `completions` for OpenAI Chat's two
/// routes, else the wire's id.
fn wire_value(c: &EndpointConfig) -> &'static str {
    match (c.wire, c.api) {
        (Wire::Chat, ApiFlavor::Chat) => "chat",
        (Wire::Chat, ApiFlavor::Completions) => "completions",
        (w, _) => w.id(),
    }
}

fn set_wire(c: &mut EndpointConfig, value: &str) {
    c.api = if value == "completions" { ApiFlavor::Completions } else { ApiFlavor::Chat };
    c.wire = Wire::from_id(value).unwrap_or(Wire::Chat);
}
