//! "Import results": benchmark result files of vLLM, guidellm, AIPerf,
//! GenAI-Perf and LLMPerf (or lab traces), read in the import worker
//! ([`crate::browser::importer`]), shown as runs with the tool's own figures
//! beside the lab's, replayable request by request, and compared; field
//! data files (OpenTelemetry GenAI spans: OTLP/JSON, Jaeger, Tempo; a
//! period read from this server's collector shows in the Field view,
//! [`crate::ui::field`]); and workload files (Mooncake, Bailian, Azure,
//! BurstGPT, ShareGPT), summarised.

mod compare;
mod replay_picker;
mod run_card;
mod tool_figures;
mod workload_card;

use leptos::prelude::*;

use crate::browser::files;
use crate::browser::importer::{FileStatus, Importer};
use crate::browser::library::Library;
use crate::browser::use_field_collector::is_collector_file;
use crate::browser::use_file_drop::use_file_drop;
use crate::ui::format::size;
pub use compare::CompareRuns;
use run_card::ImportedRunCard;
use workload_card::WorkloadCard;

/// The import view.
#[component]
pub fn ImportView() -> impl IntoView {
    let importer = expect_context::<Importer>();
    let take = keep_and_import();
    let zone = NodeRef::new();
    use_file_drop(zone, take);
    let files =
        move || importer.runs.get().into_iter().filter(|r| !is_collector_file(&r.file)).collect::<Vec<_>>();
    view! {
        <section class="panel" data-testid="import-view">
            <h2>"Import benchmark results"</h2>
            <p class="hint">
                "Drop the files your benchmark tools wrote, as they are: "
                <code>"vllm bench serve --save-result --save-detailed"</code>" JSON, guidellm "
                <code>"benchmarks.json"</code>", AIPerf "<code>"profile_export.jsonl"</code>
                " (with "<code>"profile_export_aiperf.json"</code>" to compare its figures), GenAI-Perf "
                <code>"profile_export.json"</code>", LLMPerf "<code>"*_individual_responses.json"</code>
                " (with its "<code>"_summary.json"</code>"), OpenTelemetry GenAI spans (OTLP/JSON, Jaeger, Tempo), or Latency Lab traces. "
                "The format is recognised from the content. Files are read in a background worker "
                "and never leave this browser. What this server's field collector holds is in the "
                <a href="#field" data-testid="import-to-field">"Field data"</a>" view."
            </p>
            <label class="dropzone" node_ref=zone>
                <input type="file" multiple accept=".json,.jsonl,application/json" data-testid="import-input"
                    on:change=move |ev| take.run(files::take_chosen(&ev))/>
                <span>"Drop result files here (several at once is fine), or click to choose."</span>
            </label>
            <SloForm/>
            <FileJobs keep=|name| !is_collector_file(name)/>
            <div class="imported-runs">
                {move || importer.workloads.get().into_iter().map(|w| view! { <WorkloadCard workload=w/> }).collect_view()}
            </div>
            <Show when=move || !files().is_empty() fallback=move || view! {
                <p class="empty" data-testid="import-empty" hidden=move || !importer.workloads.with(Vec::is_empty)>
                    "No results imported yet. Try the files in tests/fixtures/import of the repository, "
                    "or your own. A benchmark number becomes something you can feel: each run offers its "
                    "typical and its worst request to replay."
                </p>
            }>
                <CompareRuns/>
                <RunCards keep=|name| !is_collector_file(name)/>
            </Show>
        </section>
    }
}

/// What takes the files chosen for the importer: each is kept in the
/// library, as given, to open again later, and imported.
pub fn keep_and_import() -> Callback<Vec<web_sys::File>> {
    let importer = expect_context::<Importer>();
    let lib = expect_context::<Library>();
    Callback::new(move |chosen: Vec<web_sys::File>| {
        chosen.iter().for_each(|f| lib.save_file(f));
        importer.import(chosen);
    })
}

/// The cards of the runs read from the files `keep` keeps (by name).
#[component]
pub fn RunCards(keep: fn(&str) -> bool) -> impl IntoView {
    let importer = expect_context::<Importer>();
    let runs = move || importer.runs.get().into_iter().filter(|r| keep(&r.file)).collect::<Vec<_>>();
    view! {
        <div class="imported-runs">
            <For each=runs
                key=|r| (r.key, r.digest.analysis.goodput.as_ref().map(|g| g.slos.clone()), r.digest.comparison.len())
                children=move |r| view! { <ImportedRunCard run=r/> }/>
        </div>
    }
}

/// The SLOs goodput is counted against (the importer's, for every run),
/// and what keeps the importer from working.
#[component]
pub fn SloForm() -> impl IntoView {
    let importer = expect_context::<Importer>();
    let slo_draft = RwSignal::new(importer.slos.get_untracked());
    view! {
        <form class="slo-form" on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); importer.apply_slos(&slo_draft.get_untracked()); }>
            <label>"SLOs for goodput "
                <input type="text" data-testid="import-slos" prop:value=move || slo_draft.get()
                    on:input=move |ev| slo_draft.set(event_target_value(&ev)) placeholder="ttft:200,tpot:15,e2el:3000"/>
            </label>
            <button type="submit" class="secondary" data-testid="import-slos-apply">"Apply"</button>
        </form>
        {move || importer.notice.get().map(|m| view! { <p class="error" role="alert" data-testid="import-notice">{m}</p> })}
        {move || importer.unloaded.get().map(|e| view! {
            <p class="error" role="alert" data-testid="import-unloaded">{e.to_string()}" "
                <button type="button" class="secondary" data-testid="import-retry" on:click=move |_| importer.retry()>"Retry"</button>
            </p>
        })}
    }
}

/// The files given to the importer that `keep` keeps (by name), newest
/// first, with their progress.
#[component]
pub fn FileJobs(keep: fn(&str) -> bool) -> impl IntoView {
    let importer = expect_context::<Importer>();
    view! {
        <ul class="file-jobs" aria-live="polite">
            {move || importer.files.get().into_iter().rev().filter(|f| keep(&f.name)).map(|f| {
                let (text, class, fraction) = match &f.status {
                    FileStatus::Working(phase, x) => (format!("{phase}…"), "working", Some(*x)),
                    FileStatus::Done(n, took) => (format!("{n} run{} · read and summarized in {:.2} s", if *n == 1 { "" } else { "s" }, took / 1000.0), "done", None),
                    FileStatus::Summarized(n, took, memory) => (format!("workload of {n} requests · read in {:.2} s, worker memory {}", took / 1000.0, size(*memory)), "done", None),
                    FileStatus::Waiting(m) => (m.clone(), "waiting", None),
                    FileStatus::Failed(m) => (m.clone(), "failed", None),
                };
                view! {
                    <li class=format!("file-job {class}") data-testid="import-file" data-status=class>
                        <span class="file-name">{f.name.clone()}</span>
                        <span class="file-size">{size(f.size)}</span>
                        {fraction.map(|x| view! { <progress max="1" value=x.to_string() aria-label=format!("reading {}", f.name) data-testid="import-progress"></progress> })}
                        {if class == "failed" {
                            view! { <span class="error" role="alert" data-testid="import-error">{text}</span> }.into_any()
                        } else {
                            view! { <span class="file-status">{text}</span> }.into_any()
                        }}
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
