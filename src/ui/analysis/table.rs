//! The run's facts and its metrics table (mean, median, std and
//! percentiles of every latency metric).

use lab_core::measure::analysis::Analysis;
use lab_core::measure::metrics::RunMetrics;
use lab_core::measure::stats::Summary;
use leptos::prelude::*;

use crate::ui::format::{ms, opt};

/// Metrics table rows: test id, label, accessor.
type Row = (&'static str, &'static str, fn(&RunMetrics) -> Option<Summary>);

/// The rows, in order.
pub const ROWS: [Row; 8] = [
    ("ttfb", "TTFB (headers)", |m| m.ttfb_ms),
    ("ttft", "TTFT (first token)", |m| m.ttft_ms),
    ("ttfp", "First paint", |m| m.ttfp_ms),
    ("tpot", "TPOT", |m| m.tpot_ms),
    ("itl", "ITL", |m| m.itl_ms),
    ("itl_per_token", "ITL per token", |m| m.itl_per_token_ms),
    ("e2el", "E2EL", |m| m.e2el_ms),
    ("paint_lag", "Paint lag", |m| m.paint_lag_ms),
];

/// Rows shown only when the run called tools (agents).
pub const TOOL_ROWS: [Row; 2] = [
    ("first_tool_call", "Time to first tool call", |m| m.time_to_first_tool_call_ms),
    ("tool_calls_complete", "Tool calls complete", |m| m.tool_calls_complete_ms),
];

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
                    {ROWS.iter().map(|&r| row(r, analysis)).collect_view()}
                    {TOOL_ROWS.iter().map(|&r| view! {
                        <Show when=move || analysis.with(|a| (r.2)(&a.metrics).is_some())>{row(r, analysis)}</Show>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// One metric's row.
fn row((id, label, get): Row, analysis: Signal<Analysis>) -> impl IntoView {
    view! {
        <tr>
            <th scope="row">{label}</th>
            {COLUMNS.iter().map(|&(col, pick)| view! {
                <td data-testid=format!("metric-{id}-{col}")>
                    {move || analysis.with(|a| opt(get(&a.metrics).map(|s| pick(&s)), ms))}
                </td>
            }).collect_view()}
        </tr>
    }
}
