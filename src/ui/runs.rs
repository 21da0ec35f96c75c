//! The session's run list: every finished live run, kept while the tab is
//! open, each downloadable as a trace and viewable again.

use lab_core::metrics::{MetricsConfig, RunMetrics};
use leptos::prelude::*;

use crate::browser::files::download_text;
use crate::browser::runner::RunOutput;
use crate::ui::format::{ms, opt};
use crate::ui::live::{RunResults, trace_file_name};

/// A run kept in the session.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedRun {
    /// Position in the session (1-based).
    pub id: usize,
    /// The run.
    pub output: RunOutput,
}

/// The session's runs (provided as context by the app).
#[derive(Clone, Copy)]
pub struct RunLog {
    /// Runs, oldest first.
    pub runs: RwSignal<Vec<SavedRun>>,
    /// The run shown in the list view.
    pub selected: RwSignal<Option<usize>>,
}

impl RunLog {
    /// An empty log.
    pub fn new() -> Self {
        Self { runs: RwSignal::new(Vec::new()), selected: RwSignal::new(None) }
    }

    /// Keeps a finished run.
    pub fn add(&self, output: RunOutput) {
        self.runs.update(|r| {
            let id = r.len() + 1;
            r.push(SavedRun { id, output });
        });
    }
}

impl Default for RunLog {
    fn default() -> Self {
        Self::new()
    }
}

/// The run list view.
#[component]
pub fn RunList() -> impl IntoView {
    let log = expect_context::<RunLog>();
    view! {
        <section class="panel" data-testid="runs-view">
            <h2>"Runs of this session"</h2>
            <Show
                when=move || !log.runs.with(Vec::is_empty)
                fallback=|| view! {
                    <p class="empty" data-testid="runs-empty">
                        "No runs yet. Every live run lands here when it finishes; download it as a trace to keep it, "
                        "or to analyze it with latency-lab analyze."
                    </p>
                }
            >
                <div class="table-scroll">
                    <table class="metrics" data-testid="runs-table">
                        <thead>
                            <tr>
                                <th scope="col">"#"</th>
                                <th scope="col">"label"</th>
                                <th scope="col">"requests"</th>
                                <th scope="col">"failed"</th>
                                <th scope="col">"TTFT P50"</th>
                                <th scope="col">"E2EL P50"</th>
                                <th scope="col">""</th>
                            </tr>
                        </thead>
                        <tbody>
                            {move || log.runs.get().into_iter().rev().map(|run| {
                                let m = RunMetrics::of(&run.output.trace, &MetricsConfig::default());
                                let t = run.output.trace.clone();
                                let id = run.id;
                                view! {
                                    <tr data-testid="run-row">
                                        <th scope="row">{id}</th>
                                        <td>{t.meta.label.clone().unwrap_or_default()}</td>
                                        <td>{m.requests}</td>
                                        <td>{m.failed}</td>
                                        <td>{opt(m.ttft_ms.map(|s| s.p50), ms)}</td>
                                        <td>{opt(m.e2el_ms.map(|s| s.p50), ms)}</td>
                                        <td class="row-actions">
                                            <button type="button" class="secondary" on:click=move |_| log.selected.set(Some(id))>"Show"</button>
                                            <button type="button" class="secondary" on:click=move |_| {
                                                let _ = download_text(&trace_file_name(&t), "application/json", &t.to_json());
                                            }>"Download"</button>
                                        </td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
                {move || {
                    let id = log.selected.get()?;
                    let run = log.runs.with(|r| r.iter().find(|s| s.id == id).cloned())?;
                    Some(view! { <h3>{format!("Run {id}")}</h3><RunResults output=run.output/> })
                }}
            </Show>
        </section>
    }
}
