//! "Analyze a trace": load a trace file (picker or drop) and show its
//! analysis. A bad file shows why and keeps whatever was loaded before.

use lab_core::trace::{MAX_TRACE_BYTES, Trace};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::AnalysisPanel;
use crate::browser::files;

/// A loaded trace and the name of its file.
#[derive(Clone)]
struct Loaded {
    name: String,
    trace: Trace,
}

/// The trace analyzer view.
#[component]
pub fn AnalyzeView() -> impl IntoView {
    let loaded = RwSignal::new(None::<Loaded>);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let load = move |file: web_sys::File| {
        busy.set(true);
        spawn_local(async move {
            let name = file.name();
            let result = files::read_text(&file, MAX_TRACE_BYTES as u64)
                .await
                .map_err(|e| e.to_string())
                .and_then(|text| Trace::from_json(&text).map_err(|e| format!("{name}: {e}")));
            match result {
                Ok(trace) => {
                    loaded.set(Some(Loaded { name, trace }));
                    error.set(None);
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let on_change = move |ev: web_sys::Event| {
        if let Some(file) = crate::browser::files::take_chosen(&ev).into_iter().next() {
            load(file);
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        if let Some(file) = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
            load(file);
        }
    };
    view! {
        <section class="panel" data-testid="analyze-view">
            <h2>"Analyze a trace"</h2>
            <p class="hint">
                "Load a Latency Lab trace (JSON, one or many requests) to see TTFT, TPOT, ITL and "
                "E2EL percentiles, goodput under your SLOs, and a score per use case. "
                "The command line gives the same figures: "
                <code>"latency-lab analyze FILE --json"</code>
            </p>
            <label
                class="dropzone"
                on:dragover=|ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=on_drop
            >
                <input
                    type="file"
                    accept=".json,application/json"
                    data-testid="trace-input"
                    on:change=on_change
                />
                <span>"Drop a trace file here, or click to choose one."</span>
            </label>
            <Show when=move || busy.get()>
                <p class="status" data-testid="loading">"Reading…"</p>
            </Show>
            <Show when=move || error.get().is_some()>
                <p class="error" role="alert" data-testid="load-error">
                    {move || error.get().unwrap_or_default()}
                </p>
            </Show>
            {move || match loaded.get() {
                Some(l) => view! { <AnalysisPanel name=l.name trace=l.trace/> }.into_any(),
                None => view! {
                    <p class="empty" data-testid="analyze-empty">
                        "No trace loaded yet. Traces come from the lab's runs, or from "
                        <code>"latency-lab"</code>
                        " tools; the format is documented in the README."
                    </p>
                }
                .into_any(),
            }}
        </section>
    }
}
