//! A period of field data at a glance (`lab_core::field::summary`): its
//! requests over time, and one row per day, browser or model with its
//! requests, failures, and TTFT and first-paint percentiles, each P90 with
//! its 95% interval.

use lab_core::field::summary::{Estimate, FieldSummary as Summary, Percentiles};
use leptos::prelude::*;

use crate::ui::charts::RequestsOverTimeChart;
use crate::ui::format::ms;

fn cell(p: &Option<Percentiles>, pick: fn(&Percentiles) -> Estimate, interval: bool) -> String {
    let Some(p) = p else { return "—".into() };
    let e = pick(p);
    match (interval, e.interval) {
        (true, Some((lo, hi))) => format!("{} ({}–{})", ms(e.value), ms(lo), ms(hi)),
        (true, None) => format!("{} (too few for an interval)", ms(e.value)),
        (false, _) => ms(e.value),
    }
}

/// The summary: chart and table.
#[component]
pub fn FieldSummary(summary: Summary) -> impl IntoView {
    view! {
        <RequestsOverTimeChart timeline=summary.timeline.clone()/>
        <FieldTable summary=summary/>
    }
}

/// The summary's table.
#[component]
fn FieldTable(summary: Summary) -> impl IntoView {
    view! {
        <table class="metrics" data-testid="field-summary">
            <caption>{format!("{} requests by {}; times in ms", summary.requests, summary.by.name())}</caption>
            <thead><tr>
                <th>"group"</th><th>"requests"</th><th>"failed"</th><th>"TTFT P50"</th><th>"TTFT P90 (95% interval)"</th>
                <th>"TTFT P99"</th><th>"first paint P50"</th><th>"first paint P90 (95% interval)"</th>
            </tr></thead>
            <tbody>
                {summary.groups.into_iter().map(|g| view! {
                    <tr data-testid="field-group" data-key=g.key.clone()>
                        <th scope="row">{g.key.clone()}</th>
                        <td>{g.requests}</td>
                        <td>{g.failed}</td>
                        <td>{cell(&g.ttft, |p| p.p50, false)}</td>
                        <td data-testid="field-ttft-p90">{cell(&g.ttft, |p| p.p90, true)}</td>
                        <td>{cell(&g.ttft, |p| p.p99, false)}</td>
                        <td>{cell(&g.first_paint, |p| p.p50, false)}</td>
                        <td>{cell(&g.first_paint, |p| p.p90, true)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
