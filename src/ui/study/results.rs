//! Study results ([`crate::browser::study::use_study_results`]): mean rating
//! with its 95% CI per condition, 2AFC shares with binomial tests, the
//! placement check and a row per participant; CSV, JSON and HTML exports.

use lab_core::study::Study;
use lab_core::study::results::Summary;
use leptos::prelude::*;

use crate::browser::files;
use crate::browser::study::UseStudyResults;

fn p_text(p: f64) -> String {
    if p < 0.001 { "< 0.001".into() } else { format!("{p:.3}") }
}

/// The results section of a study.
#[component]
pub fn StudyResultsView(study: Signal<Study>, results: UseStudyResults) -> impl IntoView {
    let r = results;
    let answers = move || r.combined.with(|c| c.as_ref().map_or(0, |c| c.responses.len()));
    view! {
        <div class="study-results" data-testid="study-results">
            <div class="row-actions">
                <button type="button" class="secondary" data-testid="results-refresh" on:click=move |_| r.refresh()>"Refresh"</button>
                <label class="file">"Merge results files "
                    <input type="file" multiple accept=".json,application/json" data-testid="results-merge"
                        on:change=move |ev| r.merge(files::take_chosen(&ev))/>
                </label>
                <button type="button" data-testid="results-csv" on:click=move |_| r.export("csv")>"Export CSV"</button>
                <button type="button" class="secondary" data-testid="results-json" on:click=move |_| r.export("json")>"Export JSON"</button>
                <button type="button" class="secondary" data-testid="results-report" on:click=move |_| r.export("report")>"Report (HTML)"</button>
            </div>
            {move || r.message.get().map(|m| view! { <p class="notice" role="status" data-testid="results-message">{m}</p> })}
            {move || (r.earlier_sessions.get() > 0).then(|| view! {
                <p class="hint" data-testid="results-earlier">{format!("{} session(s) in this browser ran with an earlier draft of this design and are left out.", r.earlier_sessions.get())}</p>
            })}
            {move || (!r.tests.with(Vec::is_empty)).then(|| view! {
                <label class="inline" data-testid="results-tests">
                    <input type="checkbox" data-testid="results-include-tests" prop:checked=move || r.include_tests.get()
                        on:change=move |ev| r.include_tests.set(event_target_checked(&ev))/>
                    {move || format!(" Count my {} test run(s) (\"Run as participant\") as participants", r.tests.with(Vec::len))}
                </label>
            })}
            <super::browsers::ByEngine results=r/>
            {move || r.summary.get().map(|s: Summary| view! {
                <p data-testid="results-participants">{format!("{} participant(s), {} answer(s).", s.participants, answers())}</p>
                <Ratings summary=s.clone()/>
                <Choices summary=s.clone() study=study/>
                {s.left_share.map(|(share, p)| view! {
                    <p class="hint" data-testid="results-left">{format!("Placement check: A (left) was chosen {:.1}% of the time (binomial p = {}). A p below 0.05 means people favour a side, whatever plays there.", share * 100.0, p_text(p))}</p>
                })}
                <PerParticipant summary=s study=study/>
            })}
            {move || r.threshold.get().map(|t| view! { <super::threshold_results::ThresholdResults summary=t study=study results=r/> })}
        </div>
    }
}

/// Mean ratings with their 95% confidence intervals.
#[component]
fn Ratings(summary: Summary) -> impl IntoView {
    let rows = summary.ratings;
    let empty = rows.is_empty();
    view! {
        {(!empty).then(|| view! { <h4>"Ratings (mean and 95% confidence interval)"</h4> })}
        <div class="table-scroll" tabindex="0" hidden=empty>
            <table class="metrics results" data-testid="results-ratings">
                <thead><tr><th scope="col">"question"</th><th scope="col">"condition"</th><th scope="col">"n"</th><th scope="col">"mean"</th><th scope="col">"95% CI"</th><th scope="col">"SD"</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|r| {
                        let (n, mean, ci, sd) = match &r.ci {
                            Some(c) => (c.n.to_string(), format!("{:.2}", c.mean), r.interval_text(), format!("{:.2}", c.sd)),
                            None => ("0".into(), "–".into(), "–".into(), "–".into()),
                        };
                        view! {
                            <tr data-testid="rating-row" data-condition=r.condition.clone()>
                                <td>{r.question.clone()}</td><th scope="row">{r.name.clone()}</th>
                                <td data-testid="rating-n">{n}</td><td data-testid="rating-mean">{mean}</td><td data-testid="rating-ci">{ci}</td><td>{sd}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// How often each of a pair was chosen, with the binomial test.
#[component]
fn Choices(summary: Summary, study: Signal<Study>) -> impl IntoView {
    let rows = summary.choices;
    let empty = rows.is_empty();
    let name_of = move |id: &str| {
        study.with(|s| {
            s.conditions.iter().find(|c| c.id == id).map_or_else(|| id.to_string(), |c| c.name.clone())
        })
    };
    view! {
        {(!empty).then(|| view! { <h4>"Choices (share choosing the first of each pair, binomial test)"</h4> })}
        <div class="table-scroll" tabindex="0" hidden=empty>
            <table class="metrics results" data-testid="results-choices">
                <thead><tr><th scope="col">"question"</th><th scope="col">"pair"</th><th scope="col">"n"</th><th scope="col">"first chosen"</th><th scope="col">"share"</th><th scope="col">"binomial p"</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|r| view! {
                        <tr data-testid="choice-row" data-pair=format!("{}-{}", r.a, r.b)>
                            <td>{r.question.clone()}</td>
                            <th scope="row">{format!("{} vs {}", name_of(&r.a), name_of(&r.b))}</th>
                            <td data-testid="choice-n">{r.n}</td><td data-testid="choice-a">{r.a_chosen}</td>
                            <td data-testid="choice-share">{r.share_a.map_or("–".into(), |v| format!("{:.1}%", v * 100.0))}</td>
                            <td data-testid="choice-p">{p_text(r.p_value)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// One row per participant.
#[component]
fn PerParticipant(summary: Summary, study: Signal<Study>) -> impl IntoView {
    view! {
        <h4>"Per participant"</h4>
        <div class="table-scroll" tabindex="0">
            <table class="metrics" data-testid="results-participant-table">
                <thead><tr>
                    <th scope="col">"participant"</th><th scope="col">"answers"</th>
                    {study.get().conditions.iter().map(|c| view! { <th scope="col">{format!("{} (mean / chosen)", c.name)}</th> }).collect_view()}
                    <th scope="col">"median RT"</th>
                </tr></thead>
                <tbody>
                    {summary.per_participant.into_iter().map(|p| view! {
                        <tr data-testid="participant-row">
                            <th scope="row">{p.participant.clone()}</th><td>{p.answers}</td>
                            {p.mean_rating.iter().zip(p.chosen.iter()).map(|(m, c)| view! {
                                <td>{format!("{} / {c}", m.map_or("–".into(), |m| format!("{m:.2}")))}</td>
                            }).collect_view()}
                            <td>{p.median_rt_ms.map_or("–".into(), |v| format!("{v:.0} ms"))}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
