//! Small settings in browser storage, as a hook: a string under a key in
//! `localStorage` or `sessionStorage`, read when the hook starts, written
//! at once on every change, and kept in step with other tabs (the `storage`
//! event) and with the page's other modules (`storage` events reach only
//! other tabs, so a write also sends `lab_core::share::command::STORAGE_EVENT`). Hand-written rather than `leptos-use`'s `use_storage`: see
//! `ARCHITECTURE.md` ("What a hook costs").

use leptos::ev;
use leptos::prelude::*;

use lab_core::share::command::STORAGE_EVENT;
use wasm_bindgen::JsCast;

use super::idb::{StoreError, classify};

/// Tells the page's other modules that `key` was written.
fn announce(key: &str) {
    super::page::dispatch(STORAGE_EVENT, key);
}

/// Which storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// Per tab, cleared when it closes.
    Session,
    /// Persistent on this device.
    Local,
}

fn storage(store: Store) -> Option<web_sys::Storage> {
    let w = web_sys::window()?;
    match store {
        Store::Session => w.session_storage().ok().flatten(),
        Store::Local => w.local_storage().ok().flatten(),
    }
}

/// One stored string (empty when absent).
#[derive(Clone, Copy)]
pub struct UseStorage {
    /// The value.
    pub value: ReadSignal<String>,
    set: WriteSignal<String>,
    store: Store,
    key: &'static str,
}

/// Reads `key` from `store` and follows it.
pub fn use_storage(store: Store, key: &'static str) -> UseStorage {
    let read = move || storage(store).and_then(|s| s.get_item(key).ok().flatten()).unwrap_or_default();
    let (value, set) = signal(read());
    // Another tab changed it (local storage only fires across tabs).
    let listener = window_event_listener(ev::storage, move |e| {
        if e.key().is_none_or(|k| k == key) && value.get_untracked() != read() {
            set.set(read());
        }
    });
    // Another module of this page changed it.
    let here = window_event_listener_untyped(STORAGE_EVENT, move |e: web_sys::Event| {
        let changed = e.dyn_ref::<web_sys::CustomEvent>().and_then(|e| e.detail().as_string());
        if changed.as_deref() == Some(key) && value.get_untracked() != read() {
            set.set(read());
        }
    });
    on_cleanup(move || {
        listener.remove();
        here.remove();
    });
    UseStorage { value, set, store, key }
}

impl UseStorage {
    /// Stores a value; an empty one removes the key. Returns the browser's
    /// message when it refuses (quota, private mode).
    pub fn set(&self, v: String) -> Result<(), StoreError> {
        let s = storage(self.store)
            .ok_or_else(|| StoreError::Unavailable("this browser offers no Web Storage here".into()))?;
        let r = if v.is_empty() { s.remove_item(self.key) } else { s.set_item(self.key, &v) };
        self.set.set(v);
        if r.is_ok() {
            announce(self.key);
        }
        r.map_err(|e| classify(&e))
    }
}
