//! A reference page of the book made from the code
//! (`docs/src/reference/*.md`): the test that makes it compares it with the
//! page kept in git, and `LAB_BLESS=1` writes the page instead, so a change
//! to the code and its page go in one commit. (`lab-core`'s own reference
//! test keeps its copy: core cannot take this crate, which takes core.)

use std::path::Path;

/// Fails unless the page at `path` is `made`; with `LAB_BLESS` set, writes
/// `made` there first. `what` says what the page is made from, and `bless`
/// the command that writes it, for the failure's message.
pub fn check(path: &Path, made: &str, what: &str, bless: &str) {
    if std::env::var_os("LAB_BLESS").is_some() {
        std::fs::write(path, made).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let kept = std::fs::read_to_string(path).unwrap_or_default();
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    assert!(kept == made, "docs/src/reference/{name} is not what {what} says: LAB_BLESS=1 {bless} writes it");
}
