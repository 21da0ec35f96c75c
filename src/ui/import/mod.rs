//! "Import results": benchmark result files of vLLM, guidellm, AIPerf,
//! GenAI-Perf and LLMPerf (or lab traces), read in the import worker, shown
//! as runs with the tool's own figures beside the lab's, replayable request
//! by request, and compared side by side.

mod compare;
mod run_card;

use leptos::prelude::*;

use crate::browser::importer::{FileStatus, Importer};
use compare::CompareRuns;
use run_card::ImportedRunCard;

fn size(bytes: f64) -> String {
    match bytes {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.0} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}

/// The import view.
#[component]
pub fn ImportView() -> impl IntoView {
    let importer = expect_context::<Importer>();
    let lib = expect_context::<crate::browser::library::Library>();
    let take = move |files: Option<web_sys::FileList>| {
        let Some(list) = files else { return };
        for i in 0..list.length() {
            if let Some(f) = list.get(i) {
                // Kept in the library, as imported, to open again later.
                lib.save_file(&f);
                importer.import(f);
            }
        }
    };
    let on_change = move |ev: web_sys::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        take(input.files());
        input.set_value("");
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        take(ev.data_transfer().and_then(|d| d.files()));
    };
    let slo_draft = RwSignal::new(importer.slos.get_untracked());
    let apply_slos = move || {
        let text = slo_draft.get_untracked().trim().to_string();
        // Empty means no SLOs (no goodput); anything else must parse.
        match (text.is_empty(), text.parse::<lab_core::measure::slo::SloSet>()) {
            (false, Err(e)) => importer.notice.set(Some(format!("SLOs: {e}"))),
            _ => {
                importer.notice.set(None);
                importer.slos.set(text);
                importer.reanalyze();
            }
        }
    };
    view! {
        <section class="panel" data-testid="import-view">
            <h2>"Import benchmark results"</h2>
            <p class="hint">
                "Drop the files your benchmark tools wrote, as they are: "
                <code>"vllm bench serve --save-result --save-detailed"</code>" JSON, guidellm "
                <code>"benchmarks.json"</code>", AIPerf "<code>"profile_export.jsonl"</code>
                " (with "<code>"profile_export_aiperf.json"</code>" to compare its figures), GenAI-Perf "
                <code>"profile_export.json"</code>", LLMPerf "<code>"*_individual_responses.json"</code>
                " (with its "<code>"_summary.json"</code>"), or Latency Lab traces. "
                "The format is recognised from the content. Files are read in a background worker "
                "and never leave this browser."
            </p>
            <label
                class="dropzone"
                on:dragover=|ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=on_drop
            >
                <input
                    type="file"
                    multiple
                    accept=".json,.jsonl,application/json"
                    data-testid="import-input"
                    on:change=on_change
                />
                <span>"Drop result files here (several at once is fine), or click to choose."</span>
            </label>
            <form class="slo-form" on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); apply_slos(); }>
                <label>
                    "SLOs for goodput "
                    <input
                        type="text"
                        data-testid="import-slos"
                        prop:value=move || slo_draft.get()
                        on:input=move |ev| slo_draft.set(event_target_value(&ev))
                        placeholder="ttft:200,tpot:15,e2el:3000"
                    />
                </label>
                <button type="submit" class="secondary" data-testid="import-slos-apply">"Apply"</button>
            </form>
            {move || importer.notice.get().map(|m| view! { <p class="error" role="alert" data-testid="import-notice">{m}</p> })}
            <ul class="file-jobs" aria-live="polite">
                {move || importer.files.get().into_iter().rev().map(|f| {
                    let (text, class, fraction) = match &f.status {
                        FileStatus::Working(phase, x) => (format!("{phase}…"), "working", Some(*x)),
                        FileStatus::Done(n, took) => (
                            format!("{n} run{} · read and summarized in {:.2} s", if *n == 1 { "" } else { "s" }, took / 1000.0),
                            "done",
                            None,
                        ),
                        FileStatus::Waiting(m) => (m.clone(), "waiting", None),
                        FileStatus::Failed(m) => (m.clone(), "failed", None),
                    };
                    let failed = matches!(f.status, FileStatus::Failed(_));
                    view! {
                        <li class=format!("file-job {class}") data-testid="import-file" data-status=class>
                            <span class="file-name">{f.name.clone()}</span>
                            <span class="file-size">{size(f.size)}</span>
                            {fraction.map(|x| view! {
                                <progress max="1" value=x.to_string() aria-label=format!("reading {}", f.name) data-testid="import-progress"></progress>
                            })}
                            {if failed {
                                view! { <span class="error" role="alert" data-testid="import-error">{text}</span> }.into_any()
                            } else {
                                view! { <span class="file-status">{text}</span> }.into_any()
                            }}
                        </li>
                    }
                }).collect_view()}
            </ul>
            <Show
                when=move || !importer.runs.with(Vec::is_empty)
                fallback=|| view! {
                    <p class="empty" data-testid="import-empty">
                        "No results imported yet. Try the files in tests/fixtures/import of the repository, "
                        "or your own. A benchmark number becomes something you can feel: each run offers its "
                        "typical and its worst request to replay."
                    </p>
                }
            >
                <CompareRuns/>
                <div class="imported-runs">
                    <For
                        each=move || importer.runs.get()
                        key=|r| (r.key, r.digest.analysis.goodput.as_ref().map(|g| g.slos.clone()), r.digest.comparison.len())
                        children=move |r| view! { <ImportedRunCard run=r/> }
                    />
                </div>
            </Show>
        </section>
    }
}
