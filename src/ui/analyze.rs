//! "Analyze a trace": load a trace file (picker or drop) and show its
//! analysis ([`crate::browser::use_trace_file`]).

use leptos::prelude::*;

use super::AnalysisPanel;
use crate::browser::files;
use crate::browser::use_file_drop::use_file_drop;
use crate::browser::use_trace_file::use_trace_file;

/// The trace analyzer view.
#[component]
pub fn AnalyzeView() -> impl IntoView {
    let file = use_trace_file();
    let zone = NodeRef::new();
    use_file_drop(zone, Callback::new(move |chosen| file.open(chosen)));
    view! {
        <section class="panel" data-testid="analyze-view">
            <h2>"Analyze a trace"</h2>
            <p class="hint">
                "Load a Latency Lab trace (JSON, one or many requests) to see TTFT, TPOT, ITL and "
                "E2EL percentiles, goodput under your SLOs, and a score per use case. "
                "The command line gives the same figures: "
                <code>"latency-lab analyze FILE --json"</code>
            </p>
            <label class="dropzone" node_ref=zone>
                <input type="file" accept=".json,application/json" data-testid="trace-input"
                    on:change=move |ev| file.open(files::take_chosen(&ev))/>
                <span>"Drop a trace file here, or click to choose one."</span>
            </label>
            <Show when=move || file.busy.get()>
                <p class="status" data-testid="loading">"Reading…"</p>
            </Show>
            <Show when=move || file.error.get().is_some()>
                <p class="error" role="alert" data-testid="load-error">{move || file.error.get().unwrap_or_default()}</p>
            </Show>
            {move || match file.loaded.get() {
                Some((name, run)) => view! { <AnalysisPanel name=name run=run/> }.into_any(),
                None => view! {
                    <p class="empty" data-testid="analyze-empty">
                        "No trace loaded yet. Traces come from the lab's runs, or from "
                        <code>"latency-lab"</code>
                        " tools; the format is documented in the docs (/docs/reference/trace-format.html)."
                    </p>
                }
                .into_any(),
            }}
        </section>
    }
}
