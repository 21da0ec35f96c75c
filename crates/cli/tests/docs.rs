//! The docs hold together: every relative link of README, ARCHITECTURE,
//! BENCHMARKS and the book (`docs/src`) reaches a file, and an `#anchor` a
//! heading of it; every page of the book is in its `SUMMARY.md`, and every
//! entry of the summary is a page. (The reference pages are checked
//! against the code where they are made: the command line in
//! `crates/cli/src/reference.rs`, the routes in `crates/server/tests/router.rs`.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn book_pages(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            book_pages(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// The Markdown files the docs are made of.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs: Vec<PathBuf> =
        ["README.md", "ARCHITECTURE.md", "BENCHMARKS.md"].iter().map(|f| root.join(f)).collect();
    book_pages(&root.join("docs/src"), &mut docs);
    docs
}

/// The text outside code blocks and code spans.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                out.push(c);
            }
        }
        out.push('\n');
    }
    out
}

/// Every `[text](target)` link's target (a line break may sit inside the
/// text).
fn links(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        if let Some(end) = after.find(')') {
            let target = after[..end].trim();
            if !target.contains(char::is_whitespace) || target.is_empty() {
                out.push(target.to_string());
            }
        }
        rest = after;
    }
    out
}

/// The ids mdBook gives a page's headings: lower case, spaces as `-`,
/// other punctuation but `-` and `_` dropped.
fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            l.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

#[test]
fn every_link_of_the_docs_reaches_its_file_and_heading() {
    let docs = documents();
    assert!(docs.len() > 20, "read {} documents", docs.len());
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = link.split_once('#').map_or((link.as_str(), None), |(f, a)| (f, Some(a)));
            let target = if file.is_empty() { doc.clone() } else { doc.parent().unwrap().join(file) };
            let name = doc.strip_prefix(root()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{name}: {link} (no such file)"));
                continue;
            }
            if let Some(a) = anchor
                && target.extension().is_some_and(|x| x == "md")
                && !anchors(&std::fs::read_to_string(&target).unwrap()).contains(a)
            {
                broken.push(format!("{name}: {link} (no such heading)"));
            }
        }
    }
    assert!(checked > 40, "only {checked} links read");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_its_summary_and_back() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = links(&summary).iter().map(|l| src.join(l)).collect();
    let mut pages = Vec::new();
    book_pages(&src, &mut pages);
    let pages: BTreeSet<PathBuf> = pages.into_iter().filter(|p| !p.ends_with("SUMMARY.md")).collect();
    let orphans: Vec<_> = pages.difference(&listed).collect();
    assert!(orphans.is_empty(), "pages not in SUMMARY.md: {orphans:?}");
    let missing: Vec<_> = listed.difference(&pages).collect();
    assert!(missing.is_empty(), "SUMMARY.md entries with no page: {missing:?}");
}

#[test]
fn the_checker_finds_a_broken_link_and_a_missing_heading() {
    let text = "See [a](guide/x.md) and [b](#there), not `[c](nowhere.md)`.\n```\n[d](nor-here.md)\n```\n";
    assert_eq!(links(text), ["guide/x.md", "#there"]);
    assert!(anchors("# Title\n## Run a study, remotely!\n").contains("run-a-study-remotely"));
    assert!(!anchors("# Title\n").contains("there"));
}

/// README is what a new user reads first: what it is, the two commands,
/// links (issue 47: at most 150 lines).
#[test]
fn readme_is_short() {
    let lines = std::fs::read_to_string(root().join("README.md")).unwrap().lines().count();
    assert!(lines <= 150, "README.md has {lines} lines");
}

/// Each view's help link (`View::help_page`, relative to the app, whose
/// `docs/` the book is built into) reaches a page of the book.
#[test]
fn every_views_help_reaches_its_page() {
    let src = root().join("docs/src");
    for v in lab_core::share::route::View::ALL {
        let page = v.help_page().strip_prefix("docs/").unwrap().replace(".html", ".md");
        assert!(src.join(&page).is_file(), "{}: {page} is no page of the book", v.id());
    }
}

/// ARCHITECTURE is a map (issue 47: at most 150 lines; the detail is the
/// book's Internals page).
#[test]
fn architecture_is_a_map() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    assert!(text.lines().count() <= 150, "ARCHITECTURE.md has {} lines", text.lines().count());
    assert!(text.contains("## Where a new thing goes"));
}
