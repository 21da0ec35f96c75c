//! What a finished live run shows: failures (with what arrived before),
//! client vs server timing, stalls, network facts, the concurrency table and
//! the full analysis; and the trace download.

use lab_core::measure::groundtruth::{TimingComparison, compare};
use lab_core::measure::metrics::{MetricsConfig, RequestMetrics, RunMetrics};
use lab_core::measure::stats::Samples;
use lab_core::measure::sweep::{Level, saturation};
use lab_core::trace::Trace;
use leptos::prelude::*;

use crate::browser::files::download_text;
use crate::browser::runner::RunOutput;
use crate::ui::AnalysisPanel;
use crate::ui::format::{ms, opt};

/// Browsers open at most this many HTTP/1.1 connections per host.
pub const HTTP1_CONNECTIONS_PER_HOST: u32 = 6;

/// File name for a trace download.
pub fn trace_file_name(t: &Trace) -> String {
    let label: String = t
        .meta
        .label
        .as_deref()
        .unwrap_or("run")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    let date = t.meta.created_at.as_deref().unwrap_or("").replace([':', '.'], "-");
    format!("latency-lab-{label}-{date}.trace.json")
}

/// The results of one run.
#[component]
pub fn RunResults(output: RunOutput) -> impl IntoView {
    let trace = output.trace.clone();
    let cfg = MetricsConfig::default();
    let per: Vec<RequestMetrics> =
        trace.requests.iter().enumerate().map(|(i, r)| RequestMetrics::of(i, r, &cfg)).collect();
    let download = {
        let t = trace.clone();
        move |_| {
            let _ = download_text(&trace_file_name(&t), "application/json", &t.to_json());
        }
    };
    let failures = trace
        .requests
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.failure.clone().map(|f| (i, f, r.chunks.len())))
        .map(|(i, f, kept)| {
            view! {
                <li data-testid="failure">
                    <b>{format!("Request {}: ", i + 1)}</b>
                    <span data-testid="failure-message">{f.message.clone()}</span>
                    {(kept > 0).then(|| view! { <span class="kept">{format!(" ({kept} chunk(s) received before it are kept in the trace.)")}</span> })}
                    {f.body.clone().map(|b| view! { <details><summary>"Server response body"</summary><pre class="body" data-testid="failure-body">{b}</pre></details> })}
                </li>
            }
        })
        .collect_view();
    let any_failed = trace.requests.iter().any(|r| r.failure.is_some());
    let comparisons: Vec<(usize, TimingComparison)> =
        trace.requests.iter().enumerate().filter_map(|(i, r)| compare(r).map(|c| (i, c))).collect();
    let stalls: Vec<_> = per
        .iter()
        .flat_map(|m| m.stalls.iter().map(move |s| (m.index, *s)))
        .take(50)
        .map(|(i, s)| {
            view! {
                <li>{format!("Request {}: paused {:.0} ms after {} token(s), {:.0} ms into the response", i + 1, s.duration_ms, s.after_tokens, s.start_ms)}</li>
            }
        })
        .collect_view();
    let stall_count: usize = per.iter().map(|m| m.stalls.len()).sum();
    let concurrency = trace.meta.concurrency.unwrap_or(1);
    let protocols: Vec<String> = {
        let mut p: Vec<String> =
            trace.requests.iter().filter_map(|r| r.network.as_ref()?.protocol.clone()).collect();
        p.sort();
        p.dedup();
        p
    };
    let queued = Samples::from_finite(trace.requests.iter().filter_map(|r| r.network.as_ref()?.queued_ms()));
    let http1_limited = concurrency > HTTP1_CONNECTIONS_PER_HOST && protocols.iter().any(|p| p == "http/1.1");
    let levels: Vec<Level> =
        output.levels.iter().map(|(c, t)| Level::of(*c, &RunMetrics::of(t, &cfg))).collect();
    let knee = saturation(&levels);
    let name = trace.meta.label.clone().unwrap_or_else(|| "Live run".into());
    view! {
        <section class="run-results" data-testid="run-results">
            <div class="actions">
                <button type="button" data-testid="download-trace" on:click=download>"Download trace (JSON)"</button>
            </div>
            {any_failed.then(|| view! {
                <section class="failures" role="alert">
                    <h4>"What went wrong"</h4>
                    <ul>{failures}</ul>
                </section>
            })}
            {(!comparisons.is_empty()).then(|| view! { <Comparisons rows=comparisons.clone()/> })}
            <section>
                <h4>{format!("Stalls (gaps over {:.0} ms): {stall_count}", cfg.stall_threshold_ms)}</h4>
                <ul class="stalls" data-testid="stall-list">{stalls}</ul>
            </section>
            {(!protocols.is_empty()).then(|| view! {
                <p class="network" data-testid="network">
                    {format!("Protocol: {}. ", protocols.join(", "))}
                    {queued.summary().map(|q| format!("Time queued in the browser before sending: median {:.1} ms, max {:.1} ms.", q.median, q.max))}
                </p>
            })}
            {http1_limited.then(|| view! {
                <p class="warn" data-testid="http1-warning">
                    {format!(
                        "This endpoint speaks HTTP/1.1, and browsers open at most {HTTP1_CONNECTIONS_PER_HOST} connections per host: with {concurrency} requests at once, the rest waited in the browser for a free connection, and that wait is part of their measured TTFT. Use an HTTP/2 (HTTPS) endpoint, or a command-line load tool, to measure higher concurrency."
                    )}
                </p>
            })}
            {(levels.len() > 1).then(|| view! { <SweepTable levels=levels.clone() knee=knee.clone()/> })}
            <AnalysisPanel name=name trace=trace.clone()/>
        </section>
    }
}

#[component]
fn Comparisons(rows: Vec<(usize, TimingComparison)>) -> impl IntoView {
    let med = |f: fn(&TimingComparison) -> Option<f64>| {
        Samples::from_finite(rows.iter().filter_map(|(_, c)| f(c))).summary().map(|s| s.median)
    };
    let ttft_delta = med(|c| Some(c.ttft_delta_ms));
    let itl_delta = med(|c| c.itl_median_delta_ms);
    view! {
        <section class="comparison" data-testid="comparison">
            <h4>"Client vs server timing"</h4>
            <p class="hint">
                "The replay endpoint recorded when it sent each chunk. The difference is what the network, the browser and "
                "the parser added on the way to this page."
            </p>
            <p>
                "Median TTFT difference: " <b data-testid="ttft-delta">{opt(ttft_delta, ms)}</b> " ms; "
                "median ITL difference: " <b data-testid="itl-delta">{opt(itl_delta, ms)}</b> " ms."
            </p>
            <div class="table-scroll" tabindex="0">
                <table class="metrics">
                    <thead>
                        <tr>
                            <th scope="col">"request"</th>
                            <th scope="col">"TTFT client"</th>
                            <th scope="col">"TTFT server"</th>
                            <th scope="col">"ITL median client"</th>
                            <th scope="col">"ITL median server"</th>
                            <th scope="col">"max delivery delay"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {rows.iter().take(32).map(|(i, c)| view! {
                            <tr data-testid="comparison-row">
                                <th scope="row">{i + 1}</th>
                                <td data-testid="cmp-ttft-client">{ms(c.ttft_client_ms)}</td>
                                <td data-testid="cmp-ttft-server">{ms(c.ttft_server_ms)}</td>
                                <td data-testid="cmp-itl-client">{opt(c.itl_median_client_ms, ms)}</td>
                                <td data-testid="cmp-itl-server">{opt(c.itl_median_server_ms, ms)}</td>
                                <td>{opt(c.delivery_delay_ms.map(|d| d.max), ms)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}

#[component]
fn SweepTable(levels: Vec<Level>, knee: Option<lab_core::measure::sweep::Saturation>) -> impl IntoView {
    let knee_c = knee.as_ref().map(|k| k.concurrency);
    let chart_levels = levels.clone();
    view! {
        <section class="sweep" data-testid="sweep">
            <h4>"Latency under load"</h4>
            <div class="table-scroll" tabindex="0">
                <table class="metrics">
                    <thead>
                        <tr>
                            <th scope="col">"concurrency"</th>
                            <th scope="col">"TTFT P50"</th>
                            <th scope="col">"TTFT P95"</th>
                            <th scope="col">"TPOT P50"</th>
                            <th scope="col">"TPOT P95"</th>
                            <th scope="col">"user tokens/s"</th>
                            <th scope="col">"system tokens/s"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {levels.into_iter().map(|l| view! {
                            <tr data-testid="sweep-row" class:knee=knee_c == Some(l.concurrency)>
                                <th scope="row">{l.concurrency}</th>
                                <td>{opt(l.ttft_ms.map(|s| s.p50), ms)}</td>
                                <td>{opt(l.ttft_ms.map(|s| s.p95), ms)}</td>
                                <td>{opt(l.tpot_ms.map(|s| s.p50), ms)}</td>
                                <td>{opt(l.tpot_ms.map(|s| s.p95), ms)}</td>
                                <td>{opt(l.user_tokens_per_s, |v| format!("{v:.1}"))}</td>
                                <td>{opt(l.system_tokens_per_s, |v| format!("{v:.1}"))}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <crate::ui::charts::ConcurrencyChart levels=chart_levels knee=knee_c/>
            <p data-testid="saturation">
                {match knee {
                    Some(k) => k.explanation,
                    None => "No saturation point in this range: throughput grew with concurrency without a large latency cost.".to_string(),
                }}
            </p>
        </section>
    }
}
