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

use lab_core::stream::markdown::MarkdownStream;

use crate::browser::markdown_dom::MarkdownState;
use crate::browser::render::el;

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

/// A new element (none without a document).
impl Sink {
    /// Empties `root` and prepares it for a stream.
    pub fn new(root: web_sys::Element, mode: RenderMode) -> Option<Self> {
        root.set_text_content(None);
        let _ = root.class_list().toggle_with_force("markdown", mode == RenderMode::Markdown);
        let _ = root.class_list().remove_1("done");
        // The root is a bottom-anchored scroller (column-reverse): it follows
        // the newest text by itself, without reading layout from script, and
        // stays put when the reader scrolls up; until the text fills it, the
        // text sits at its top (an auto margin, style/main.css). The blinking cursor is a CSS
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
        let markdown = (mode == RenderMode::Markdown).then(|| MarkdownState::new(MarkdownStream::new()));
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
