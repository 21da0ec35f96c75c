use super::*;

/// Streams `doc` in pieces of `split` characters; the finished blocks in order.
fn streamed(doc: &str, split: usize) -> Vec<Node> {
    let mut m = MarkdownStream::new();
    let mut out = Vec::new();
    let chars: Vec<char> = doc.chars().collect();
    for piece in chars.chunks(split.max(1)) {
        for Update::Commit(nodes) in m.push(&piece.iter().collect::<String>()) {
            out.extend(nodes);
        }
    }
    for Update::Commit(nodes) in m.finish() {
        out.extend(nodes);
    }
    out
}

fn el(tag: Tag, children: Vec<Node>) -> Node {
    Node::Element(Element { tag, children })
}

fn text(s: &str) -> Node {
    Node::Text(s.into())
}

/// The first element named `name`, depth first.
fn find<'a>(nodes: &'a [Node], name: &str) -> Option<&'a Element> {
    nodes.iter().find_map(|n| match n {
        Node::Element(e) if e.tag.name() == name => Some(e),
        Node::Element(e) => find(&e.children, name),
        Node::Text(_) => None,
    })
}

fn count(nodes: &[Node], name: &str) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Element(e) => usize::from(e.tag.name() == name) + count(&e.children, name),
            Node::Text(_) => 0,
        })
        .sum()
}

const DOC: &str = "# Title\n\nSome **bold** and *em* text\nover two lines.  \nHard break.\n\n\
- one\n  - nested *a*\n  - nested b\n- two `x`\n\n1) first\n2) second\n\n> quoted\ncontinued\n\n\
````rust\nfn main() {}\n```\nstill code\n`````\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n\
See [Rust](https://en.wikipedia.org/wiki/Rust_(programming_language)) and \
[docs](https://a.io \"Docs\"), ~~old~~ &lt;tag&gt;.\n\n---\nEnd.";

#[test]
fn blocks_are_the_same_however_the_text_arrives() {
    let whole = render(DOC);
    for split in [1, 2, 3, 7, 16, DOC.len()] {
        assert_eq!(streamed(DOC, split), whole, "split {split}");
    }
    assert_eq!(count(&whole, "ul"), 2, "a nested list inside the outer one");
    assert_eq!(count(&whole, "ol"), 1, "`1)` items form one list");
    assert_eq!(count(&whole, "blockquote"), 1, "a lazy line continues the quote");
    assert_eq!(count(&whole, "br"), 1, "two spaces and a line end break the line");
    let code = find(&whole, "pre").unwrap();
    assert_eq!(code.tag, Tag::CodeBlock { lang: "rust".into() });
    assert_eq!(plain(&code.children), "fn main() {}\n```\nstill code\n", "a longer fence closes it");
    assert_eq!(count(&whole, "table"), 1);
    assert_eq!(find(&whole, "td").unwrap().tag, Tag::TableCell { header: false, align: Align::Left });
    assert_eq!(count(&whole, "del"), 1);
    let link = find(&whole, "a").unwrap();
    assert_eq!(
        link.tag,
        Tag::Link {
            href: "https://en.wikipedia.org/wiki/Rust_(programming_language)".into(),
            title: "".into()
        }
    );
    assert_eq!(count(&whole, "a"), 2, "the titled link too");
    assert!(plain(&whole).contains("<tag>"), "entities are decoded into text");
    assert_eq!(whole.last(), Some(&el(Tag::Paragraph, vec![text("End.")])));
}

#[test]
fn what_model_answers_write() {
    assert_eq!(
        render("***Important:***"),
        vec![el(Tag::Paragraph, vec![el(Tag::Emphasis, vec![el(Tag::Strong, vec![text("Important:")])])])]
    );
    assert_eq!(
        render("*italic **bold** italic*"),
        vec![el(
            Tag::Paragraph,
            vec![el(
                Tag::Emphasis,
                vec![text("italic "), el(Tag::Strong, vec![text("bold")]), text(" italic")]
            )]
        )]
    );
    assert_eq!(
        render("Use *args and **kwargs"),
        vec![el(Tag::Paragraph, vec![text("Use *args and **kwargs")])]
    );
    let titled = render("[docs](https://a.io \"Docs\")");
    assert_eq!(
        find(&titled, "a").unwrap().tag,
        Tag::Link { href: "https://a.io".into(), title: "Docs".into() }
    );
    assert_eq!(
        find(&render("- [x] done\n- [ ] todo"), "li").map(|e| plain(&e.children)),
        Some("☑ done".into())
    );
}

#[test]
fn the_open_block_shows_the_unfinished_tail() {
    let mut m = MarkdownStream::new();
    assert!(m.push("Hello **wor").is_empty());
    assert_eq!(m.open_nodes(), &[el(Tag::Paragraph, vec![text("Hello **wor")])]);
    m.push("ld**\n\n## Hea");
    assert_eq!(plain(m.open_nodes()), "Hello worldHea", "the heading's line is not complete yet");
    let done = m.push("d\n");
    assert_eq!(
        done,
        vec![Update::Commit(vec![el(
            Tag::Paragraph,
            vec![text("Hello "), el(Tag::Strong, vec![text("world")])]
        )])]
    );
    assert_eq!(m.open_nodes(), &[el(Tag::Heading(2), vec![text("Head")])]);
}

#[test]
fn a_list_a_later_item_continues_is_not_finished() {
    let mut m = MarkdownStream::new();
    assert!(m.push("1. a\n\n2").is_empty());
    assert!(m.push(". b\n").is_empty(), "one loose list, still open");
    let done = m.push("\nAfter.\n");
    let Update::Commit(nodes) = &done[0];
    assert_eq!(count(nodes, "ol"), 1);
    assert_eq!(count(nodes, "li"), 2);
}

#[test]
fn open_code_grows_and_is_a_prefix_of_the_final_code() {
    let doc = "Intro\n\n```rust\nfn main() {\n    let s = \"`x`\";\n}\n```\nafter\n";
    for split in 1..6 {
        let mut m = MarkdownStream::new();
        let mut shown = String::new();
        let mut final_code = None;
        let chars: Vec<char> = doc.chars().collect();
        for piece in chars.chunks(split) {
            for Update::Commit(nodes) in m.push(&piece.iter().collect::<String>()) {
                if let Some(pre) = find(&nodes, "pre") {
                    final_code = Some(plain(&pre.children));
                }
            }
            if let Some((lang, t)) = m.open_code() {
                assert_eq!(lang, "rust");
                assert!(t.starts_with(&shown), "shown text went back: {shown:?} then {t:?}");
                assert!(m.open_nodes().is_empty());
                shown = t.to_string();
            }
        }
        for Update::Commit(nodes) in m.finish() {
            if let Some(pre) = find(&nodes, "pre") {
                final_code = Some(plain(&pre.children));
            }
        }
        let final_code = final_code.expect("the code block is committed");
        assert_eq!(final_code, "fn main() {\n    let s = \"`x`\";\n}\n");
        assert!(final_code.starts_with(&shown), "split {split}: {shown:?} vs {final_code:?}");
        assert!(shown.len() > 10, "the open code was shown as it grew");
    }
}

#[test]
fn an_unclosed_fence_ends_with_the_answer() {
    let mut m = MarkdownStream::new();
    m.push("```\nlet x = 1;\nlet y");
    assert_eq!(m.open_code(), Some(("", "let x = 1;\nlet y")));
    let Update::Commit(nodes) = &m.finish()[0];
    assert_eq!(plain(nodes), "let x = 1;\nlet y");
}

#[test]
fn dangerous_links_and_html_become_text() {
    let nodes = render(
        "[click](javascript:alert(1)) [ok](https://a.b/c) ![img](https://x/y.png) [d](data:text/html,x) \
         [rel](/local) <mail@example.com> <img src=x onerror=alert(1)>\n\n<script>alert(1)</script>\n",
    );
    let mut hrefs = Vec::new();
    collect_links(&nodes, &mut hrefs);
    assert_eq!(hrefs, vec!["https://a.b/c".to_string(), "mailto:mail@example.com".to_string()]);
    let shown = plain(&nodes);
    for t in ["click", "img", "rel", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>"] {
        assert!(shown.contains(t), "{t} shown as text in {shown:?}");
    }
    assert!(!safe_href("JaVaScRiPt:alert(1)"));
    assert!(!safe_href("https://a\u{0}b"));
}

fn collect_links(nodes: &[Node], out: &mut Vec<String>) {
    for n in nodes {
        if let Node::Element(e) = n {
            if let Tag::Link { href, .. } = &e.tag {
                out.push(href.clone());
            }
            collect_links(&e.children, out);
        }
    }
}

/// An answer of `tokens` tokens: paragraphs, lists, code, tables, repeated.
fn long_answer(tokens: usize) -> Vec<String> {
    let unit = "Some **bold** words and a [link](https://example.com) in a paragraph that goes on for a while.\n\n\
                - an item\n- another *item*\n\n```py\nprint('x')\nprint('y')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n";
    let pieces: Vec<String> = unit.split_inclusive(' ').map(str::to_string).collect();
    pieces.iter().cycle().take(tokens).cloned().collect()
}

#[test]
fn cost_per_token_stays_flat_on_long_answers() {
    let per_byte = |tokens: usize| {
        let mut m = MarkdownStream::new();
        let mut bytes = 0;
        for t in long_answer(tokens) {
            bytes += t.len();
            m.push(&t);
        }
        m.finish();
        m.parsed_bytes() as f64 / bytes as f64
    };
    let (short, long) = (per_byte(10_000), per_byte(100_000));
    assert!(long < short * 1.1, "parsed bytes per byte: {short:.1} at 10k tokens, {long:.1} at 100k");
    assert!(long < 60.0, "each byte is parsed {long:.1} times");
}

#[test]
fn hostile_html_streams_without_panic() {
    let pieces = [
        "<img src=x onerror=\"window.__pwned=1\">",
        " <script>window.__pwned=2</script>",
        " [click](javascript:window.__pwned=3)",
        " <a href=\"javascript:window.__pwned=4\">x</a>",
        " <svg onload=\"window.__pwned=5\"></svg>",
    ];
    let mut m = MarkdownStream::new();
    for p in pieces {
        m.push(p);
        let _ = m.open_nodes();
    }
    let done = m.finish();
    assert!(!done.is_empty());
}
