//! The shape of `lab-core` and `lab-server`, checked: no file imports
//! itself back through others (an import circle), and no room imports a
//! room that comes later in the crate's order ([`ROOMS`], [`SERVER_ROOMS`],
//! as each `lib.rs` lists them); and the crates depend one way:
//! `latency-lab` (cli) → `lab-server` → `lab-core`.
//!
//! What counts as an import: every path a file names, `use crate::…`,
//! `use super::…`, `pub use` and inline `crate::a::b::f(…)`, resolved to the
//! deepest module file it reaches. Test code (from the first
//! `#[cfg(test)]` of a file, and `tests.rs` modules) is left out: a test
//! may use anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rooms from the bottom up: a room may import itself and the rooms
/// before it, never one after it.
const ROOMS: [&str; 13] = [
    "trace", "measure", "stream", "replay", "load", "serve", "workload", "field", "import", "study", "chart",
    "share", "fuzz",
];

/// The rooms of `crates/server`, from the bottom up.
const SERVER_ROOMS: [&str; 10] =
    ["error", "ops", "db", "site", "client", "replay", "studies", "field", "health", "serve"];

/// Module path (`study::results`) → its source, without test code.
type Files = BTreeMap<String, String>;

fn read_tree(root: &Path) -> Files {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(root, &mut paths);
    let mut files = Files::new();
    for p in paths {
        let rel = p.strip_prefix(root).unwrap().with_extension("");
        let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if parts.last().is_some_and(|l| l == "tests") {
            continue;
        }
        if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
            parts.pop();
        }
        let text = std::fs::read_to_string(&p).unwrap();
        files.insert(parts.join("::"), text);
    }
    files
}

/// The code of a file without its tests and comments.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or_default();
    body.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// Module paths named in `text` (absolute, without `crate::`), with `super`
/// resolved against `module`.
fn named(module: &str, text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let ident = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_';
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(start).map(|i| i + from) {
            from = i + start.len();
            if i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b':') {
                continue;
            }
            // `super::super::x`: count the supers.
            let mut ups = 0;
            let mut j = i;
            if start == "super::" {
                while text[j..].starts_with("super::") {
                    ups += 1;
                    j += "super::".len();
                }
                from = j;
            } else {
                j += "crate::".len();
            }
            let mut path: Vec<String> = Vec::new();
            loop {
                let end = j + text[j..].bytes().take_while(|&c| ident(c)).count();
                if end == j {
                    break;
                }
                path.push(text[j..end].to_string());
                if text[end..].starts_with("::") {
                    j = end + 2;
                } else {
                    break;
                }
            }
            let base: Vec<String> = if start == "crate::" {
                Vec::new()
            } else {
                // A file `a/b.rs` is module a::b; its `super` is `a`. A
                // `mod.rs` of a::b is a::b too, and its `super` is also `a`.
                let mut m: Vec<String> =
                    module.split("::").filter(|s| !s.is_empty()).map(String::from).collect();
                for _ in 0..ups {
                    m.pop();
                }
                m
            };
            let full: Vec<String> = base.into_iter().chain(path).collect();
            out.insert(full.join("::"));
        }
    }
    out
}

/// The deepest module of `files` that `path` lies in.
fn resolve(files: &Files, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = path.split("::").collect();
    while !parts.is_empty() {
        let m = parts.join("::");
        if files.contains_key(&m) {
            return Some(m);
        }
        parts.pop();
    }
    None
}

/// File → files it imports (itself and the crate root left out).
fn edges(files: &Files) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for (m, text) in files {
        let mut to = BTreeSet::new();
        for p in named(m, &code(text)) {
            if let Some(t) = resolve(files, &p)
                && t != *m
                && !t.is_empty()
            {
                to.insert(t);
            }
        }
        out.insert(m.clone(), to);
    }
    out
}

/// Every import circle, as the path that closes it (`a -> b -> a`).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        found: &mut Vec<String>,
    ) {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for t in edges.get(n).into_iter().flatten() {
            match state.get(t.as_str()).copied().unwrap_or(0) {
                0 => visit(t, edges, state, stack, found),
                1 => {
                    let at = stack.iter().position(|s| s == t).unwrap_or(0);
                    let mut c = stack[at..].to_vec();
                    c.push(t.clone());
                    found.push(c.join(" -> "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            visit(n, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

/// Imports from a room into a later one (`file -> file (room → later room)`).
fn backward(edges: &BTreeMap<String, BTreeSet<String>>, rooms: &[&str]) -> Vec<String> {
    let rank = |m: &str| rooms.iter().position(|r| m.split("::").next() == Some(r));
    let mut out = Vec::new();
    for (from, tos) in edges {
        for to in tos {
            if let (Some(a), Some(b)) = (rank(from), rank(to))
                && b > a
            {
                out.push(format!("{from} -> {to} ({} imports the later room {})", rooms[a], rooms[b]));
            }
        }
    }
    out
}

fn core_files() -> Files {
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

fn server_files() -> Files {
    read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src"))
}

/// No circle, no import of a later room, every room in the order.
fn check_rooms(name: &str, files: &Files, rooms: &[&str]) {
    let e = edges(files);
    let c = circles(&e);
    assert!(c.is_empty(), "import circles in {name}:\n{}", c.join("\n"));
    let b = backward(&e, rooms);
    assert!(b.is_empty(), "imports of a later room in {name}:\n{}", b.join("\n"));
    for room in files.keys().filter(|m| !m.is_empty()).filter_map(|m| m.split("::").next()) {
        assert!(rooms.contains(&room), "room {room} of {name} is not in its order");
    }
}

#[test]
fn the_core_has_no_import_circle_and_no_room_imports_a_later_one() {
    let files = core_files();
    assert!(files.len() > 100, "read {} files", files.len());
    check_rooms("crates/core/src", &files, &ROOMS);
}

#[test]
fn the_server_has_no_import_circle_and_no_room_imports_a_later_one() {
    let files = server_files();
    assert!(files.len() > 40, "read {} files", files.len());
    check_rooms("crates/server/src", &files, &SERVER_ROOMS);
    // A planted import from a lower room into a higher one is found.
    let mut planted = files.clone();
    let text = planted.get_mut("db::setup").unwrap();
    *text = format!("fn planted() {{ crate::studies::http::router; }}\n{text}");
    assert_eq!(
        backward(&edges(&planted), &SERVER_ROOMS),
        ["db::setup -> studies::http (db imports the later room studies)"]
    );
}

/// The workspace crates a crate's `[dependencies]` name (dev-dependencies
/// left out: a test may use anything).
fn workspace_dependencies(manifest: &str) -> Vec<&'static str> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest)).unwrap();
    let deps = text.split("[dependencies]").nth(1).unwrap_or_default();
    let deps = deps.split("\n[").next().unwrap_or_default();
    ["lab-core", "lab-server", "latency-lab", "lab-testkit", "latency-lab-app"]
        .into_iter()
        .filter(|c| {
            deps.lines().any(|l| {
                l.trim_start().starts_with(&format!("{c} ")) || l.trim_start().starts_with(&format!("{c}."))
            })
        })
        .collect()
}

#[test]
fn the_crates_depend_one_way_cli_server_core() {
    assert_eq!(
        workspace_dependencies("Cargo.toml"),
        Vec::<&str>::new(),
        "lab-core depends on no crate of ours"
    );
    assert_eq!(workspace_dependencies("../server/Cargo.toml"), ["lab-core"]);
    assert_eq!(workspace_dependencies("../cli/Cargo.toml"), ["lab-core", "lab-server"]);
}

#[test]
fn the_check_finds_a_deliberate_circle_and_a_backward_import() {
    let mut files = core_files();
    // A circle through `super`: results -> answer (already) and answer -> results.
    let plant = |files: &mut Files, m: &str, code: &str| {
        let text = files.get_mut(m).unwrap();
        *text = format!("{code}\n{text}");
    };
    plant(&mut files, "study::answer", "fn planted(_: super::results::StudyResults) {}");
    // A room importing a later one: trace -> share.
    plant(&mut files, "trace::stamps", "fn planted() { crate::share::link::PREFIX; }");
    let e = edges(&files);
    let c = circles(&e);
    assert!(
        c.iter().any(|c| c.contains("study::answer") && c.contains("study::results")),
        "the planted circle is not found: {c:?}"
    );
    let b = backward(&e, &ROOMS);
    assert_eq!(b, ["trace::stamps -> share::link (trace imports the later room share)"]);
}

#[test]
fn paths_resolve_to_the_deepest_module_file() {
    let mut files = Files::new();
    for m in ["study", "study::results", "study::threshold", "study::threshold::in_study", "replay::pane"] {
        files.insert(m.into(), String::new());
    }
    let text = "use super::super::results::{Answer, Response};\nuse crate::replay::pane::PaneConfig;\nlet x = super::in_study::f();";
    let n = named("study::threshold::session", text);
    let got: BTreeSet<_> = n.iter().filter_map(|p| resolve(&files, p)).collect();
    let want: BTreeSet<String> = ["study::results", "replay::pane", "study::threshold::in_study"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(got, want);
    assert_eq!(code("use a;\n// crate::x::y\n#[cfg(test)]\nuse crate::z;"), "use a;\n");
}

/// Issue 47: no crate of the workspace pulls a file in by a `path` attribute:
/// shared test helpers live in `crates/testkit`, a dev-only crate, and a
/// module's tests in its own child module. Every `.rs` file under
/// `crates/` is read, its tests and comments included.
#[test]
fn no_crate_pulls_a_file_in_by_path() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if p.is_dir() && name != "target" && !name.starts_with('.') {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&crates, &mut files);
    assert!(files.len() > 100, "the workspace's sources were read: {}", files.len());
    let attribute = ["#[", "path"].concat();
    let found: Vec<String> = files
        .iter()
        .filter(|p| std::fs::read_to_string(p).unwrap_or_default().contains(&attribute))
        .map(|p| p.display().to_string())
        .collect();
    assert!(found.is_empty(), "files pulled in by path: {found:?}");
}
