//! The metrics reference page (`docs/src/reference/metrics.md`) lists every
//! latency row of [`lab_core::measure::registry`] as the registry defines
//! it, between its two markers: a new row appears on the page as in every
//! table, and a page that differs fails here
//! (`LAB_BLESS=1 cargo test -p lab-core --test reference` writes it).

use lab_core::measure::registry::{LATENCY, OTHER_FIGURES, Shown};

const START: &str = "<!-- registry: made from crates/core/src/measure/registry.rs -->";
const END: &str = "<!-- registry: end -->";

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The section as the registry makes it.
fn section() -> String {
    let mut out = format!(
        "{START}\n\n| id | row | what it measures | one request's value | shown |\n|---|---|---|---|---|\n"
    );
    for r in &LATENCY {
        let per_request = if r.pooled { "its median" } else { "its own" };
        let shown = match r.shown {
            Shown::Always => "always",
            Shown::WhenMeasured => "when measured",
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {per_request} | {shown} |\n",
            r.id,
            cell(r.label),
            cell(r.what)
        ));
    }
    out.push_str("\nThe run's other figures, and where each is shown:\n\n| JSON key | where |\n|---|---|\n");
    for (key, place) in OTHER_FIGURES {
        out.push_str(&format!("| `{key}` | {} |\n", cell(place)));
    }
    out.push('\n');
    out.push_str(END);
    out
}

#[test]
fn the_metrics_page_lists_every_registry_row() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/reference/metrics.md");
    let page = std::fs::read_to_string(path).unwrap();
    let made = section();
    for r in &LATENCY {
        assert!(made.contains(&format!("| `{}` |", r.id)), "{} not in the section", r.id);
    }
    let (before, after) = match (page.find(START), page.find(END)) {
        (Some(a), Some(b)) if a < b => (&page[..a], &page[b + END.len()..]),
        _ => (page.as_str(), "\n"),
    };
    let want = format!("{before}{made}{after}");
    if std::env::var_os("LAB_BLESS").is_some() {
        std::fs::write(path, &want).unwrap();
        return;
    }
    assert!(
        page == want,
        "docs/src/reference/metrics.md does not list the registry's rows as it defines them: LAB_BLESS=1 cargo test -p lab-core --test reference writes them"
    );
}
