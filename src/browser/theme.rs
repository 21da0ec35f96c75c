//! Colour theme: follow the system (`auto`), or a choice kept in
//! `localStorage`, applied as `data-theme` on the root element (the
//! stylesheet has both palettes).

use super::storage::{self, Store};

/// Storage key.
pub const KEY: &str = "latency-lab.theme";
/// The choices, in the order the toggle cycles.
pub const THEMES: [&str; 3] = ["auto", "light", "dark"];

/// The saved choice (`auto` when none).
pub fn saved() -> String {
    storage::get(Store::Local, KEY).filter(|t| THEMES.contains(&t.as_str())).unwrap_or_else(|| "auto".into())
}

/// Applies a theme and remembers it.
pub fn apply(theme: &str) {
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = if theme == "auto" {
            root.remove_attribute("data-theme")
        } else {
            root.set_attribute("data-theme", theme)
        };
    }
    if theme == "auto" {
        storage::remove(Store::Local, KEY);
    } else {
        let _ = storage::set(Store::Local, KEY, theme);
    }
}
