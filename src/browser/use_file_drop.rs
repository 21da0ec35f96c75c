//! A drop zone for files: files dropped on the target go to a callback
//! (dragging over it is allowed; the browser does not open the file).
//! The listeners go with their owner.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

/// Makes `target` a drop zone; `on_files` receives each drop's files.
pub fn use_file_drop(target: NodeRef<leptos::html::Label>, on_files: Callback<Vec<web_sys::File>>) {
    let over = Closure::<dyn FnMut(web_sys::DragEvent)>::new(|ev: web_sys::DragEvent| ev.prevent_default());
    let drop = Closure::<dyn FnMut(web_sys::DragEvent)>::new(move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let list = ev.data_transfer().and_then(|d| d.files());
        let files: Vec<web_sys::File> =
            list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default();
        if !files.is_empty() {
            on_files.run(files);
        }
    });
    let handlers = StoredValue::new_local((over, drop));
    let each = move |el: &web_sys::Element, add: bool| {
        handlers.with_value(|(over, drop)| {
            for (name, f) in [("dragover", over.as_ref()), ("drop", drop.as_ref())] {
                let _ = if add {
                    el.add_event_listener_with_callback(name, f.unchecked_ref())
                } else {
                    el.remove_event_listener_with_callback(name, f.unchecked_ref())
                };
            }
        });
    };
    Effect::new(move |_| {
        if let Some(el) = target.get() {
            each(&el, true);
        }
    });
    on_cleanup(move || {
        if let Some(el) = target.get_untracked() {
            each(&el, false);
        }
    });
}
