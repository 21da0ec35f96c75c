//! Markdown on the page: the nodes of `lab_core::stream::markdown` built
//! with `createElement`, text nodes and attribute setters only (never
//! `innerHTML`), so model output cannot inject markup; links keep only the
//! URLs the core allowed. Finished blocks are put on the page once; the
//! block still being written is rebuilt each frame, and an open code block
//! grows by appending text.

use lab_core::stream::markdown::{Align, Element, MarkdownStream, Node, Tag, Update};
use wasm_bindgen::JsCast;

use super::render::el;

/// The Markdown of one stream and the nodes still being written.
pub(crate) struct MarkdownState {
    pub(crate) stream: MarkdownStream,
    open: Vec<web_sys::Node>,
    /// The open code block: its `<pre>`, its `<code>` and the bytes shown.
    code: Option<(web_sys::Element, web_sys::Element, usize)>,
}

impl MarkdownState {
    pub(crate) fn new(stream: MarkdownStream) -> Self {
        Self { stream, open: Vec::new(), code: None }
    }

    /// Puts finished blocks on the page once and redraws the open ones.
    pub(crate) fn apply(&mut self, body: &web_sys::Element, updates: Vec<Update>) {
        for node in self.open.drain(..) {
            if let Some(parent) = node.parent_node() {
                let _ = parent.remove_child(&node);
            }
        }
        let open_code = self.stream.open_code();
        if open_code.is_none()
            && let Some((pre, _, _)) = self.code.take()
        {
            pre.remove();
        }
        for Update::Commit(nodes) in updates {
            for n in &nodes {
                if let Some(node) = render(n) {
                    let _ = body.append_child(&node);
                }
            }
        }
        if let Some((lang, text)) = open_code {
            if self.code.is_none()
                && let Some((pre, code)) = code_block(lang)
            {
                let _ = body.append_child(&pre);
                self.code = Some((pre, code, 0));
            }
            if let Some((_, code, shown)) = &mut self.code
                && let Some(rest) = text.get(*shown..)
            {
                let _ = code.append_with_str_1(rest);
                *shown = text.len();
            }
            return;
        }
        for n in self.stream.open_nodes() {
            if let Some(node) = render(n) {
                let _ = body.append_child(&node);
                self.open.push(node);
            }
        }
    }
}

fn code_block(lang: &str) -> Option<(web_sys::Element, web_sys::Element)> {
    let pre = el("pre")?;
    let code = el("code")?;
    if !lang.is_empty() {
        let _ = code.set_attribute("data-lang", lang);
    }
    pre.append_child(&code).ok()?;
    Some((pre, code))
}

/// One node, built from the fixed set of elements.
pub(crate) fn render(n: &Node) -> Option<web_sys::Node> {
    match n {
        Node::Text(t) => Some(web_sys::window()?.document()?.create_text_node(t).into()),
        Node::Element(e) => element(e).map(Into::into),
    }
}

fn element(e: &Element) -> Option<web_sys::Element> {
    let (node, into) = match &e.tag {
        Tag::CodeBlock { lang } => {
            let (pre, code) = code_block(lang)?;
            (pre, Some(code))
        }
        Tag::Link { href, title } => {
            let a = el("a")?.dyn_into::<web_sys::HtmlAnchorElement>().ok()?;
            // lab_core::stream::markdown only lets http(s) and mailto URLs through.
            a.set_href(href);
            a.set_rel("noopener noreferrer nofollow");
            a.set_target("_blank");
            if !title.is_empty() {
                a.set_title(title);
            }
            (a.into(), None)
        }
        tag => {
            let node = el(tag.name())?;
            match tag {
                Tag::List { start: Some(s) } if *s != 1 => {
                    let _ = node.set_attribute("start", &s.to_string());
                }
                Tag::TableCell { align, .. } if *align != Align::None => {
                    let _ = node.set_attribute("data-align", &format!("{align:?}").to_lowercase());
                }
                _ => {}
            }
            (node, None)
        }
    };
    let parent = into.as_ref().unwrap_or(&node);
    for child in &e.children {
        if let Some(c) = render(child) {
            let _ = parent.append_child(&c);
        }
    }
    Some(node)
}
