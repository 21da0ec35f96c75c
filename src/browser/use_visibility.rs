//! Whether the page is hidden (a background tab, a minimized window), as a
//! signal that follows `visibilitychange`; the listener goes with its owner.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

fn hidden() -> bool {
    web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden())
}

/// True while the page is hidden.
pub fn use_visibility() -> Signal<bool> {
    let (is_hidden, set) = signal(hidden());
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return is_hidden.into() };
    let on_change = Closure::<dyn FnMut()>::new(move || set.set(hidden()));
    let _ = doc.add_event_listener_with_callback("visibilitychange", on_change.as_ref().unchecked_ref());
    let listener = StoredValue::new_local(Some(on_change));
    on_cleanup(move || {
        listener.update_value(|cb| {
            if let Some(cb) = cb.take() {
                let _ =
                    doc.remove_event_listener_with_callback("visibilitychange", cb.as_ref().unchecked_ref());
            }
        });
    });
    is_hidden.into()
}
