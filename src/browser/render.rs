//! Appending streamed text to the page. Text is inserted as DOM text nodes
//! (never parsed as HTML), so model output cannot inject markup, and each
//! append costs O(chunk), not O(text so far).

/// A new element of `tag` (not yet in the page).
pub fn el(tag: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.create_element(tag).ok()
}

/// Appends `text` to `el` as a text node.
pub fn append_text(el: &web_sys::Element, text: &str) {
    let _ = el.append_with_str_1(text);
}

/// Removes everything inside `el`.
pub fn clear(el: &web_sys::Element) {
    el.set_text_content(None);
}

/// Keeps `el` scrolled to the bottom while it grows, unless the reader has
/// scrolled up (more than 40 px from the bottom).
pub fn follow_bottom(el: &web_sys::Element) {
    let distance = el.scroll_height() - el.scroll_top() - el.client_height();
    if distance < 120 {
        el.set_scroll_top(el.scroll_height());
    }
}
