//! Markdown on the page: blocks from `lab_core::stream::markdown` built
//! with `createElement`, text nodes and attribute setters only (never
//! `innerHTML`), so model output cannot inject markup; links keep only the
//! URLs the core allowed. Finished blocks are rendered once; the blocks
//! still being written are rebuilt each frame, and an open code block grows
//! by appending text.

use lab_core::stream::markdown::{Block, Inline, MarkdownStream, Update};
use wasm_bindgen::JsCast;

use super::sink::el;

/// The Markdown of one stream and the nodes still being written.
pub(super) struct MarkdownState {
    pub(super) stream: MarkdownStream,
    open: Vec<web_sys::Element>,
    code: Option<(web_sys::Element, usize)>,
}

impl MarkdownState {
    pub(super) fn new(stream: MarkdownStream) -> Self {
        Self { stream, open: Vec::new(), code: None }
    }

    /// Puts finished blocks on the page once and redraws the open ones.
    pub(super) fn apply(&mut self, body: &web_sys::Element, updates: Vec<Update>) {
        for node in self.open.drain(..) {
            node.remove();
        }
        for Update::Commit(block) in updates {
            match (&block, self.code.take()) {
                (Block::Code { text, .. }, Some((code, shown))) => match text.get(shown..) {
                    Some(rest) => {
                        let _ = code.append_with_str_1(rest);
                    }
                    // What was shown is not a prefix of the final code: show the final text.
                    None => code.set_text_content(Some(text)),
                },
                (_, open_code) => {
                    if let Some((code, _)) = open_code {
                        // A code fence closed by a block we did not expect: keep what is shown.
                        drop(code);
                    }
                    if let Some(node) = render_block(&block) {
                        let _ = body.append_child(&node);
                    }
                }
            }
        }
        if let Some((lang, text)) = self.stream.open_code() {
            if self.code.is_none()
                && let Some((pre, code)) = code_block(lang)
            {
                let _ = body.append_child(&pre);
                self.code = Some((code, 0));
            }
            if let Some((code, shown)) = &mut self.code
                && let Some(rest) = text.get(*shown..)
            {
                let _ = code.append_with_str_1(rest);
                *shown = text.len();
            }
        }
        for block in self.stream.open_blocks() {
            if let Some(node) = render_block(&block) {
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

fn render_block(b: &Block) -> Option<web_sys::Element> {
    let node = match b {
        Block::Paragraph(i) => with_inlines("p", i)?,
        Block::Heading(level, i) => with_inlines(&format!("h{}", level.clamp(&1, &6)), i)?,
        Block::ListItem { number, content } => {
            let list = el(if number.is_some() { "ol" } else { "ul" })?;
            if let Some(n) = number {
                let _ = list.set_attribute("start", &n.to_string());
            }
            let item = with_inlines("li", content)?;
            list.append_child(&item).ok()?;
            list
        }
        Block::Quote(i) => with_inlines("blockquote", i)?,
        Block::Code { lang, text } => {
            let (pre, code) = code_block(lang)?;
            let _ = code.append_with_str_1(text);
            pre
        }
        Block::Rule => el("hr")?,
    };
    Some(node)
}

fn with_inlines(tag: &str, inl: &[Inline]) -> Option<web_sys::Element> {
    let node = el(tag)?;
    append_inlines(&node, inl);
    Some(node)
}

fn append_inlines(parent: &web_sys::Element, inl: &[Inline]) {
    for i in inl {
        match i {
            Inline::Text(t) => {
                let _ = parent.append_with_str_1(t);
            }
            Inline::Code(t) => {
                if let Some(c) = el("code") {
                    c.set_text_content(Some(t));
                    let _ = parent.append_child(&c);
                }
            }
            Inline::Strong(c) => {
                if let Some(n) = with_inlines("strong", c) {
                    let _ = parent.append_child(&n);
                }
            }
            Inline::Em(c) => {
                if let Some(n) = with_inlines("em", c) {
                    let _ = parent.append_child(&n);
                }
            }
            Inline::Link { text, href } => {
                if let Some(a) = el("a").and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok()) {
                    // lab_core::stream::markdown only lets http(s) and mailto URLs through.
                    a.set_href(href);
                    a.set_rel("noopener noreferrer nofollow");
                    a.set_target("_blank");
                    append_inlines(&a, text);
                    let _ = parent.append_child(&a);
                }
            }
        }
    }
}
