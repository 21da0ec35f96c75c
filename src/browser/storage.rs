//! Browser storage for small settings. The API key is kept in
//! `sessionStorage` (gone when the tab closes) unless the user ticks
//! "remember", which moves it to `localStorage`; it is never written
//! anywhere else.

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

/// Reads a value.
pub fn get(store: Store, key: &str) -> Option<String> {
    storage(store)?.get_item(key).ok().flatten()
}

/// Writes a value; returns the browser's message when it refuses (quota,
/// private mode).
pub fn set(store: Store, key: &str, value: &str) -> Result<(), String> {
    let s = storage(store).ok_or("storage is not available in this browser")?;
    s.set_item(key, value).map_err(|e| super::files::js_message(&e))
}

/// Deletes a value.
pub fn remove(store: Store, key: &str) {
    if let Some(s) = storage(store) {
        let _ = s.remove_item(key);
    }
}
