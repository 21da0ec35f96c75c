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

/// Adds a tool-call fragment to `list`: the call's block (made on its
/// first fragment, with its name) gets the argument piece, as text.
pub fn append_tool_call(list: &web_sys::Element, c: &lab_core::trace::Chunk) {
    let Some(t) = &c.tool else { return };
    let selector = format!("[data-index=\"{}\"] > code", t.index);
    let args = match list.query_selector(&selector).ok().flatten() {
        Some(a) => a,
        None => {
            let (Some(call), Some(name), Some(args)) = (el("div"), el("span"), el("code")) else { return };
            call.set_class_name("tool-call");
            let _ = call.set_attribute("data-testid", "tool-call");
            let _ = call.set_attribute("data-index", &t.index.to_string());
            name.set_class_name("tool-name");
            let _ = name.set_attribute("data-testid", "tool-call-name");
            let _ = args.set_attribute("data-testid", "tool-call-args");
            let _ = call.append_child(&name);
            let _ = call.append_child(&args);
            let _ = list.append_child(&call);
            args
        }
    };
    if let Some(n) = &t.name
        && let Some(name) = args.previous_element_sibling()
    {
        let _ = name.append_with_str_1(n);
    }
    let _ = args.append_with_str_1(&c.text);
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
