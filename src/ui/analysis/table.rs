//! The run's facts and its metrics table (mean, median, std and
//! percentiles of every latency row of `lab_core::measure::registry`).

use lab_core::measure::analysis::Analysis;
use lab_core::measure::registry::{LATENCY, LatencyRow};
use lab_core::measure::stats::Summary;
use leptos::prelude::*;

use crate::ui::format::{ms, opt};

/// Table columns: test id / header, accessor.
type Column = (&'static str, fn(&Summary) -> f64);

/// The columns, in order.
pub const COLUMNS: [Column; 7] = [
    ("mean", |s| s.mean),
    ("median", |s| s.median),
    ("std", |s| s.std),
    ("p50", |s| s.p50),
    ("p90", |s| s.p90),
    ("p95", |s| s.p95),
    ("p99", |s| s.p99),
];

/// Requests, completions, failures, tokens, throughput, stalls.
#[component]
pub fn Facts(analysis: Signal<Analysis>) -> impl IntoView {
    let m = move || analysis.with(|a| a.metrics.clone());
    view! {
        <ul class="facts">
            <li>"Requests " <b data-testid="requests">{move || m().requests}</b></li>
            <li>"Completed " <b data-testid="completed">{move || m().completed}</b></li>
            <li>"Failed " <b data-testid="failed">{move || m().failed}</b></li>
            <li>"Output tokens " <b data-testid="output-tokens">{move || m().output_tokens}</b></li>
            <li>"System tokens/s " <b data-testid="output-tokens-per-s">{move || opt(m().output_tokens_per_s, |v| format!("{v:.2}"))}</b></li>
            <li>"Stalls (>" {move || format!("{:.0}", m().stalls.threshold_ms)} " ms) " <b data-testid="stalls">{move || m().stalls.count}</b></li>
        </ul>
    }
}

/// Latency per request, in milliseconds.
#[component]
pub fn MetricsTable(analysis: Signal<Analysis>) -> impl IntoView {
    view! {
        <div class="table-scroll" tabindex="0">
            <table class="metrics" data-testid="metrics-table">
                <caption>"Latency per request, in milliseconds"</caption>
                <thead>
                    <tr>
                        <th scope="col">"metric"</th>
                        {COLUMNS.iter().map(|(c, _)| view! { <th scope="col">{*c}</th> }).collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {LATENCY.iter().map(|r| view! {
                        <Show when=move || analysis.with(|a| r.shown_for(&a.metrics))>{row(r, analysis)}</Show>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// One metric's row (`lab_core::measure::registry`).
fn row(r: &'static LatencyRow, analysis: Signal<Analysis>) -> impl IntoView {
    let (id, get) = (r.id, r.get);
    view! {
        <tr data-metric=id>
            <th scope="row" title=r.what>{r.label}</th>
            {COLUMNS.iter().map(|&(col, pick)| view! {
                <td data-testid=format!("metric-{id}-{col}")>
                    {move || analysis.with(|a| opt(get(&a.metrics).map(|s| pick(&s)), ms))}
                </td>
            }).collect_view()}
        </tr>
    }
}
