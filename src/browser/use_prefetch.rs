//! [`use_prefetch`]: fetches the files of on-demand modules in idle time,
//! once, when `after` first turns true, so opening their view later needs
//! no download. Each file becomes a `<link rel="prefetch">` (the browser
//! fetches it at low priority and keeps it in its cache); where the
//! browser has no `requestIdleCallback` (WebKit), a 0 ms timer stands in.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Prefetches `urls` in idle time once `after` is true.
pub fn use_prefetch(after: Signal<bool>, urls: &'static [&'static str]) {
    let done = StoredValue::new(false);
    Effect::new(move |_| {
        if !after.get() || done.get_value() {
            return;
        }
        done.set_value(true);
        when_idle(move || {
            for url in urls {
                let _ = prefetch(&super::page::module_file(url));
            }
        });
    });
}

fn when_idle(f: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return };
    let callback = Closure::once_into_js(f);
    let idle = js_sys::Reflect::get(&window, &"requestIdleCallback".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    match idle {
        Some(request) => {
            let _ = request.call1(&window, &callback);
        }
        None => {
            let _ = window.set_timeout_with_callback(callback.unchecked_ref());
        }
    }
}

fn prefetch(url: &str) -> Result<(), JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let head = document.head().ok_or("no head")?;
    let link: web_sys::HtmlLinkElement = document.create_element("link")?.unchecked_into();
    link.set_rel("prefetch");
    link.set_href(url);
    link.set_attribute("data-prefetch", "")?;
    head.append_child(&link)?;
    Ok(())
}
