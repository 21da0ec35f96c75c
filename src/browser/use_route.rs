//! The route hook: the view the URL fragment names, as a signal that
//! follows Back, Forward, a pasted link and a reload; and ways to go
//! somewhere else. The fragments themselves are `lab_core::share::route`'s.
//!
//! Why fragments and this small hook rather than `leptos_router`: the
//! router routes paths only (hash routes are an open feature request,
//! leptos-rs/leptos#2184), and paths need a server that answers every path
//! with the app, which static hosts do not; the lab's share links are
//! fragments already. The hook listens to `hashchange` (fired by Back,
//! Forward and typed fragments) with Leptos's own window listener, and writes the
//! fragment (a new history entry) or replaces it (no entry, for a link that
//! was read and should not be read again on Back).

use lab_core::share::route::Route;
use leptos::ev::hashchange;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use super::page;

/// The route and how to change it (provided as context by the app).
#[derive(Clone, Copy)]
pub struct UseRoute {
    /// Where the URL points now.
    pub route: ReadSignal<Route>,
    set: WriteSignal<Route>,
}

/// Follows the page's fragment.
pub fn use_route() -> UseRoute {
    let (route, set) = signal(Route::parse(&page::fragment()));
    let listener = window_event_listener(hashchange, move |_| {
        let now = Route::parse(&page::fragment());
        if route.get_untracked() != now {
            set.set(now);
        }
    });
    on_cleanup(move || listener.remove());
    UseRoute { route, set }
}

impl UseRoute {
    /// Goes to `to`, as a new history entry (Back returns here).
    pub fn go(&self, to: Route) {
        if self.route.get_untracked() == to {
            return;
        }
        let fragment = to.fragment();
        self.set.set(to);
        // The hashchange that follows finds the route already set.
        let _ = window().location().set_hash(&fragment);
    }

    /// Shows `to` in place of the current entry (Back skips what was here).
    pub fn replace(&self, to: Route) {
        let url = format!("{}{}", page::base_url(), to.fragment());
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
        if self.route.get_untracked() != to {
            self.set.set(to);
        }
    }
}
