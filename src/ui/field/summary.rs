//! A period of field data at a glance (`lab_core::field::summary`): its
//! requests over time, and one row per day, browser, model or site with its
//! requests, failures and stalled requests, one latency figure's
//! P50/P90/P99 (chosen among the rows of `lab_core::measure::registry` the
//! period's requests have: TTFT, first paint, paint lag, …), QoE's P50 and
//! P10, each P90 and P10 with its 95% interval, and the group's scenario
//! score over its sampled requests (`lab_core::field::scores`). Where
//! pages sample, each count has its estimate beside it (the requests the
//! recorded ones stand for); percentiles stay over the recorded requests.

use lab_core::field::scores::{GroupScore, MIN_SCORED};
use lab_core::field::summary::{Estimate, FieldSummary as Summary};
use lab_core::measure::registry::{self, LATENCY, LatencyRow};
use leptos::prelude::*;

use crate::ui::charts::RequestsOverTimeChart;
use crate::ui::format::ms;

fn cell(e: Option<Estimate>, interval: bool, fmt: fn(f64) -> String) -> String {
    let Some(e) = e else { return "—".into() };
    match (interval, e.interval) {
        (true, Some((lo, hi))) => format!("{} ({}–{})", fmt(e.value), fmt(lo), fmt(hi)),
        (true, None) => format!("{} (too few for an interval)", fmt(e.value)),
        (false, _) => fmt(e.value),
    }
}

/// A count, with the requests it stands for when pages sampled.
fn count(recorded: usize, estimated: f64, sampled: bool) -> String {
    if sampled { format!("{recorded} (≈ {estimated:.0})") } else { recorded.to_string() }
}

fn score(v: f64) -> String {
    format!("{v:.2}")
}

fn scored(s: GroupScore) -> String {
    match s.score {
        Some(v) if s.rough() => format!("{v:.0} ({}, rough: fewer than {MIN_SCORED})", s.sampled),
        Some(v) => format!("{v:.0} ({})", s.sampled),
        None => format!("— ({})", s.sampled),
    }
}

/// The latency rows some group of `summary` has (TTFT first, always).
fn rows_of(summary: &Summary) -> Vec<&'static LatencyRow> {
    LATENCY
        .iter()
        .filter(|r| r.id == "ttft" || summary.groups.iter().any(|g| g.figure(r.id).is_some()))
        .collect()
}

/// The summary: chart and table.
#[component]
pub fn FieldSummary(summary: Summary) -> impl IntoView {
    let figure = RwSignal::new(registry::row("ttft").unwrap_or(&LATENCY[0]));
    let rows = rows_of(&summary);
    let pick = rows.clone();
    view! {
        <RequestsOverTimeChart timeline=summary.timeline.clone()/>
        <label>"Percentiles of "
            <select data-testid="field-figure"
                on:change=move |ev| {
                    let id = event_target_value(&ev);
                    if let Some(r) = pick.iter().find(|r| r.id == id) { figure.set(r) }
                }>
                {rows.into_iter().map(|r| view! { <option value=r.id selected=r.id == "ttft">{r.per_request_label()}</option> }).collect_view()}
            </select>
        </label>
        {move || view! { <FieldTable summary=summary.clone() figure=figure.get()/> }}
    }
}

/// The summary's table, of one figure.
#[component]
fn FieldTable(summary: Summary, figure: &'static LatencyRow) -> impl IntoView {
    let what = figure.per_request_label();
    let sampled = summary.sampled();
    let caption = if sampled {
        format!(
            "{} requests recorded, standing for ≈ {:.0} (an estimate: the pages report a sample of their requests), by {}; {what} in ms over the recorded ones",
            summary.requests,
            summary.estimated,
            summary.by.name()
        )
    } else {
        format!("{} requests by {}; {what} in ms", summary.requests, summary.by.name())
    };
    view! {
        <div class="table-scroll" tabindex="0">
            <table class="metrics" data-testid="field-summary" data-figure=figure.id>
                <caption data-testid="field-caption" data-estimated=format!("{:.1}", summary.estimated)>{caption}</caption>
                <thead><tr>
                    <th>"group"</th><th>{if sampled { "requests (≈ estimated)" } else { "requests" }}</th><th>"failed"</th><th>"stalled"</th>
                    <th>{format!("{what} P50")}</th><th>{format!("{what} P90 (95% interval)")}</th><th>{format!("{what} P99")}</th>
                    <th>"QoE P50"</th><th>"QoE P10 (95% interval)"</th>
                    {summary.scenario.clone().map(|s| view! { <th>{format!("{s} score (requests sampled)")}</th> })}
                </tr></thead>
                <tbody>
                    {summary.groups.into_iter().map(|g| {
                        let p = g.figure(figure.id).cloned();
                        view! {
                            <tr data-testid="field-group" data-key=g.key.clone()>
                                <th scope="row">{g.key.clone()}</th>
                                <td data-testid="field-requests">{count(g.requests, g.estimated, sampled)}</td>
                                <td>{g.failed}</td>
                                <td>{g.stalled}</td>
                                <td>{cell(p.as_ref().map(|p| p.p50), false, ms)}</td>
                                <td data-testid="field-p90">{cell(p.as_ref().map(|p| p.p90), true, ms)}</td>
                                <td>{cell(p.as_ref().map(|p| p.p99), false, ms)}</td>
                                <td>{cell(g.qoe.as_ref().map(|q| q.p50), false, score)}</td>
                                <td>{cell(g.qoe.as_ref().map(|q| q.p10), true, score)}</td>
                                {g.score.map(|s| view! { <td data-testid="field-score">{scored(s)}</td> })}
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
