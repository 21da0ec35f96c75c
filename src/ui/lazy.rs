//! A view that lives in an on-demand module: a line while it loads, one
//! sentence and Retry when it cannot, then the module's own view.

use leptos::html::Div;
use leptos::prelude::*;

use crate::browser::use_module::{Module, ModuleState, UseModuleOptions, use_module};

/// Mounts `module`'s view the first time `shown` is true.
#[component]
pub fn LazyView(module: Module, shown: Signal<bool>) -> impl IntoView {
    let into = NodeRef::<Div>::new();
    let m = use_module(UseModuleOptions { module, into, when: shown });
    view! {
        {move || match m.state.get() {
            ModuleState::Loading => Some(view! {
                <p class="empty" role="status" data-testid="module-loading">{format!("Opening the {}…", module.what)}</p>
            }.into_any()),
            ModuleState::Failed(e) => Some(view! {
                <p class="error" role="alert" data-testid="module-failed">{e.to_string()}" "
                    <button type="button" class="secondary" data-testid="module-retry" on:click=move |_| m.retry()>"Retry"</button>
                </p>
            }.into_any()),
            ModuleState::Idle | ModuleState::Ready => None,
        }}
        <div node_ref=into data-module=module.what></div>
    }
}
