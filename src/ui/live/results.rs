//! What a finished live run shows: failures (with what arrived before),
//! client vs server timing, stalls, network facts, the load curve and the
//! full analysis; and the trace download. Everything was measured once,
//! when the run ended (`lab_core::measure::run`).

use lab_core::measure::run::{HTTP1_CONNECTIONS_PER_HOST, MeasuredRun};
use leptos::prelude::*;

use super::compare_results::CompareResults;
use super::comparisons::Comparisons;
use super::probe::ProbeResults;
use super::sweep::SweepTable;
use crate::browser::files::download_text;
use crate::ui::AnalysisPanel;

/// Stalls listed at most.
pub const MAX_STALLS_LISTED: usize = 50;

/// Live's last finished run's results, as the runs module shows them under
/// the Live view ([`crate::browser::use_finished_run`]).
#[component]
pub fn FinishedRunResults() -> impl IntoView {
    use crate::browser::use_finished_run::{Finished, use_finished_run};
    let finished = use_finished_run(expect_context::<crate::browser::library::Library>());
    let unsaved = move || {
        finished.unsaved.get().map(|e| {
            view! {
                <p class="error" role="alert" data-testid="run-unsaved">
                    {format!("This run is not in the library ({e}): download its trace below to keep it.")}
                </p>
            }
        })
    };
    let run = move || {
        finished.run.get().map(|out| match out {
            Finished::Run(run) => view! { <RunResults run=*run/> }.into_any(),
            Finished::Compare(table, traces) => {
                view! { <CompareResults table=table traces=traces/> }.into_any()
            }
            Finished::Failed(why) => view! {
                <p class="error" role="alert" data-testid="run-handover-failed">
                    {format!("The run's results cannot be shown here: {why}. Live kept the run: it is among this session's runs in the Replay view.")}
                </p>
            }
            .into_any(),
        })
    };
    view! { {unsaved} {run} }
}

/// The results of one run.
#[component]
pub fn RunResults(run: MeasuredRun) -> impl IntoView {
    let trace = run.trace.clone();
    let download = move |_| {
        let _ = download_text(&trace.file_name(".trace.json"), "application/json", &trace.to_json());
    };
    let per = &run.analysis.metrics.per_request;
    let stalls: Vec<String> = per
        .iter()
        .flat_map(|m| m.stalls.iter().map(move |s| (m.index, *s)))
        .take(MAX_STALLS_LISTED)
        .map(|(i, s)| {
            format!(
                "Request {}: paused {:.0} ms after {} token(s), {:.0} ms into the response",
                i + 1,
                s.duration_ms,
                s.after_tokens,
                s.start_ms
            )
        })
        .collect();
    let stall_count: usize = per.iter().map(|m| m.stalls.len()).sum();
    let net = run.network.clone();
    let concurrency = run.network.peak_in_flight;
    view! {
        <section class="run-results" data-testid="run-results">
            <div class="actions">
                <button type="button" data-testid="download-trace" on:click=download>"Download trace (JSON)"</button>
            </div>
            <Failures run=run.clone()/>
            <StreamNotes run=run.clone()/>
            // A probe run's verdict first: the client-vs-server table of its
            // probes below it (issue 44: it sat under a 30-row table).
            {(!run.trace.meta.load.is_empty()).then(|| view! { <ProbeResults trace=run.trace.clone() config=run.config/> })}
            {(!run.comparisons.is_empty()).then(|| view! { <Comparisons rows=run.comparisons.clone()/> })}
            <section>
                <h4>{format!("Stalls (gaps over {:.0} ms): {stall_count}", run.config.stall_threshold_ms)}</h4>
                <ul class="stalls" data-testid="stall-list">{stalls.into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}</ul>
            </section>
            {(!net.protocols.is_empty()).then(|| view! {
                <p class="network" data-testid="network">
                    {format!("Protocol: {}. ", net.protocols.join(", "))}
                    {net.queued_ms.map(|q| format!("Time queued in the browser before sending: median {:.1} ms, max {:.1} ms.", q.median, q.max))}
                </p>
            })}
            {net.http1_limited.then(|| view! {
                <p class="warn" data-testid="http1-warning">
                    {format!(
                        "This endpoint speaks HTTP/1.1, and browsers open at most {HTTP1_CONNECTIONS_PER_HOST} connections per host: with {concurrency} requests at once, the rest waited in the browser for a free connection, and that wait is part of their measured TTFT. Use an HTTP/2 (HTTPS) endpoint, or a command-line load tool, to measure higher concurrency."
                    )}
                </p>
            })}
            {(run.levels.len() > 1).then(|| view! { <SweepTable levels=run.levels.clone() knee=run.saturation.clone()/> })}
            <AnalysisPanel name=run.trace.meta.label.clone().unwrap_or_else(|| "Live run".into()) run=run/>
        </section>
    }
}

/// What went wrong, request by request, with what arrived before.
#[component]
fn Failures(run: MeasuredRun) -> impl IntoView {
    let failed: Vec<_> = run
        .trace
        .requests
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.failure.clone().map(|f| (i, f, r.chunks.len())))
        .collect();
    (!failed.is_empty()).then(|| view! {
        <section class="failures" role="alert">
            <h4>"What went wrong"</h4>
            <ul>
                {failed.into_iter().map(|(i, f, kept)| view! {
                    <li data-testid="failure">
                        <b>{format!("Request {}: ", i + 1)}</b>
                        <span data-testid="failure-message">{f.message}</span>
                        {(kept > 0).then(|| view! { <span class="kept">{format!(" ({kept} chunk(s) received before it are kept in the trace.)")}</span> })}
                        {f.body.map(|b| view! { <details><summary>"Server response body"</summary><pre class="body" data-testid="failure-body">{b}</pre></details> })}
                    </li>
                }).collect_view()}
            </ul>
        </section>
    })
}

/// What had to be repaired to read the streams (kept text, said aloud).
#[component]
fn StreamNotes(run: MeasuredRun) -> impl IntoView {
    let notes: Vec<String> = run
        .trace
        .requests
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.notes.iter().map(move |n| format!("Request {}, {n}.", i + 1)))
        .collect();
    (!notes.is_empty()).then(|| {
        view! {
            <section class="warn" data-testid="stream-notes">
                <h4>"Repaired while reading the stream (the text is kept)"</h4>
                <ul>{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            </section>
        }
    })
}
