//! Streaming Markdown: text arrives a token at a time, finished blocks are
//! handed out once ([`Update::Commit`]), and only the block still being
//! written is re-parsed on each update, so rendering a long answer costs
//! O(length), not O(length²).
//!
//! Supported (what model answers use): paragraphs, `#`–`######` headings,
//! `-`/`*`/`+` and `1.` list items (one line each), `>` quotes, `---` rules,
//! fenced code blocks, and inline `code`, `**strong**`, `*em*`/`_em_` and
//! `[links](url)`.
//!
//! Safety: the output is a tree of plain text and a fixed set of elements;
//! nothing is ever HTML. A link survives only with an `http:`, `https:` or
//! `mailto:` URL; any other (`javascript:`, `data:` …) is shown as plain
//! text. Images are shown as their alt text (no remote loads).

/// Inline content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    /// Plain text.
    Text(String),
    /// `**…**`.
    Strong(Vec<Inline>),
    /// `*…*` or `_…_`.
    Em(Vec<Inline>),
    /// `` `…` ``.
    Code(String),
    /// `[text](href)` with a safe URL.
    Link {
        /// Link text.
        text: Vec<Inline>,
        /// The (allowed) URL.
        href: String,
    },
}

/// A block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Paragraph (lines joined with spaces).
    Paragraph(Vec<Inline>),
    /// Heading of level 1–6.
    Heading(u8, Vec<Inline>),
    /// One list item.
    ListItem {
        /// Its number for ordered lists.
        number: Option<u64>,
        /// Content.
        content: Vec<Inline>,
    },
    /// A quoted line.
    Quote(Vec<Inline>),
    /// A fenced code block.
    Code {
        /// Info string (language).
        lang: String,
        /// The code.
        text: String,
    },
    /// `---`.
    Rule,
}

/// What the renderer should do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// A finished block: render it once and keep it.
    Commit(Block),
}

/// URL schemes a link may use.
pub const SAFE_SCHEMES: [&str; 3] = ["http://", "https://", "mailto:"];

/// True when `href` may become a link.
pub fn safe_href(href: &str) -> bool {
    let h = href.trim().to_ascii_lowercase();
    SAFE_SCHEMES.iter().any(|s| h.starts_with(s)) && !h.chars().any(char::is_control)
}

/// The incremental parser.
#[derive(Debug, Clone, Default)]
pub struct MarkdownStream {
    pending: String,
    paragraph: Vec<String>,
    code: Option<(String, String, String)>, // (fence, lang, text)
}

fn heading(line: &str) -> Option<(u8, &str)> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) {
        let rest = &line[hashes..];
        if rest.is_empty() || rest.starts_with(' ') {
            return Some((hashes as u8, rest.trim()));
        }
    }
    None
}

fn list_item(line: &str) -> Option<(Option<u64>, &str)> {
    let t = line.trim_start();
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(marker) {
            return Some((None, rest));
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=9).contains(&digits) && t[digits..].starts_with(". ") {
        return Some((t[..digits].parse().ok(), &t[digits + 2..]));
    }
    None
}

fn fence(line: &str) -> Option<(String, &str)> {
    let t = line.trim_start();
    for f in ["```", "~~~"] {
        if let Some(rest) = t.strip_prefix(f) {
            let extra = rest.bytes().take_while(|&b| b == f.as_bytes()[0]).count();
            return Some((f.to_string() + &rest[..extra], rest[extra..].trim()));
        }
    }
    None
}

fn is_rule(line: &str) -> bool {
    let t: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    t.len() >= 3
        && (t.chars().all(|c| c == '-') || t.chars().all(|c| c == '*') || t.chars().all(|c| c == '_'))
}

/// Classifies one complete, non-code line as a single-line block.
fn line_block(line: &str) -> Option<Block> {
    if let Some((level, text)) = heading(line) {
        return Some(Block::Heading(level, inlines(text)));
    }
    if is_rule(line) {
        return Some(Block::Rule);
    }
    if let Some((number, text)) = list_item(line) {
        return Some(Block::ListItem { number, content: inlines(text) });
    }
    if let Some(rest) = line.trim_start().strip_prefix('>') {
        return Some(Block::Quote(inlines(rest.trim_start())));
    }
    None
}

impl MarkdownStream {
    /// A parser at the start of a document.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds text; returns the blocks it finished.
    pub fn push(&mut self, text: &str) -> Vec<Update> {
        let mut out = Vec::new();
        self.pending.push_str(text);
        while let Some(i) = self.pending.find('\n') {
            let line: String = self.pending[..i].trim_end_matches('\r').to_string();
            self.pending.drain(..=i);
            self.line(&line, &mut out);
        }
        out
    }

    /// Ends the document; returns the last blocks.
    pub fn finish(&mut self) -> Vec<Update> {
        let mut out = Vec::new();
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.line(&line, &mut out);
        }
        if let Some((_, lang, text)) = self.code.take() {
            out.push(Update::Commit(Block::Code { lang, text }));
        }
        self.flush_paragraph(&mut out);
        out
    }

    fn flush_paragraph(&mut self, out: &mut Vec<Update>) {
        if !self.paragraph.is_empty() {
            let text = self.paragraph.join(" ");
            self.paragraph.clear();
            out.push(Update::Commit(Block::Paragraph(inlines(&text))));
        }
    }

    fn line(&mut self, line: &str, out: &mut Vec<Update>) {
        if let Some((f, lang, text)) = &mut self.code {
            if line.trim_start().starts_with(f.as_str())
                && line.trim().trim_start_matches(f.as_str()).is_empty()
            {
                let (lang, text) = (std::mem::take(lang), std::mem::take(text));
                self.code = None;
                out.push(Update::Commit(Block::Code { lang, text }));
            } else {
                text.push_str(line);
                text.push('\n');
            }
            return;
        }
        if line.trim().is_empty() {
            self.flush_paragraph(out);
        } else if let Some((f, lang)) = fence(line) {
            self.flush_paragraph(out);
            self.code = Some((f, lang.to_string(), String::new()));
        } else if let Some(b) = line_block(line) {
            self.flush_paragraph(out);
            out.push(Update::Commit(b));
        } else {
            self.paragraph.push(line.trim().to_string());
        }
    }

    /// The blocks still being written (the open paragraph, and the
    /// unfinished line when it starts a block of its own), for
    /// re-rendering; empty when a code fence is open (see
    /// [`MarkdownStream::open_code`]).
    pub fn open_blocks(&self) -> Vec<Block> {
        if self.code.is_some() {
            return Vec::new();
        }
        let partial = self.pending.trim_end_matches('\r');
        let own =
            if partial.trim().is_empty() || fence(partial).is_some() { None } else { line_block(partial) };
        let mut text = self.paragraph.join(" ");
        if own.is_none() && !partial.trim().is_empty() && fence(partial).is_none() {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(partial.trim_start());
        }
        let mut out = Vec::new();
        if !text.is_empty() {
            out.push(Block::Paragraph(inlines(&text)));
        }
        out.extend(own);
        out
    }

    /// The open code block's language and text so far (including the
    /// unfinished line), if a fence is open.
    pub fn open_code(&self) -> Option<(&str, String)> {
        self.code.as_ref().map(|(fence, lang, text)| {
            let mut t = text.clone();
            // An unfinished line that may become the closing fence is held back.
            let partial = self.pending.trim();
            if partial.is_empty() || !fence.starts_with(partial) {
                t.push_str(&self.pending);
            }
            (lang.as_str(), t)
        })
    }
}

/// Parses inline Markdown.
pub fn inlines(s: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, out: &mut Vec<Inline>| {
        if !text.is_empty() {
            out.push(Inline::Text(std::mem::take(text)));
        }
    };
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '`'
            && let Some(end) = rest[1..].find('`')
        {
            flush(&mut text, &mut out);
            out.push(Inline::Code(rest[1..1 + end].to_string()));
            rest = &rest[end + 2..];
            continue;
        }
        if rest.starts_with("**")
            && let Some(end) = rest[2..].find("**")
            && end > 0
        {
            flush(&mut text, &mut out);
            out.push(Inline::Strong(inlines(&rest[2..2 + end])));
            rest = &rest[end + 4..];
            continue;
        }
        let intraword = c == '_' && text.chars().last().is_some_and(char::is_alphanumeric);
        if (c == '*' || c == '_')
            && !intraword
            && rest[1..].starts_with(|n: char| !n.is_whitespace())
            && let Some(end) = rest[1..].find(c)
            && end > 0
        {
            flush(&mut text, &mut out);
            out.push(Inline::Em(inlines(&rest[1..1 + end])));
            rest = &rest[end + 2..];
            continue;
        }
        let image = rest.starts_with("![");
        if (c == '[' || image)
            && let Some((label, href, used)) = link_at(if image { &rest[1..] } else { rest })
        {
            flush(&mut text, &mut out);
            if image {
                out.push(Inline::Text(label.to_string()));
            } else if safe_href(href) {
                out.push(Inline::Link { text: inlines(label), href: href.trim().to_string() });
            } else {
                out.push(Inline::Text(label.to_string()));
            }
            rest = &rest[used + usize::from(image)..];
            continue;
        }
        text.push(c);
        rest = &rest[c.len_utf8()..];
    }
    flush(&mut text, &mut out);
    out
}

/// `[label](href)` at the start of `s`: (label, href, bytes used).
fn link_at(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find("](")?;
    let label = &s[1..close];
    if label.contains('\n') {
        return None;
    }
    let end = s[close + 2..].find(')')?;
    let href = &s[close + 2..close + 2 + end];
    Some((label, href, close + 3 + end))
}

/// Plain text of inlines (for tests and accessibility labels).
pub fn plain(inl: &[Inline]) -> String {
    inl.iter()
        .map(|i| match i {
            Inline::Text(t) | Inline::Code(t) => t.clone(),
            Inline::Strong(c) | Inline::Em(c) => plain(c),
            Inline::Link { text, .. } => plain(text),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(doc: &str, split: usize) -> Vec<Block> {
        let mut m = MarkdownStream::new();
        let mut out = Vec::new();
        for piece in doc.as_bytes().chunks(split.max(1)) {
            out.extend(m.push(std::str::from_utf8(piece).unwrap()));
        }
        out.extend(m.finish());
        out.into_iter().map(|Update::Commit(b)| b).collect()
    }

    const DOC: &str = "# Title\n\nSome **bold** and *em* text\nover two lines.\n\n- one\n- two `x`\n1. first\n> quoted\n\n```rust\nfn main() {}\n```\n---\nEnd with [a link](https://example.com).";

    #[test]
    fn blocks_are_the_same_however_the_text_arrives() {
        let whole = all(DOC, DOC.len());
        for split in [1, 2, 3, 7, 16] {
            assert_eq!(all(DOC, split), whole, "split {split}");
        }
        assert_eq!(whole.len(), 9);
        assert!(matches!(&whole[0], Block::Heading(1, t) if plain(t) == "Title"));
        assert!(
            matches!(&whole[1], Block::Paragraph(t) if plain(t) == "Some bold and em text over two lines.")
        );
        assert!(
            matches!(&whole[6], Block::Code { lang, text } if lang == "rust" && text == "fn main() {}\n")
        );
        assert_eq!(whole[7], Block::Rule);
    }

    #[test]
    fn open_block_shows_the_unfinished_tail() {
        let mut m = MarkdownStream::new();
        assert!(m.push("Hello **wor").is_empty());
        assert_eq!(m.open_blocks(), vec![Block::Paragraph(vec![Inline::Text("Hello **wor".into())])]);
        m.push("ld**\n## Hea");
        let open = m.open_blocks();
        assert!(matches!(&open[0], Block::Paragraph(t) if plain(t) == "Hello world"), "{open:?}");
        assert!(matches!(&open[1], Block::Heading(2, t) if plain(t) == "Hea"));
        m.push("d\n```py\nprint(1)\npri");
        assert!(m.open_blocks().is_empty());
        assert_eq!(m.open_code(), Some(("py", "print(1)\npri".to_string())));
        m.push("nt(2)\n`");
        assert_eq!(
            m.open_code(),
            Some(("py", "print(1)\nprint(2)\n".to_string())),
            "a possible fence is held back"
        );
    }

    #[test]
    fn open_code_is_always_a_prefix_of_the_final_code() {
        let doc = "Intro\n\n```rust\nfn main() {\n    let s = \"`x`\";\n}\n```\nafter\n";
        for split in 1..6 {
            let mut m = MarkdownStream::new();
            let mut shown = String::new();
            let mut final_code = None;
            for piece in doc.as_bytes().chunks(split) {
                for Update::Commit(b) in m.push(std::str::from_utf8(piece).unwrap()) {
                    if let Block::Code { text, .. } = b {
                        final_code = Some(text);
                    }
                }
                if let Some((_, t)) = m.open_code() {
                    assert!(t.starts_with(&shown), "shown text went back: {shown:?} then {t:?}");
                    shown = t;
                }
            }
            let final_code = final_code.unwrap();
            assert!(final_code.starts_with(&shown), "split {split}: {shown:?} vs {final_code:?}");
            assert_eq!(final_code, "fn main() {\n    let s = \"`x`\";\n}\n");
        }
    }

    #[test]
    fn dangerous_links_become_text() {
        let i = inlines(
            "[click](javascript:alert(1)) [ok](https://a.b/c) ![img](https://x/y.png) [d](data:text/html,x)",
        );
        assert!(matches!(&i[0], Inline::Text(t) if t == "click"), "{i:?}");
        assert!(i.iter().any(|x| matches!(x, Inline::Link { href, .. } if href == "https://a.b/c")));
        assert!(!i.iter().any(|x| matches!(x, Inline::Link { href, .. } if !href.starts_with("https"))));
        assert!(!safe_href("JaVaScRiPt:alert(1)"));
        assert!(!safe_href("https://a\u{0}b"));
        // Raw HTML is just text.
        assert_eq!(
            inlines("<img src=x onerror=alert(1)>"),
            vec![Inline::Text("<img src=x onerror=alert(1)>".into())]
        );
    }

    #[test]
    fn unmatched_markers_stay_text() {
        assert_eq!(plain(&inlines("2 * 3 = 6 and a_b_c `open")), "2 * 3 = 6 and a_b_c `open");
        assert_eq!(inlines("**"), vec![Inline::Text("**".into())]);
    }
}
