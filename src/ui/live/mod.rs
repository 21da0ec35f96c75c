//! Live mode: stream from an OpenAI-compatible endpoint and watch what a
//! user would feel, measured in this browser.

mod form;
mod results;
mod stats;

use leptos::prelude::*;

pub use form::{EndpointForm, FormState};
pub use results::{RunResults, trace_file_name};
pub use stats::{LiveStatsPanel, Sparkline};

use crate::browser::library::{Library, trace_id};
use crate::browser::runner::{RunMode, RunPhase, RunSpec, Targets, use_live_runner};
use crate::ui::runs::RunLog;

fn mode_of(kind: &str, n: u32, rounds: u32) -> RunMode {
    match kind {
        "repeat" => RunMode::Repeat { n },
        "concurrent" => RunMode::Concurrent { n },
        "sweep" => RunMode::Sweep { max: n, rounds },
        _ => RunMode::Single,
    }
}

/// The live view.
#[component]
pub fn LiveView() -> impl IntoView {
    let form = FormState::load();
    let runner = use_live_runner();
    let log = expect_context::<RunLog>();
    let content = NodeRef::<leptos::html::Pre>::new();
    let reasoning = NodeRef::<leptos::html::Pre>::new();
    let mode_kind = RwSignal::new("single".to_string());
    let n = RwSignal::new(4u32);
    let rounds = RwSignal::new(2u32);
    let label = RwSignal::new(String::new());
    let running = Signal::derive(move || matches!(runner.phase.get(), RunPhase::Running { .. }));
    form.fetch_models();

    let lib = expect_context::<Library>();
    // Saved while it streams (every checkpoint), then once finished, under
    // one id: a tab closed mid-run leaves an "interrupted" entry.
    Effect::new(move |_| {
        if let Some(t) = runner.checkpoint.get() {
            lib.save_trace(trace_id(&t), &t, false);
        }
    });
    Effect::new(move |_| {
        if let Some(out) = runner.result.get() {
            lib.save_trace(trace_id(&out.trace), &out.trace, true);
            log.add(out);
        }
    });

    let start = move |_| {
        let (Some(c), Some(r)) = (content.get_untracked(), reasoning.get_untracked()) else { return };
        let config = form.config.get_untracked();
        let mode =
            mode_of(&mode_kind.get_untracked(), n.get_untracked().max(1), rounds.get_untracked().max(1));
        let label_text = label.get_untracked();
        let spec = RunSpec {
            label: if label_text.trim().is_empty() { config.model.clone() } else { label_text },
            api_key: Some(form.api_key.get_untracked()).filter(|k| !k.is_empty()),
            cors_hint: form.cors_hint(),
            mode,
            config,
        };
        let targets = Targets {
            content: AsRef::<web_sys::Element>::as_ref(&c).clone(),
            reasoning: AsRef::<web_sys::Element>::as_ref(&r).clone(),
        };
        runner.start(spec, targets);
    };
    let status = move || match runner.phase.get() {
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
                <EndpointForm state=form disabled=running/>
                <div class="live-run">
                    <div class="run-controls">
                        <label>
                            "Run "
                            <select
                                data-testid="run-mode"
                                prop:value=move || mode_kind.get()
                                prop:disabled=move || running.get()
                                on:change=move |ev| mode_kind.set(event_target_value(&ev))
                            >
                                <option value="single">"once"</option>
                                <option value="repeat">"N times in a row"</option>
                                <option value="concurrent">"N at once"</option>
                                <option value="sweep">"concurrency sweep 1…N"</option>
                            </select>
                        </label>
                        <Show when=move || mode_kind.get() != "single">
                            <label>
                                "N "
                                <input
                                    type="number"
                                    min="1"
                                    max="256"
                                    data-testid="run-n"
                                    prop:value=move || n.get().to_string()
                                    on:change=move |ev| n.set(event_target_value(&ev).parse().unwrap_or(1))
                                />
                            </label>
                        </Show>
                        <Show when=move || mode_kind.get() == "sweep">
                            <label>
                                "rounds per level "
                                <input
                                    type="number"
                                    min="1"
                                    max="20"
                                    data-testid="run-rounds"
                                    prop:value=move || rounds.get().to_string()
                                    on:change=move |ev| rounds.set(event_target_value(&ev).parse().unwrap_or(1))
                                />
                            </label>
                        </Show>
                        <label>
                            "Label "
                            <input
                                type="text"
                                placeholder="(model name)"
                                data-testid="run-label"
                                prop:value=move || label.get()
                                on:change=move |ev| label.set(event_target_value(&ev))
                            />
                        </label>
                        <button type="button" data-testid="start" prop:disabled=move || running.get() on:click=start>
                            "Start"
                        </button>
                        <button
                            type="button"
                            class="secondary"
                            data-testid="stop"
                            prop:disabled=move || !running.get()
                            on:click=move |_| runner.stop()
                        >
                            "Stop"
                        </button>
                    </div>
                    <p class="status" role="status" data-testid="run-status">{status}</p>
                    {move || runner.error.get().map(|e| view! { <p class="error" role="alert" data-testid="run-error">{e}</p> })}
                    <LiveStatsPanel stats=runner.stats/>
                    <details class="reasoning">
                        <summary>"Reasoning (when the model sends it)"</summary>
                        <pre node_ref=reasoning data-testid="reasoning"></pre>
                    </details>
                    <pre class="output" node_ref=content data-testid="output"></pre>
                </div>
            </div>
            {move || runner.result.get().map(|out| view! { <RunResults output=out/> })}
        </section>
    }
}
