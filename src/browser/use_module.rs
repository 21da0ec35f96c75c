//! [`use_module`]: a view that lives in an on-demand module, fetched the
//! first time the view is shown and mounted into its element.
//!
//! A module is a second wasm binary Trunk builds as an ES module
//! (`data-type="worker" data-bindgen-target="web"`: built, not injected;
//! ARCHITECTURE.md says why). Loading it is a dynamic `import()` of its
//! script, wasm-bindgen's `default()` with its wasm, then its exported
//! `mount(element, part)`, which starts the view `part` in that element.
//! A module holding several views is loaded once for all of them (one
//! instance, whose views share its state). A part that does not load
//! leaves [`ModuleState::Failed`] with one sentence; [`UseModule::retry`]
//! loads it again (under a fresh URL: browsers keep a failed `import()` for
//! the page's lifetime).

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::files::js_message;
use super::page;

#[wasm_bindgen(inline_js = "export function load_module(script, wasm) {
    return import(script).then((m) => m.default({ module_or_path: wasm }).then(() => m));
}")]
extern "C" {
    fn load_module(script: &str, wasm: &str) -> js_sys::Promise;
}

/// A module being loaded or loaded (its exports once started), and how
/// many of its loads failed.
#[derive(Default)]
struct Slot {
    failed: u32,
    loading: Option<js_sys::Promise>,
}

thread_local! {
    /// Every module's slot, by script.
    static SLOTS: RefCell<HashMap<&'static str, Slot>> = RefCell::new(HashMap::new());
}

/// An on-demand module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Module {
    /// What it is, for people ("study designer").
    pub what: &'static str,
    /// Its script (relative to the page), as Trunk names it; the build
    /// gives it a content-hashed name ([`super::page::module_file`]).
    pub script: &'static str,
    /// Its wasm (relative to the page), named likewise.
    pub wasm: &'static str,
    /// Which of its views (its `mount` takes it).
    pub part: &'static str,
}

/// The study designer, results and study server's researcher side.
pub const STUDY_MODULE: Module =
    Module { what: "study view", script: "./study_module.js", wasm: "./study_module_bg.wasm", part: "study" };

/// The module of the views that work on runs and files: Import (with the
/// comparison), Field data, Analyze, the Library (with reports) and a finished live
/// run's results (analysis and charts).
const RUNS: Module = Module { what: "", script: "./runs_module.js", wasm: "./runs_module_bg.wasm", part: "" };

/// The Import view (its module: [`RUNS`]).
pub const IMPORT_VIEW: Module = Module { what: "Import view", part: "import", ..RUNS };
/// The Field view (its module: [`RUNS`]).
pub const FIELD_VIEW: Module = Module { what: "Field view", part: "field", ..RUNS };
/// The Analyze view (its module: [`RUNS`]).
pub const ANALYZE_VIEW: Module = Module { what: "Analyze view", part: "analyze", ..RUNS };
/// A finished live run's results, under the Live view (its module: [`RUNS`]).
pub const LIVE_RESULTS: Module = Module { what: "run's results", part: "live-results", ..RUNS };
/// Live's comparison of endpoints, its set-up (its module: [`RUNS`]).
pub const LIVE_COMPARE: Module = Module { what: "comparison's set-up", part: "live-compare", ..RUNS };
/// The Library view (its module: [`RUNS`]).
pub const LIBRARY_VIEW: Module = Module { what: "library", part: "library", ..RUNS };

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
    let m = UseModule { state: RwSignal::new(ModuleState::Idle) };
    Effect::new(move |_| {
        let idle = m.state.with(|s| *s == ModuleState::Idle);
        let Some(el) = into.get() else { return };
        if !idle || !when.get() {
            return;
        }
        m.state.set(ModuleState::Loading);
        spawn_local(async move {
            let state = match load(module, &el).await {
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

/// The module's exports once it has started: the load under way or done,
/// or a new one (with a fresh URL after a failed one).
fn started(module: Module) -> Result<js_sys::Promise, JsValue> {
    SLOTS.with(|slots| {
        let mut slots = slots.borrow_mut();
        let slot = slots.entry(module.script).or_default();
        if let Some(p) = &slot.loading {
            return Ok(p.clone());
        }
        let (script, wasm) = (page::module_file(module.script), page::module_file(module.wasm));
        let p = load_module(&url_of(&script, slot.failed)?, &url_of(&wasm, slot.failed)?);
        slot.loading = Some(p.clone());
        Ok(p)
    })
}

/// Forgets load `p` of `module`, which failed: the next starts afresh.
fn failed(module: Module, p: &js_sys::Promise) {
    SLOTS.with(|slots| {
        if let Some(slot) = slots.borrow_mut().get_mut(module.script)
            && slot.loading.as_ref().is_some_and(|l| js_sys::Object::is(l, p))
        {
            slot.loading = None;
            slot.failed += 1;
        }
    });
}

async fn load(module: Module, el: &web_sys::HtmlDivElement) -> Result<(), JsValue> {
    let p = started(module)?;
    let exports = JsFuture::from(p.clone()).await.inspect_err(|_| failed(module, &p))?;
    let mount: js_sys::Function = js_sys::Reflect::get(&exports, &"mount".into())?.dyn_into()?;
    mount.call2(&JsValue::NULL, el, &module.part.into())?;
    Ok(())
}
