//! The runs module: the Import (with the comparison), Analyze and Library
//! views, fetched when one of them is first opened
//! (`latency_lab_app::browser::use_module`).

use wasm_bindgen::prelude::*;

fn main() {}

/// Mounts view `part` into `el` (called by the main module).
#[wasm_bindgen]
pub fn mount(el: web_sys::HtmlElement, part: String) {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to(el, move || {
        latency_lab_app::ui::RunsModule(latency_lab_app::ui::RunsModuleProps { part })
    })
    .forget();
}
