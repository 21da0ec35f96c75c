//! The names of the page's on-demand modules once their content is hashed.
//!
//! Trunk builds a module loaded on demand as `<stem>.js` and
//! `<stem>_bg.wasm`, without a content hash, so a browser would have to
//! revalidate them on every use. The build renames them `<stem>-<hash>.js`
//! and `<stem>-<hash>_bg.wasm` (cacheable for a year, like Trunk's own
//! hashed files) and lists the new stems in a meta tag of `index.html`
//! ([`META`]); the page reads the tag and asks for the files by
//! [`named`]. A page without the tag (a build not renamed) keeps the plain
//! names.

/// The `name` of the meta tag whose `content` lists the hashed stems,
/// separated by spaces (`study_module-0123456789abcdef runs_module-…`).
pub const META: &str = "latency-lab-modules";

/// The modules renamed: those the page loads by name on demand (the import
/// worker keeps its names: its loader script names them).
pub const MODULES: [&str; 2] = ["study_module", "runs_module"];

/// Hex digits of the content hash in a name (a name of 12 or more is
/// served as immutable).
pub const HASH_DIGITS: usize = 16;

/// The two file endings of a module.
const ENDINGS: [&str; 2] = ["_bg.wasm", ".js"];

/// `path` (`./study_module.js`) under the hashed name `listed` (the meta
/// tag's content) gives its module; `path` itself when none does.
pub fn named(path: &str, listed: &str) -> String {
    let (dir, file) = path.rsplit_once('/').map_or(("", path), |(d, f)| (d, f));
    for ending in ENDINGS {
        let Some(stem) = file.strip_suffix(ending) else { continue };
        for hashed in listed.split_whitespace() {
            let hash = hashed.strip_prefix(stem).and_then(|r| r.strip_prefix('-'));
            if hash.is_some_and(|h| h.len() == HASH_DIGITS && h.bytes().all(|b| b.is_ascii_hexdigit())) {
                let slash = if path.contains('/') { "/" } else { "" };
                return format!("{dir}{slash}{hashed}{ending}");
            }
        }
        break;
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_take_their_modules_hashed_name_and_nothing_else_changes() {
        let listed = "study_module-0123456789abcdef runs_module-fedcba9876543210";
        assert_eq!(named("./study_module.js", listed), "./study_module-0123456789abcdef.js");
        assert_eq!(named("./study_module_bg.wasm", listed), "./study_module-0123456789abcdef_bg.wasm");
        assert_eq!(named("runs_module_bg.wasm", listed), "runs_module-fedcba9876543210_bg.wasm");
        // Not a listed module, no tag, or a damaged entry: the plain name.
        for (path, listed) in [
            ("./import_worker.js", listed),
            ("./study_module.js", ""),
            ("./study_module.js", "study_module-xyz"),
            ("./study_module.js", "study_module-0123"),
            ("./study_module.css", listed),
            ("./other_study_module.js", "study_module-0123456789abcdef"),
        ] {
            assert_eq!(named(path, listed), path, "{path} with {listed:?}");
        }
    }
}
