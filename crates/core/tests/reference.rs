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

/// A page made wholly from the code: written with `LAB_BLESS=1`, else
/// compared.
fn check_page(page: &str, made: &str, test: &str) {
    let path = format!("{}/../../docs/src/reference/{page}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("LAB_BLESS").is_some() {
        std::fs::write(&path, made).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == made,
        "docs/src/reference/{page} is not what the code says: LAB_BLESS=1 cargo test -p lab-core --test reference {test} writes it"
    );
}

/// The OTLP page: every attribute the lab reads and writes, and what it
/// never keeps, from `field::conventions`.
#[test]
fn the_otlp_page_is_the_conventions() {
    use lab_core::field::conventions::{GENAI_ATTRIBUTES, LAB_ATTRIBUTES, TEXT_KEYS, TEXT_PREFIXES};
    let table = |rows: &[lab_core::field::conventions::Attribute]| {
        let mut t = String::from("| attribute | type | meaning |\n|---|---|---|\n");
        for a in rows {
            t.push_str(&format!("| `{}` | {} | {} |\n", a.key, a.kind, cell(a.meaning)));
        }
        t
    };
    let made = format!(
        "# OTLP spans (field data)\n\n\
         What the field collector (`POST /v1/traces`) and Import read of an OpenTelemetry span, and what the field \
         snippet writes: one CLIENT span per streamed answer, from the request's send to the stream's end, named \
         `{{gen_ai.operation.name}} {{gen_ai.request.model}}` as the GenAI semantic conventions have it. Made from \
         `crates/core/src/field/conventions.rs`.\n\n\
         ## The GenAI conventions' attributes\n\n{}\n\
         ## The lab's own attributes\n\n\
         Offsets are milliseconds from the span's start (the send), as doubles; arrays are OTLP `arrayValue`s. \
         Any collector keeps them, and any GenAI reader can ignore them.\n\n{}\n\
         ## Never stored\n\n\
         The conversation itself, whatever attribute a sender puts it in, is dropped on reading and before \
         anything is stored: {}, and every key starting with {}.\n",
        table(&GENAI_ATTRIBUTES),
        table(&LAB_ATTRIBUTES),
        TEXT_KEYS.map(|k| format!("`{k}`")).join(", "),
        TEXT_PREFIXES.map(|k| format!("`{k}`")).join(", "),
    );
    for a in LAB_ATTRIBUTES.iter().chain(&GENAI_ATTRIBUTES) {
        assert!(made.contains(&format!("| `{}` |", a.key)), "{}", a.key);
    }
    check_page("otlp.md", &made, "otlp");
}

/// The workload formats' page: every format of `workload::format`'s one
/// list, as its spec says it.
#[test]
fn the_workload_formats_page_is_the_list() {
    use lab_core::workload::format::{Format, Layout};
    let mut made = String::from(
        "# Workload formats\n\n\
         Every workload file `latency-lab run`, `analyze` and Import read, recognised by content in this order, \
         as each format's file in `crates/core/src/workload/format/` says it (the page is made from that list). \
         What each row's fields mean: [Workloads](../guide/workloads.md).\n\n\
         | format | layout | timed | prefix blocks |\n|---|---|---|---|\n",
    );
    for f in Format::ALL {
        let s = f.spec();
        let layout = match &s.layout {
            Layout::JsonLines(_) => "JSON lines".to_string(),
            Layout::Csv { fields, .. } => {
                format!(
                    "CSV with the columns {}",
                    fields.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
                )
            }
            Layout::Conversations => "a JSON list of conversations".to_string(),
            Layout::Trace => "the lab's trace (one JSON document)".to_string(),
        };
        let timed = if s.timed { "yes" } else { "no: one after another" };
        let blocks = s.block_tokens.map_or("–".to_string(), |t| format!("{t} tokens a block"));
        made.push_str(&format!("| {} | {layout} | {timed} | {blocks} |\n", cell(s.label)));
    }
    // The guide's table names every format too.
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/guide/workloads.md"))
            .unwrap();
    for f in Format::ALL.into_iter().filter(|f| *f != Format::LabTrace) {
        assert!(guide.contains(f.label()), "the guide's Workloads page does not name {}", f.label());
    }
    check_page("workload-formats.md", &made, "workload");
}

/// The trace format's page: its example loads as a trace, and every field
/// it names is one the code keeps (a misspelt or retired field would be
/// ignored on loading, and is found here: it does not come back).
#[test]
fn the_trace_format_page_shows_a_trace_the_code_reads() {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/src/reference/trace-format.md"
    ))
    .unwrap();
    let example =
        page.split("```json").nth(1).and_then(|b| b.split("```").next()).expect("the page's JSON example");
    let trace = lab_core::trace::Trace::from_json(example).expect("the example loads as a trace");
    let back = serde_json::to_value(&trace).unwrap();
    let shown: serde_json::Value = serde_json::from_str(example).unwrap();
    fn missing(shown: &serde_json::Value, back: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        match (shown, back) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (k, v) in a {
                    match b.get(k) {
                        Some(w) => missing(v, w, &format!("{at}.{k}"), out),
                        None if v.is_null() => {}
                        None => out.push(format!("{at}.{k}")),
                    }
                }
            }
            (serde_json::Value::Array(a), serde_json::Value::Array(b)) => {
                for (i, (v, w)) in a.iter().zip(b).enumerate() {
                    missing(v, w, &format!("{at}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
    let mut lost = Vec::new();
    missing(&shown, &back, "", &mut lost);
    assert!(lost.is_empty(), "fields the page shows that a trace does not keep: {lost:?}");
}
