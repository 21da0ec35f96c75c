//! A comparison of endpoints, measured (`lab_core::measure::compare`): one
//! table (each endpoint's P50 of every compared figure and its scenario
//! scores; under each of B, C, D its difference from A with the 95%
//! interval), the differences in words, and each endpoint's typical request
//! replayed side by side.

use lab_core::measure::compare::{Comparison, FIGURES};
use lab_core::measure::difference::{self, Difference};
use lab_core::share::command::{Command, RecordedPane};
use lab_core::trace::Trace;
use leptos::prelude::*;

use crate::browser::use_commands;
use crate::ui::format::opt;

/// The comparison's results.
#[component]
pub fn CompareResults(table: Comparison, traces: Vec<Trace>) -> impl IntoView {
    let rounds = traces.first().and_then(|t| t.meta.compare.as_ref()).map_or(0, |c| c.rounds);
    let words: Vec<String> = table.versus.iter().flat_map(|v| table.sentences(v)).collect();
    let panes: Vec<RecordedPane> = table
        .sides
        .iter()
        .zip(&traces)
        .filter_map(|(s, t)| {
            let request = t.requests.get(s.typical?)?.clone();
            let title = format!("{} · typical (P50 TTFT)", s.letter);
            Some(RecordedPane { title, label: s.name.clone(), request })
        })
        .collect();
    let replay = move |_| use_commands::send(&Command::Replay { panes: panes.clone() });
    view! {
        <section class="compare-results" data-testid="compare-results">
            <h4>"Endpoints compared"</h4>
            <p class="hint">
                {format!("{rounds} round(s), the same prompt to each endpoint in turn. ")}
                "Each figure is the P50 of an endpoint's completed requests; under it, how it differs from A, with its 95% "
                "interval (bootstrap over requests). The endpoints are saved in the library as one group."
            </p>
            <CompareTable table=table/>
            <ul class="compare-words" data-testid="compare-words">
                {words.into_iter().map(|w| view! { <li data-testid="compare-sentence">{w}</li> }).collect_view()}
            </ul>
            <p class="actions">
                <button type="button" data-testid="compare-replay" on:click=replay>"Replay the typical requests side by side"</button>
            </p>
        </section>
    }
}

/// The table: a column per endpoint, a row per figure and scenario.
#[component]
fn CompareTable(table: Comparison) -> impl IntoView {
    let sides = table.sides.clone();
    let diff_of = |i: usize, get: &dyn Fn(&lab_core::measure::compare::Versus) -> Option<Difference>| {
        i.checked_sub(1).and_then(|v| table.versus.get(v)).and_then(get)
    };
    let figure_rows = FIGURES.iter().enumerate().map(|(k, f)| {
        let cells = sides.iter().enumerate().map(|(i, s)| {
            cell(s.p50[k], diff_of(i, &|v| v.figures[k].clone()), |x| f.format(x))
        });
        view! { <tr data-testid="compare-row" data-figure=f.id><th scope="row" title=f.what()>{f.label()}" P50"</th>{cells.collect_view()}</tr> }
    });
    let score_rows = table.scenarios.iter().enumerate().map(|(k, (id, name))| {
        let cells = sides.iter().enumerate().map(|(i, s)| {
            cell(s.scores[k], diff_of(i, &|v| v.scores[k].clone()), |x| format!("{x:.1}"))
        });
        let figure = format!("score-{id}");
        view! { <tr data-testid="compare-row" data-figure=figure><th scope="row">{format!("{name} score")}</th>{cells.collect_view()}</tr> }
    });
    view! {
        <div class="table-scroll" tabindex="0">
            <table class="metrics compare-table" data-testid="compare-table">
                <thead><tr><th scope="col">"P50"</th>
                    {sides.iter().map(|s| {
                        // "A · OpenAI Chat Completions · model · host": the letter, then the rest small.
                        let rest = s.name.split_once(" · ").map_or(s.name.as_str(), |(_, r)| r).to_string();
                        view! { <th scope="col" data-testid="compare-side" title=s.name.clone()>{s.letter.to_string()}<span class="side-name">{rest}</span></th> }
                    }).collect_view()}
                </tr></thead>
                <tbody>
                    <tr><th scope="row">"requests (failed)"</th>
                        {sides.iter().map(|s| view! { <td data-testid="compare-requests">{format!("{} ({})", s.requests, s.failed)}</td> }).collect_view()}
                    </tr>
                    {figure_rows.collect_view()}
                    {score_rows.collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// One endpoint's value, and under it its difference from A.
fn cell(value: Option<f64>, diff: Option<Difference>, fmt: impl Fn(f64) -> String) -> impl IntoView {
    let signed = |v: f64| difference::signed(v, &fmt);
    let under = diff.map(|d| {
        let range = d.interval.map_or(String::new(), |(lo, hi)| format!(" ({} to {})", signed(lo), signed(hi)));
        let (lo, hi) = d.interval.map_or((None, None), |(lo, hi)| (Some(lo.to_string()), Some(hi.to_string())));
        view! {
            <br/><small class="diff" data-testid="compare-diff" data-diff=d.diff.to_string() data-lo=lo data-hi=hi>
                {format!("{}{range}", signed(d.diff))}
            </small>
        }
    });
    view! { <td data-value=value.map(|v| v.to_string())>{opt(value, &fmt)}{under}</td> }
}
