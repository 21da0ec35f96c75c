//! Live mode: stream from an OpenAI-compatible endpoint and watch what a
//! user would feel, measured in this browser (the run itself:
//! [`crate::browser::live`]; the endpoint's settings:
//! [`crate::browser::use_endpoint_settings`]).

mod answer_format;
mod compare_results;
mod compare_setup;
mod comparisons;
mod controls;
mod form;
mod probe;
mod results;
mod shape_fields;
mod stats;
mod sweep;

use lab_core::replay::smooth::Smoothing;
use leptos::prelude::*;

use answer_format::AnswerFormat;
pub use compare_setup::CompareEndpoints;
use controls::RunControls;
pub use form::EndpointForm;
pub use results::{FinishedRunResults, RunResults};
pub use stats::{LiveStatsPanel, Sparkline};

use crate::browser::library::Library;
use crate::browser::live::{RunPhase, UseLiveRunOptions, use_live_run};
use crate::browser::use_endpoint_settings::use_endpoint_settings;
use crate::browser::use_module::{LIVE_COMPARE, LIVE_RESULTS};
use crate::browser::use_run_announcer::RunAnnouncer;
use crate::browser::use_session_runs::SessionRuns;
use crate::ui::LazyView;

/// The live view.
#[component]
pub fn LiveView() -> impl IntoView {
    let settings = use_endpoint_settings();
    let (content, reasoning, tools, lanes) = (NodeRef::new(), NodeRef::new(), NodeRef::new(), NodeRef::new());
    let library = expect_context::<Library>();
    let runs = expect_context::<SessionRuns>();
    let (markdown, smoothing) = (RwSignal::new(false), RwSignal::new(Smoothing::Off));
    let run = use_live_run(UseLiveRunOptions {
        content,
        markdown: markdown.into(),
        smoothing: smoothing.into(),
        reasoning,
        tools,
        lanes,
        library,
        runs,
        announcer: expect_context::<RunAnnouncer>(),
    });
    let running = run.running();
    let compare_open = RwSignal::new(false);
    let status = move || match run.phase.get() {
        RunPhase::Idle => "Ready. The built-in replay endpoint needs no LLM: press Start.".to_string(),
        RunPhase::Running { done, total, concurrency } => {
            format!("Streaming… {done} of {total} request(s) done, {concurrency} at once.")
        }
        RunPhase::Finished => "Finished. The run is saved in the library.".to_string(),
        RunPhase::Stopped => "Stopped. What arrived before the stop is kept, marked as aborted.".to_string(),
    };
    view! {
        <section class="panel live" data-testid="live-view">
            <h2>"Live"</h2>
            <p class="hint">
                "Streams a completion straight from this browser and measures what a user feels: "
                "time to first byte, first token and first paint, the rhythm of the tokens, and the total time."
            </p>
            <div class="live-grid">
                <EndpointForm settings=settings disabled=running/>
                <div class="live-run">
                    <RunControls running=running on_start=Callback::new(move |(mode, label): (_, String)| run.start(settings.run_spec(mode, &label))) on_stop=Callback::new(move |()| run.stop())/>
                    <details class="compare-endpoints" data-testid="compare-endpoints" on:toggle=move |ev| compare_open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
                        <summary>"Compare endpoints"</summary>
                        // The set-up is drawn by the runs module, loaded when this opens.
                        <LazyView module=LIVE_COMPARE shown=compare_open.into()/>
                    </details>
                    <p class="status" role="status" data-testid="run-status">{status}</p>
                    {move || run.error.get().map(|e| view! { <p class="error" role="alert" data-testid="run-error">{e}</p> })}
                    <LiveStatsPanel stats=run.stats/>
                    <details class="reasoning">
                        <summary>"Reasoning (when the model sends it)"</summary>
                        <pre node_ref=reasoning data-testid="reasoning"></pre>
                    </details>
                    <AnswerFormat markdown=markdown smoothing=smoothing/>
                    <div class="live-output" node_ref=content data-testid="output"></div>
                    {move || run.cadence.get().map(|c| view! { <p class="hint" data-testid="live-cadence">{c.describe()}</p> })}
                    <div class="tool-calls" node_ref=tools data-testid="tool-calls" role="group" aria-label="Tool calls"></div>
                    // Probes that overlap the one above stream here, each in its own pane.
                    <div class="probe-lanes" node_ref=lanes data-testid="probe-lanes"></div>
                </div>
            </div>
            // The results are drawn by the runs module, loaded once a run has finished.
            <LazyView module=LIVE_RESULTS shown=run.has_results.into()/>
        </section>
    }
}
