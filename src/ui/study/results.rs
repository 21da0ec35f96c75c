//! Study results: every session of the study in this browser plus merged
//! files from other participants' browsers, summarized by
//! `lab_core::study::results` (mean rating with 95% CI per condition, 2AFC
//! shares with binomial tests, placement bias, per participant), exported
//! as CSV, JSON or an HTML report.

use lab_core::share::report;
use lab_core::study::Study;
use lab_core::study::results::{StudyResults, Summary, summarize, to_csv};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::files::{self, download_text, js_message};
use crate::browser::library::Library;
use crate::browser::study_store;
use crate::ui::library::today;

/// Largest results file merged (bytes).
pub const MAX_RESULTS_BYTES: u64 = 64 * 1024 * 1024;

fn p_text(p: f64) -> String {
    if p < 0.001 { "< 0.001".into() } else { format!("{p:.3}") }
}

/// The results section of a study.
#[component]
pub fn StudyResultsView(study: Signal<Study>, refresh: RwSignal<u32>) -> impl IntoView {
    let lib = expect_context::<Library>();
    let local = RwSignal::new(None::<StudyResults>);
    let merged = RwSignal::new(Vec::<StudyResults>::new());
    let message = RwSignal::new(None::<String>);

    Effect::new(move |_| {
        refresh.track();
        let id = study.with(|s| s.id.clone());
        spawn_local(async move {
            match study_store::sessions(&lib, &id).await {
                Ok(list) => {
                    let mut all = StudyResults {
                        format: lab_core::study::results::RESULTS_FORMAT.into(),
                        study_id: id,
                        responses: Vec::new(),
                    };
                    for s in list {
                        let _ = all.merge(&s.results());
                    }
                    local.set(Some(all));
                }
                Err(e) => message.set(Some(e)),
            }
        });
    });
    let combined = Memo::new(move |_| {
        let mut all = local.get()?;
        for m in merged.get() {
            let _ = all.merge(&m);
        }
        Some(all)
    });
    let summary = Memo::new(move |_| combined.get().map(|r| summarize(&study.get(), &r)));

    let merge_files = move |chosen: Vec<web_sys::File>| {
        spawn_local(async move {
            let mut notes = Vec::new();
            let id = study.get_untracked().id;
            for f in chosen {
                let name = f.name();
                let r = files::read_text(&f, MAX_RESULTS_BYTES)
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|t| StudyResults::from_json(&t).map_err(|e| e.to_string()));
                match r {
                    Ok(res) if res.study_id != id => {
                        notes.push(format!("{name}: belongs to study \"{}\", not \"{id}\"", res.study_id))
                    }
                    Ok(res) => {
                        notes.push(format!(
                            "{name}: {} answer(s) of {} participant(s) merged",
                            res.responses.len(),
                            res.participants().len()
                        ));
                        merged.update(|m| m.push(res));
                    }
                    Err(e) => notes.push(format!("{name}: {e}")),
                }
            }
            message.set(Some(notes.join("; ")));
        });
    };
    let export = move |kind: &'static str| {
        let Some(r) = combined.get_untracked() else { return };
        let s = study.get_untracked();
        let (name, mime, text) = match kind {
            "csv" => (format!("{}-results.csv", s.id), "text/csv", to_csv(&r)),
            "json" => (format!("{}-results.json", s.id), "application/json", r.to_json()),
            _ => {
                let sum = summarize(&s, &r);
                (format!("{}-report.html", s.id), "text/html", report::study_report(&s, &sum, &today()))
            }
        };
        if let Err(e) = download_text(&name, mime, &text) {
            message.set(Some(js_message(&e)));
        }
    };
    let name_of = move |id: &str| {
        study.with(|s| {
            s.conditions.iter().find(|c| c.id == id).map_or_else(|| id.to_string(), |c| c.name.clone())
        })
    };

    view! {
        <div class="study-results" data-testid="study-results">
            <div class="row-actions">
                <button type="button" class="secondary" data-testid="results-refresh" on:click=move |_| refresh.update(|n| *n += 1)>"Refresh"</button>
                <label class="file">"Merge results files "
                    <input type="file" multiple accept=".json,application/json" data-testid="results-merge"
                        on:change=move |ev| merge_files(files::take_chosen(&ev))/>
                </label>
                <button type="button" data-testid="results-csv" on:click=move |_| export("csv")>"Export CSV"</button>
                <button type="button" class="secondary" data-testid="results-json" on:click=move |_| export("json")>"Export JSON"</button>
                <button type="button" class="secondary" data-testid="results-report" on:click=move |_| export("report")>"Report (HTML)"</button>
            </div>
            {move || message.get().map(|m| view! { <p class="notice" role="status" data-testid="results-message">{m}</p> })}
            {move || summary.get().map(|s: Summary| view! {
                <p data-testid="results-participants">{format!("{} participant(s), {} answer(s).", s.participants, combined.with(|c| c.as_ref().map_or(0, |c| c.responses.len())))}</p>
                <Show when={let n = s.ratings.len(); move || n > 0}>
                    <h4>"Ratings (mean and 95% confidence interval)"</h4>
                </Show>
                <div class="table-scroll" tabindex="0" hidden=s.ratings.is_empty()>
                <table class="metrics" data-testid="results-ratings">
                    <thead><tr><th scope="col">"question"</th><th scope="col">"condition"</th><th scope="col">"n"</th><th scope="col">"mean"</th><th scope="col">"95% CI"</th><th scope="col">"SD"</th></tr></thead>
                    <tbody>
                        {s.ratings.iter().map(|r| {
                            let (n, mean, ci, sd) = match &r.ci {
                                Some(c) => (c.n.to_string(), format!("{:.2}", c.mean), match (c.low, c.high) { (Some(l), Some(h)) => format!("{l:.2} – {h:.2}"), _ => "–".into() }, format!("{:.2}", c.sd)),
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
                <div class="table-scroll" tabindex="0" hidden=s.choices.is_empty()>
                <table class="metrics" data-testid="results-choices">
                    <thead><tr><th scope="col">"question"</th><th scope="col">"pair"</th><th scope="col">"n"</th><th scope="col">"first chosen"</th><th scope="col">"share"</th><th scope="col">"binomial p"</th></tr></thead>
                    <tbody>
                        {s.choices.iter().map(|r| view! {
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
                {s.left_share.map(|(share, p)| view! {
                    <p class="hint" data-testid="results-left">{format!("Placement check: A (left) was chosen {:.1}% of the time (binomial p = {}). A p below 0.05 means people favour a side, whatever plays there.", share * 100.0, p_text(p))}</p>
                })}
                <h4>"Per participant"</h4>
                <div class="table-scroll" tabindex="0">
                    <table class="metrics" data-testid="results-participant-table">
                        <thead><tr>
                            <th scope="col">"participant"</th><th scope="col">"answers"</th>
                            {study.get().conditions.iter().map(|c| view! { <th scope="col">{format!("{} (mean / chosen)", c.name)}</th> }).collect_view()}
                            <th scope="col">"median RT"</th>
                        </tr></thead>
                        <tbody>
                            {s.per_participant.iter().map(|p| view! {
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
            })}
        </div>
    }
}
