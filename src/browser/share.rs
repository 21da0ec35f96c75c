//! Share links in the page's URL: making one for the current page, reading
//! the one the page was opened with, and copying to the clipboard.

use lab_core::share::link::{FRAGMENT_KEY, Shared};

/// A full link to this page that opens `shared`.
pub fn link_for(shared: &Shared) -> String {
    let base = web_sys::window()
        .map(|w| {
            let l = w.location();
            format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
        })
        .unwrap_or_default();
    format!("{base}#{FRAGMENT_KEY}{}", shared.encode())
}

/// The share the page was opened with (`#share=…`), if any: `None` without
/// one, `Some(Err(why))` for a damaged link.
pub fn opened_with() -> Option<Result<Shared, String>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    if !hash.contains(FRAGMENT_KEY) {
        return None;
    }
    Some(Shared::decode(&hash).map_err(|e| e.to_string()))
}

/// Copies text to the clipboard (best effort: the text is also shown for
/// copying by hand).
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}
