//! Streaming Markdown, the way chat front ends render it: text arrives a
//! token at a time; every top-level block that is finished is parsed once
//! and handed out ([`Update::Commit`]); only the block still being written
//! (the open tail) is parsed again as text arrives. The cost of an update is
//! the size of the open block, not of the answer, so a 100,000-token answer
//! costs the same per token as a short one (tested below).
//!
//! Parsing is `pulldown-cmark` (CommonMark, plus GFM tables,
//! strikethrough and task lists); what the page may show is decided in
//! [`tree`] (no HTML, safe links only, images as alt text).
//!
//! When is a block finished? When another top-level block has started
//! after it and that block's first line is complete: nothing that comes
//! later can change it then (a list that a later item would continue is
//! still the last block). The one CommonMark construct that reaches back is
//! a link reference definition written *after* the text that uses it; such
//! a reference stays text if its block was already finished (model answers
//! use inline links).
//!
//! A fenced code block opened at the top level is not re-parsed while it
//! grows: its lines are scanned once for the closing fence, and
//! [`MarkdownStream::open_code`] hands out the code so far (the page
//! appends to it).

pub mod tree;

use pulldown_cmark::{Event, Options, Parser};

pub use tree::{Align, Element, Node, SAFE_SCHEMES, Tag, plain, safe_href};

/// What the renderer should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// Finished top-level blocks: render them once and keep them.
    Commit(Vec<Node>),
}

/// The parser options: CommonMark plus GFM tables, strikethrough and task lists.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Renders a whole document at once.
pub fn render(doc: &str) -> Vec<Node> {
    let mut b = tree::Builder::default();
    Parser::new_ext(doc, options()).for_each(|e| b.event(e));
    b.finish()
}

/// A fenced code block open at the start of the tail.
#[derive(Debug, Clone)]
struct Fence {
    ch: u8,
    len: usize,
    lang: String,
    /// Where the code starts in the tail (after the opening line).
    body: usize,
    /// Where the first line not yet checked for a closing fence starts.
    scanned: usize,
}

/// The incremental renderer of one answer.
#[derive(Debug, Clone, Default)]
pub struct MarkdownStream {
    tail: String,
    /// The tail's first line was checked for a code fence.
    head_checked: bool,
    fence: Option<Fence>,
    open: Vec<Node>,
    parsed: u64,
}

/// The start of the line holding byte `i` of `s`.
fn line_start(s: &str, i: usize) -> usize {
    s[..i].rfind('\n').map_or(0, |n| n + 1)
}

/// A fence opening line at the very start of `s` (no indentation), whole.
fn opening_fence(s: &str) -> Option<Fence> {
    let end = s.find('\n')?;
    let line = s[..end].trim_end_matches('\r');
    let ch = *line.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = line.bytes().take_while(|&b| b == ch).count();
    let info = &line[len..];
    if len < 3 || (ch == b'`' && info.contains('`')) {
        return None;
    }
    let lang = info.split_whitespace().next().unwrap_or("").to_string();
    Some(Fence { ch, len, lang, body: end + 1, scanned: end + 1 })
}

/// True when `line` closes a fence of `len` × `ch`.
fn closes(line: &str, ch: u8, len: usize) -> bool {
    let line = line.trim_end_matches(['\r', '\n']);
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    let rest = &line[indent..];
    let run = rest.bytes().take_while(|&b| b == ch).count();
    indent <= 3 && run >= len && rest[run..].trim_matches([' ', '\t']).is_empty()
}

impl MarkdownStream {
    /// A renderer at the start of an answer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes parsed so far, re-parses included (what rendering cost).
    pub fn parsed_bytes(&self) -> u64 {
        self.parsed
    }

    /// Feeds text; returns the blocks it finished.
    pub fn push(&mut self, text: &str) -> Vec<Update> {
        self.tail.push_str(text);
        self.step(false)
    }

    /// Ends the answer; returns the last blocks.
    pub fn finish(&mut self) -> Vec<Update> {
        self.fence = None;
        let out = self.step(true);
        self.tail.clear();
        self.open.clear();
        out
    }

    /// The blocks still being written, rendered (empty while a top-level
    /// code fence is open, see [`MarkdownStream::open_code`]).
    pub fn open_nodes(&self) -> &[Node] {
        if self.fence.is_some() { &[] } else { &self.open }
    }

    /// The open top-level code block's language and code so far: whole
    /// lines, and the unfinished one unless it may be the closing fence.
    /// Always a prefix of the code once the block is finished.
    pub fn open_code(&self) -> Option<(&str, &str)> {
        let f = self.fence.as_ref()?;
        let partial = &self.tail[f.scanned..];
        let may_close = {
            let t = partial.trim_start_matches(' ');
            t.is_empty() || t.as_bytes()[0] == f.ch
        };
        let end = if may_close { f.scanned } else { self.tail.len() };
        Some((&f.lang, &self.tail[f.body..end]))
    }

    /// Scans an open fence's new lines; true while it stays open.
    fn scan_fence(&mut self) -> bool {
        let Some(f) = &mut self.fence else { return false };
        while let Some(n) = self.tail[f.scanned..].find('\n') {
            let line = &self.tail[f.scanned..f.scanned + n + 1];
            self.parsed += line.len() as u64;
            if closes(line, f.ch, f.len) {
                self.fence = None;
                return false;
            }
            f.scanned += n + 1;
        }
        true
    }

    /// Opens the fast path when the tail starts with a code fence.
    fn check_head(&mut self) {
        if !self.head_checked && self.tail.contains('\n') {
            self.head_checked = true;
            self.fence = opening_fence(&self.tail);
        }
    }

    fn step(&mut self, last: bool) -> Vec<Update> {
        if !last {
            self.check_head();
            if self.scan_fence() {
                return Vec::new();
            }
        }
        self.parsed += self.tail.len() as u64;
        // Top-level blocks of the tail: where each starts (line start).
        let events: Vec<(Event<'_>, std::ops::Range<usize>)> =
            Parser::new_ext(&self.tail, options()).into_offset_iter().collect();
        let mut depth = 0usize;
        let mut starts = Vec::new();
        for (e, r) in &events {
            match e {
                Event::Start(_) => {
                    if depth == 0 {
                        starts.push(line_start(&self.tail, r.start));
                    }
                    depth += 1;
                }
                Event::End(_) => depth = depth.saturating_sub(1),
                _ if depth == 0 => starts.push(line_start(&self.tail, r.start)),
                _ => {}
            }
        }
        let cut = match starts.last() {
            _ if last => self.tail.len(),
            Some(&s) if starts.len() >= 2 && self.tail[s..].contains('\n') => s,
            _ => 0,
        };
        let (mut done, mut open) = (tree::Builder::default(), tree::Builder::default());
        for (e, r) in events {
            if r.start < cut { done.event(e) } else { open.event(e) }
        }
        let committed = done.finish();
        self.open = open.finish();
        if cut > 0 {
            self.tail.drain(..cut);
            self.head_checked = false;
            self.fence = None;
            if !last {
                self.check_head();
                self.scan_fence();
            }
        }
        if committed.is_empty() { Vec::new() } else { vec![Update::Commit(committed)] }
    }
}

#[cfg(test)]
mod tests;
