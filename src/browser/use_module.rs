//! [`use_module`]: a view that lives in an on-demand module, fetched the
//! first time the view is shown and mounted into its element.
//!
//! A module is a second wasm binary Trunk builds as an ES module
//! (`data-type="worker" data-bindgen-target="web"`: built, not injected;
//! ARCHITECTURE.md says why). Loading it is a dynamic `import()` of its
//! script, wasm-bindgen's `default()` with its wasm, then its exported
//! `mount(element)`, which starts the view's own Leptos runtime in that
//! element. A part that does not load leaves [`ModuleState::Failed`] with
//! one sentence; [`UseModule::retry`] loads it again (under a fresh URL:
//! browsers keep a failed `import()` for the page's lifetime).

use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::files::js_message;

#[wasm_bindgen(inline_js = "export function import_module(url) { return import(url); }")]
extern "C" {
    fn import_module(url: &str) -> js_sys::Promise;
}

/// An on-demand module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Module {
    /// What it is, for people ("study designer").
    pub what: &'static str,
    /// Its script (relative to the page).
    pub script: &'static str,
    /// Its wasm (relative to the page).
    pub wasm: &'static str,
}

/// The study designer, results and study server's researcher side.
pub const STUDY_MODULE: Module =
    Module { what: "study view", script: "./study_module.js", wasm: "./study_module_bg.wasm" };

/// Why a module is not on the page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// Its script or wasm did not load (offline, the server gone, blocked).
    #[error("The {what} could not be loaded ({why}). Check the connection, then press Retry.")]
    NotLoaded {
        /// What it is.
        what: &'static str,
        /// What the browser said.
        why: String,
    },
}

/// Where a module is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleState {
    /// Not asked for yet.
    Idle,
    /// Being fetched and started.
    Loading,
    /// Mounted.
    Ready,
    /// It did not load.
    Failed(ModuleError),
}

/// What [`use_module`] loads, where, and when.
#[derive(Clone, Copy)]
pub struct UseModuleOptions {
    /// The module.
    pub module: Module,
    /// The element its view is mounted into.
    pub into: NodeRef<Div>,
    /// Load it the first time this is true (its view is shown).
    pub when: Signal<bool>,
}

/// The module's state and actions.
#[derive(Clone, Copy)]
pub struct UseModule {
    /// Where it is.
    pub state: RwSignal<ModuleState>,
    attempts: StoredValue<u32>,
}

impl UseModule {
    /// Loads it again after it failed.
    pub fn retry(&self) {
        if matches!(self.state.get_untracked(), ModuleState::Failed(_)) {
            self.state.set(ModuleState::Idle);
        }
    }
}

/// Loads `module` into `into` once `when` is first true.
pub fn use_module(options: UseModuleOptions) -> UseModule {
    let UseModuleOptions { module, into, when } = options;
    let m = UseModule { state: RwSignal::new(ModuleState::Idle), attempts: StoredValue::new(0) };
    Effect::new(move |_| {
        let idle = m.state.with(|s| *s == ModuleState::Idle);
        let Some(el) = into.get() else { return };
        if !idle || !when.get() {
            return;
        }
        m.state.set(ModuleState::Loading);
        let attempt = m.attempts.get_value();
        m.attempts.set_value(attempt + 1);
        spawn_local(async move {
            let state = match load(module, &el, attempt).await {
                Ok(()) => ModuleState::Ready,
                Err(e) => {
                    ModuleState::Failed(ModuleError::NotLoaded { what: module.what, why: js_message(&e) })
                }
            };
            let _ = m.state.try_set(state);
        });
    });
    m
}

/// `path` relative to the page, absolute (a dynamic `import()` resolves
/// against the script it is written in); attempts after the first get a
/// fresh query so the browser fetches again.
fn url_of(path: &str, attempt: u32) -> Result<String, JsValue> {
    let base = web_sys::window().and_then(|w| w.document()).and_then(|d| d.base_uri().ok().flatten());
    let url = web_sys::Url::new_with_base(path, &base.unwrap_or_default())?;
    if attempt > 0 {
        url.search_params().set("attempt", &attempt.to_string());
    }
    Ok(url.href())
}

async fn load(module: Module, el: &web_sys::HtmlDivElement, attempt: u32) -> Result<(), JsValue> {
    let exports = JsFuture::from(import_module(&url_of(module.script, attempt)?)).await?;
    let init: js_sys::Function = js_sys::Reflect::get(&exports, &"default".into())?.dyn_into()?;
    let args = js_sys::Object::new();
    js_sys::Reflect::set(&args, &"module_or_path".into(), &url_of(module.wasm, attempt)?.into())?;
    JsFuture::from(init.call1(&JsValue::NULL, &args)?.dyn_into::<js_sys::Promise>()?).await?;
    let mount: js_sys::Function = js_sys::Reflect::get(&exports, &"mount".into())?.dyn_into()?;
    mount.call1(&JsValue::NULL, el)?;
    Ok(())
}
