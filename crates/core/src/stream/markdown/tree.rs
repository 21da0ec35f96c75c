//! The rendered form of Markdown: a tree of text and a fixed set of
//! elements, built from `pulldown-cmark`'s events under the lab's safety
//! policy.
//!
//! Policy (what differs from CommonMark's HTML, on purpose):
//! - **No HTML from the model.** Raw HTML blocks and inline HTML are shown
//!   as their source text.
//! - **Links** keep only `http:`, `https:` and `mailto:` URLs
//!   ([`safe_href`]); any other link (`javascript:`, `data:`, relative) is
//!   shown as its text. E-mail autolinks become `mailto:` links.
//! - **Images** are shown as their alt text (nothing is loaded).
//! - GFM task-list markers are shown as `☑ ` / `☐ ` text.
//!
//! Everything else follows the CommonMark spec, plus GFM tables and
//! strikethrough, which model answers use constantly.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, LinkType, Tag as MdTag, TagEnd};

/// URL schemes a link may use.
pub const SAFE_SCHEMES: [&str; 3] = ["http://", "https://", "mailto:"];

/// True when `href` may become a link.
pub fn safe_href(href: &str) -> bool {
    let h = href.trim().to_ascii_lowercase();
    SAFE_SCHEMES.iter().any(|s| h.starts_with(s)) && !h.chars().any(char::is_control)
}

/// A node of rendered Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Text, shown as it is (a DOM text node).
    Text(String),
    /// One of the allowed elements.
    Element(Element),
}

/// An element and its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// What it is.
    pub tag: Tag,
    /// What it holds.
    pub children: Vec<Node>,
}

/// Column alignment of a table cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Not given.
    None,
    /// `:---`.
    Left,
    /// `:---:`.
    Center,
    /// `---:`.
    Right,
}

/// The elements rendered Markdown may contain; nothing else is ever made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tag {
    /// `<p>`.
    Paragraph,
    /// `<h1>`–`<h6>`.
    Heading(u8),
    /// `<blockquote>`.
    BlockQuote,
    /// `<ol start>` when `start` is given, else `<ul>`.
    List {
        /// First number of an ordered list.
        start: Option<u64>,
    },
    /// `<li>`.
    Item,
    /// `<pre><code>`; `lang` is the info string's first word.
    CodeBlock {
        /// Language, may be empty.
        lang: String,
    },
    /// `<hr>`.
    Rule,
    /// `<table>`.
    Table,
    /// `<thead>`.
    TableHead,
    /// `<tbody>`.
    TableBody,
    /// `<tr>`.
    TableRow,
    /// `<th>` (header) or `<td>`.
    TableCell {
        /// In the header row.
        header: bool,
        /// Column alignment.
        align: Align,
    },
    /// `<em>`.
    Emphasis,
    /// `<strong>`.
    Strong,
    /// `<del>`.
    Strikethrough,
    /// Inline `<code>`.
    Code,
    /// `<a>` with an allowed URL.
    Link {
        /// The URL ([`safe_href`] holds).
        href: String,
        /// Its title, may be empty.
        title: String,
    },
    /// `<br>`.
    LineBreak,
}

impl Tag {
    /// The HTML element name.
    pub fn name(&self) -> &'static str {
        match self {
            Tag::Paragraph => "p",
            Tag::Heading(1) => "h1",
            Tag::Heading(2) => "h2",
            Tag::Heading(3) => "h3",
            Tag::Heading(4) => "h4",
            Tag::Heading(5) => "h5",
            Tag::Heading(_) => "h6",
            Tag::BlockQuote => "blockquote",
            Tag::List { start: Some(_) } => "ol",
            Tag::List { start: None } => "ul",
            Tag::Item => "li",
            Tag::CodeBlock { .. } => "pre",
            Tag::Rule => "hr",
            Tag::Table => "table",
            Tag::TableHead => "thead",
            Tag::TableBody => "tbody",
            Tag::TableRow => "tr",
            Tag::TableCell { header: true, .. } => "th",
            Tag::TableCell { header: false, .. } => "td",
            Tag::Emphasis => "em",
            Tag::Strong => "strong",
            Tag::Strikethrough => "del",
            Tag::Code => "code",
            Tag::Link { .. } => "a",
            Tag::LineBreak => "br",
        }
    }
}

/// The text a node shows (for tests and accessible names).
pub fn plain(nodes: &[Node]) -> String {
    nodes
        .iter()
        .map(|n| match n {
            Node::Text(t) => t.clone(),
            Node::Element(e) => plain(&e.children),
        })
        .collect()
}

/// One open element while events come in; `None` lets its children
/// through to the parent (an unsafe link), as plain text when `flat` (an
/// image's alt text).
struct Frame {
    tag: Option<Tag>,
    flat: bool,
    children: Vec<Node>,
}

/// Builds [`Node`]s from `pulldown-cmark` events.
pub(super) struct Builder {
    stack: Vec<Frame>,
    aligns: Vec<Align>,
    cell: usize,
    in_head: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Self {
            stack: vec![Frame { tag: None, flat: false, children: Vec::new() }],
            aligns: Vec::new(),
            cell: 0,
            in_head: false,
        }
    }
}

fn align(a: &Alignment) -> Align {
    match a {
        Alignment::None => Align::None,
        Alignment::Left => Align::Left,
        Alignment::Center => Align::Center,
        Alignment::Right => Align::Right,
    }
}

impl Builder {
    fn open(&mut self, tag: Option<Tag>) {
        self.stack.push(Frame { tag, flat: false, children: Vec::new() });
    }

    fn close(&mut self) {
        if self.stack.len() < 2 {
            return;
        }
        let Some(f) = self.stack.pop() else { return };
        let parent = &mut self.stack.last_mut().expect("the root frame stays").children;
        match f.tag {
            Some(tag) => parent.push(Node::Element(Element { tag, children: f.children })),
            None if f.flat => parent.push(Node::Text(plain(&f.children))),
            None => parent.extend(f.children),
        }
    }

    fn top_is(&self, tag: &Tag) -> bool {
        self.stack.last().and_then(|f| f.tag.as_ref()) == Some(tag)
    }

    fn text(&mut self, s: &str) {
        let children = &mut self.stack.last_mut().expect("the root frame stays").children;
        match children.last_mut() {
            Some(Node::Text(t)) => t.push_str(s),
            _ => children.push(Node::Text(s.to_string())),
        }
    }

    fn leaf(&mut self, tag: Tag, text: Option<&str>) {
        let children = text.map(|t| vec![Node::Text(t.to_string())]).unwrap_or_default();
        self.stack
            .last_mut()
            .expect("the root frame stays")
            .children
            .push(Node::Element(Element { tag, children }));
    }

    /// Takes one event.
    pub(super) fn event(&mut self, e: Event<'_>) {
        match e {
            Event::Start(t) => self.start(t),
            Event::End(t) => self.end(t),
            Event::Text(s)
            | Event::Html(s)
            | Event::InlineHtml(s)
            | Event::InlineMath(s)
            | Event::DisplayMath(s) => self.text(&s),
            Event::FootnoteReference(s) => self.text(&format!("[^{s}]")),
            Event::Code(s) => self.leaf(Tag::Code, Some(&s)),
            Event::SoftBreak => self.text("\n"),
            Event::HardBreak => self.leaf(Tag::LineBreak, None),
            Event::Rule => self.leaf(Tag::Rule, None),
            Event::TaskListMarker(done) => self.text(if done { "☑ " } else { "☐ " }),
        }
    }

    fn start(&mut self, t: MdTag<'_>) {
        let tag = match t {
            MdTag::Paragraph | MdTag::HtmlBlock => Some(Tag::Paragraph),
            MdTag::Heading { level, .. } => Some(Tag::Heading(level as u8)),
            MdTag::BlockQuote(_) => Some(Tag::BlockQuote),
            MdTag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or("").to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                Some(Tag::CodeBlock { lang })
            }
            MdTag::List(start) => Some(Tag::List { start }),
            MdTag::Item => Some(Tag::Item),
            MdTag::Table(aligns) => {
                self.aligns = aligns.iter().map(align).collect();
                Some(Tag::Table)
            }
            MdTag::TableHead => {
                self.in_head = true;
                self.cell = 0;
                self.open(Some(Tag::TableHead));
                Some(Tag::TableRow)
            }
            MdTag::TableRow => {
                if self.top_is(&Tag::Table) {
                    self.open(Some(Tag::TableBody));
                }
                self.cell = 0;
                Some(Tag::TableRow)
            }
            MdTag::TableCell => {
                let align = self.aligns.get(self.cell).copied().unwrap_or(Align::None);
                self.cell += 1;
                Some(Tag::TableCell { header: self.in_head, align })
            }
            MdTag::Emphasis => Some(Tag::Emphasis),
            MdTag::Strong => Some(Tag::Strong),
            MdTag::Strikethrough => Some(Tag::Strikethrough),
            MdTag::Link { link_type, dest_url, title, .. } => {
                let href = match link_type {
                    LinkType::Email => format!("mailto:{dest_url}"),
                    _ => dest_url.to_string(),
                };
                safe_href(&href)
                    .then(|| Tag::Link { href: href.trim().to_string(), title: title.to_string() })
            }
            // Images show their alt text, plain.
            MdTag::Image { .. } => {
                self.stack.push(Frame { tag: None, flat: true, children: Vec::new() });
                return;
            }
            // Other constructs (footnotes, definition lists, metadata) are
            // not enabled; whatever they hold shows as text.
            _ => None,
        };
        self.open(tag);
    }

    fn end(&mut self, t: TagEnd) {
        match t {
            TagEnd::TableHead => {
                self.close(); // the row
                self.close(); // the head
                self.in_head = false;
            }
            TagEnd::Table => {
                if self.top_is(&Tag::TableBody) {
                    self.close();
                }
                self.close();
            }
            _ => self.close(),
        }
    }

    /// The nodes built so far (closes whatever is still open).
    pub(super) fn finish(mut self) -> Vec<Node> {
        while self.stack.len() > 1 {
            self.close();
        }
        self.stack.pop().map(|f| f.children).unwrap_or_default()
    }
}
