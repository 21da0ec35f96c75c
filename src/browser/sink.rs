//! Where streamed text lands on the page: plain text, or Markdown rendered
//! incrementally. Both build the DOM with `createElement`, text nodes and
//! attribute setters only (never `innerHTML`), so model output cannot inject
//! markup; links keep only the URLs `lab_core::stream::markdown` allowed.
//!
//! Cost: a flush happens once per animation frame. Plain text is split into
//! paragraph blocks (at blank lines, or every [`MAX_BLOCK_CHARS`] at a line
//! end), so the browser only re-lays out the last block; Markdown renders
//! each finished block once and rebuilds only the blocks still being
//! written, and an open code block grows by appending text. Only the last
//! [`MAX_BLOCKS`] blocks stay in the page (the trace keeps all the text), so
//! layout and style work per frame stay bounded even for 100k-token
//! answers; off-screen blocks skip rendering (`content-visibility: auto`).

use lab_core::stream::markdown::{Block, Inline, MarkdownStream, Update};
use wasm_bindgen::JsCast;

/// Plain-text blocks are cut at a line end once they are this long.
pub const MAX_BLOCK_CHARS: usize = 2000;
/// Blocks kept in the page; older ones are removed from view.
pub const MAX_BLOCKS: u32 = 150;

/// Text or Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// Plain text (pre-wrapped).
    #[default]
    Text,
    /// Streamed, sanitized Markdown.
    Markdown,
}

impl RenderMode {
    /// Name used in traces and the UI.
    pub fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Markdown => "markdown",
        }
    }
}

/// A text sink bound to one element.
pub struct Sink {
    root: web_sys::Element,
    body: web_sys::Element,
    markdown: Option<MarkdownState>,
    plain: PlainState,
    trimmed_note: web_sys::Element,
    trimmed: u32,
}

#[derive(Default)]
struct PlainState {
    block: Option<web_sys::Element>,
    chars: usize,
    newlines: u32,
}

struct MarkdownState {
    stream: MarkdownStream,
    open: Vec<web_sys::Element>,
    code: Option<(web_sys::Element, usize)>,
}

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

fn el(tag: &str) -> Option<web_sys::Element> {
    document()?.create_element(tag).ok()
}

impl Sink {
    /// Empties `root` and prepares it for a stream.
    pub fn new(root: web_sys::Element, mode: RenderMode) -> Option<Self> {
        root.set_text_content(None);
        let _ = root.class_list().toggle_with_force("markdown", mode == RenderMode::Markdown);
        let _ = root.class_list().remove_1("done");
        // The root is a bottom-anchored scroller (column-reverse): it follows
        // the newest text by itself, without reading layout from script, and
        // stays put when the reader scrolls up. The blinking cursor is a CSS
        // pseudo-element after the last block (no node moves every frame).
        let inner = el("div")?;
        inner.set_class_name("stream");
        let body = el("div")?;
        body.set_class_name("stream-body");
        let trimmed_note = el("p")?;
        trimmed_note.set_class_name("trimmed");
        trimmed_note.set_attribute("hidden", "").ok()?;
        inner.append_child(&trimmed_note).ok()?;
        inner.append_child(&body).ok()?;
        root.append_child(&inner).ok()?;
        let markdown = (mode == RenderMode::Markdown).then(|| MarkdownState {
            stream: MarkdownStream::new(),
            open: Vec::new(),
            code: None,
        });
        Some(Self { root, body, markdown, plain: PlainState::default(), trimmed_note, trimmed: 0 })
    }

    /// Appends streamed text (call once per frame with everything released
    /// since the last frame).
    pub fn append(&mut self, text: &str) {
        match &mut self.markdown {
            None => self.plain.append(&self.body, text),
            Some(md) => {
                let updates = md.stream.push(text);
                md.apply(&self.body, updates);
            }
        }
        self.trim();
    }

    /// Keeps at most [`MAX_BLOCKS`] blocks in the page.
    fn trim(&mut self) {
        let count = self.body.child_element_count();
        if count <= MAX_BLOCKS {
            return;
        }
        for _ in 0..count - MAX_BLOCKS {
            if let Some(first) = self.body.first_element_child() {
                first.remove();
                self.trimmed += 1;
            }
        }
        self.trimmed_note.set_text_content(Some(&format!(
            "… {} earlier block(s) are no longer shown, to keep the page fast; the trace keeps the whole text.",
            self.trimmed
        )));
        let _ = self.trimmed_note.remove_attribute("hidden");
    }

    /// Ends the stream (renders the last Markdown block, hides the cursor).
    pub fn finish(&mut self) {
        if let Some(md) = &mut self.markdown {
            let updates = md.stream.finish();
            md.apply(&self.body, updates);
        }
        let _ = self.root.class_list().add_1("done");
    }

    /// The element the sink writes into.
    pub fn root(&self) -> &web_sys::Element {
        &self.root
    }
}

impl PlainState {
    /// Appends text into paragraph blocks: a blank line, or a line end in
    /// a block over [`MAX_BLOCK_CHARS`], starts the next block.
    fn append(&mut self, body: &web_sys::Element, text: &str) {
        for piece in text.split_inclusive('\n') {
            let block = match &self.block {
                Some(b) => b.clone(),
                None => {
                    let Some(b) = el("div") else { return };
                    b.set_class_name("para");
                    let _ = body.append_child(&b);
                    self.block = Some(b.clone());
                    self.chars = 0;
                    b
                }
            };
            let _ = block.append_with_str_1(piece);
            self.chars += piece.len();
            if piece.ends_with('\n') {
                self.newlines = if piece == "\n" { self.newlines + 1 } else { 1 };
                if self.newlines >= 2 || self.chars > MAX_BLOCK_CHARS {
                    self.block = None;
                    self.newlines = 0;
                }
            } else {
                self.newlines = 0;
            }
        }
    }
}

impl MarkdownState {
    fn apply(&mut self, body: &web_sys::Element, updates: Vec<Update>) {
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
