//! The colour theme hook: follow the system (`auto`), or a choice kept in
//! `localStorage` (in step with other tabs), applied as `data-theme` on the
//! root element (the stylesheet has both palettes). An inline script in
//! `index.html` applies the saved choice before the first paint; this hook
//! keeps it applied afterwards.

use leptos::prelude::*;

use super::use_storage::{Store, UseStorage, use_storage};

/// Storage key (also read by the inline script of `index.html`).
pub const KEY: &str = "latency-lab.theme";
/// The choices, in the order the toggle cycles.
pub const THEMES: [&str; 3] = ["auto", "light", "dark"];

/// The theme and a way to change it.
#[derive(Clone, Copy)]
pub struct UseTheme {
    /// The current choice (one of [`THEMES`]).
    pub theme: Signal<String>,
    saved: UseStorage,
}

/// Reads the saved theme and keeps the page in it.
pub fn use_theme() -> UseTheme {
    let saved = use_storage(Store::Local, KEY);
    let theme = Signal::derive(move || {
        let t = saved.value.get();
        if THEMES.contains(&t.as_str()) { t } else { THEMES[0].to_string() }
    });
    Effect::new(move |_| {
        let t = theme.get();
        if let Some(root) = document().document_element() {
            let _ = if t == THEMES[0] {
                root.remove_attribute("data-theme")
            } else {
                root.set_attribute("data-theme", &t)
            };
        }
    });
    UseTheme { theme, saved }
}

impl UseTheme {
    /// The next theme in [`THEMES`] (auto, light, dark, auto …); `auto` is
    /// stored as no choice.
    pub fn cycle(&self) {
        let now = self.theme.get_untracked();
        let i = THEMES.iter().position(|t| *t == now).unwrap_or(0);
        let next = THEMES[(i + 1) % THEMES.len()];
        let _ = self.saved.set(if next == THEMES[0] { String::new() } else { next.to_string() });
    }
}
