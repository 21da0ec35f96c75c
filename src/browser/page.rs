//! The page itself: its address, the wall clock and calendar, random
//! numbers, the clipboard, full screen and asking the person. Thin wrappers,
//! so views never reach for `window` themselves.

use wasm_bindgen::{JsCast, JsValue};

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// The page's origin (`http://127.0.0.1:8080`), empty without a window.
pub fn origin() -> String {
    window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// The page's address without its fragment (origin and path).
pub fn base_url() -> String {
    let path = window().and_then(|w| w.location().pathname().ok()).unwrap_or_default();
    format!("{}{path}", origin())
}

/// `path` of an on-demand module's file under the content-hashed name the
/// build gave it (listed in the page's `lab_core::share::modules::META`
/// tag; the plain name when the page lists none).
pub fn module_file(path: &str) -> String {
    let selector = format!("meta[name=\"{}\"]", lab_core::share::modules::META);
    let listed = window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(&selector).ok().flatten())
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_default();
    lab_core::share::modules::named(path, &listed)
}

/// The URL fragment, with its `#` (empty when there is none).
pub fn fragment() -> String {
    window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Milliseconds since the Unix epoch (the wall clock: for names and
/// "saved at", never for measuring).
pub fn epoch_ms() -> f64 {
    js_sys::Date::now()
}

/// When this page was opened, in ms since the Unix epoch (the same for
/// every module of the page: `performance.timeOrigin`; for "saved in this
/// page", never for measuring).
pub fn opened_ms() -> f64 {
    window().and_then(|w| w.performance()).map_or_else(epoch_ms, |p| p.time_origin())
}

/// Now as ISO 8601 (`2026-12-03T10:00:00.000Z`).
pub fn iso_now() -> String {
    js_sys::Date::new_0().to_iso_string().into()
}

/// Today as `YYYY-MM-DD`.
pub fn today() -> String {
    iso_now().chars().take(10).collect()
}

/// A moment (ms since the epoch) as a local date and time for people, in
/// the browser's own locale (as its date pickers show dates):
/// `toLocaleString()` with no locale named. Naming `navigator.language`
/// threw a RangeError in WebKitGTK (its language is not always a valid
/// BCP 47 tag), which left the Library without rows; on any error the ISO
/// time is shown.
pub fn local_time(epoch_ms: f64) -> String {
    let date = js_sys::Date::new(&epoch_ms.into());
    js_sys::Reflect::get(&date, &JsValue::from_str("toLocaleString"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call0(&date).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| date.to_iso_string().into())
}

/// A random number in `[0, 1)` (not for secrets).
pub fn random() -> f64 {
    js_sys::Math::random()
}

/// Copies text to the clipboard (best effort: the text is also shown for
/// copying by hand).
pub fn copy(text: &str) {
    if let Some(w) = window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// Asks the person to confirm (true without a window, as nothing can ask).
pub fn confirm(question: &str) -> bool {
    window().and_then(|w| w.confirm_with_message(question).ok()).unwrap_or(true)
}

/// Shows the whole page full screen (the browser may refuse).
pub fn full_screen() {
    if let Some(el) = window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = el.request_fullscreen();
    }
}

/// Moves the keyboard focus to the first element matching `selector`
/// (which must be focusable: a control, or `tabindex="-1"`).
pub fn focus(selector: &str) {
    let el = window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok().flatten());
    if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

/// Sends a DOM event named `name` on `window` with `detail` (a string),
/// for the page's other modules (`lab_core::share::command`).
pub fn dispatch(name: &str, detail: &str) {
    let Some(window) = web_sys::window() else { return };
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&wasm_bindgen::JsValue::from_str(detail));
    if let Ok(ev) = web_sys::CustomEvent::new_with_event_init_dict(name, &init) {
        let _ = window.dispatch_event(&ev);
    }
}
