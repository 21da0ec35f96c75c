//! The study module: the study designer, results (both kinds) and the study
//! server's researcher side, fetched when the study view is first opened
//! (`latency_lab_app::browser::use_module`).

use wasm_bindgen::prelude::*;

fn main() {}

/// Mounts the study view into `el` (called by the main module; `_part` is
/// `study`, its only view).
#[wasm_bindgen]
pub fn mount(el: web_sys::HtmlElement, _part: String) {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to(el, latency_lab_app::ui::StudyModule).forget();
}
