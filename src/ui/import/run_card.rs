//! One imported run: its figures, goodput and scores, the tool's own summary
//! beside the lab's (differences flagged, with why), and its requests to
//! replay: typical (P50), worst (P99) or any one.

use lab_core::import::digest::{PickBy, RunDigest};
use lab_core::measure::stats::Summary;
use lab_core::trace::RequestTrace;
use leptos::prelude::*;

use crate::browser::importer::{Importer, LoadedRun};
use crate::ui::format::{ms, opt, percent};
use crate::ui::replay::{PaneConfig, PaneSource};
use crate::ui::{Nav, ReplayInbox};

type Row = (&'static str, &'static str, fn(&RunDigest) -> Option<Summary>);

const ROWS: [Row; 4] = [
    ("ttft", "TTFT", |d| d.analysis.metrics.ttft_ms),
    ("tpot", "TPOT", |d| d.analysis.metrics.tpot_ms),
    ("itl", "ITL", |d| d.analysis.metrics.itl_ms),
    ("e2el", "E2EL", |d| d.analysis.metrics.e2el_ms),
];

fn pane(run: &str, what: &str, index: usize, trace: RequestTrace) -> PaneConfig {
    let title = format!("{what} · request #{}", index + 1);
    PaneConfig {
        title: title.clone(),
        source: PaneSource::Recorded { label: format!("{run} · {title}"), request: Box::new(trace) },
    }
}

/// Fetches two requests of a run from the worker, then hands them to the
/// replay lab side by side and shows it.
fn replay_pair(
    importer: Importer,
    key: u32,
    label: String,
    a: (usize, String),
    b: (usize, String),
    error: RwSignal<Option<String>>,
) {
    let inbox = expect_context::<ReplayInbox>();
    let nav = expect_context::<Nav>();
    importer.request(key, a.0, move |first| match first {
        Err(e) => error.set(Some(e)),
        Ok(first) => importer.request(key, b.0, move |second| match second {
            Err(e) => error.set(Some(e)),
            Ok(second) => {
                error.set(None);
                inbox.0.set(Some(vec![pane(&label, &a.1, a.0, first), pane(&label, &b.1, b.0, second)]));
                nav.go("replay");
            }
        }),
    });
}

/// An imported run.
#[component]
pub fn ImportedRunCard(run: LoadedRun) -> impl IntoView {
    let importer = expect_context::<Importer>();
    let d = run.digest.clone();
    let key = run.key;
    let by = RwSignal::new(PickBy::Ttft);
    let pick = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let m = &d.analysis.metrics;
    let digest = StoredValue::new(d.clone());
    let label = d.label.clone();
    let typical = move || digest.with_value(|d| d.request_at(by.get(), 50.0).map(|r| r.index));
    let worst = move || digest.with_value(|d| d.request_at(by.get(), 99.0).map(|r| r.index));
    let go = {
        let label = label.clone();
        move |first: Option<(usize, String)>, second: Option<(usize, String)>| match (first, second) {
            (Some(a), Some(b)) => replay_pair(importer, key, label.clone(), a, b, error),
            _ => error.set(Some("no completed request to replay in this run".into())),
        }
    };
    let go_worst = go.clone();
    let go_typical = go.clone();
    let go_pick = go.clone();
    let by_label = move || by.get().label();
    let failures = if m.failed == 0 {
        String::new()
    } else {
        let parts: Vec<String> = m.failures.iter().map(|(k, v)| format!("{v} {k}")).collect();
        format!(" ({})", parts.join(", "))
    };
    view! {
        <article class="imported-run" data-testid="import-run">
            <header class="run-header">
                <h3 data-testid="import-run-label">{d.label.clone()}</h3>
                <p class="run-meta">
                    <span data-testid="import-run-tool">{d.tool.clone()}</span>
                    " · from "{run.file.clone()}
                    " · "<span data-testid="import-run-requests">{format!("{} requests, {} completed, {} failed{failures}", m.requests, m.completed, m.failed)}</span>
                    {d.concurrency.map(|c| format!(" · concurrency {c}"))}
                    {m.duration_ms.map(|t| format!(" · {:.1} s", t / 1000.0))}
                </p>
                <button type="button" class="secondary" data-testid="import-run-remove" on:click=move |_| importer.remove(key)>"Remove"</button>
            </header>
            <div class="table-scroll" tabindex="0">
                <table class="metrics" data-testid="import-figures">
                    <thead><tr>
                        <th scope="col">"ms"</th><th scope="col">"mean"</th><th scope="col">"P50"</th>
                        <th scope="col">"P90"</th><th scope="col">"P95"</th><th scope="col">"P99"</th>
                    </tr></thead>
                    <tbody>
                        {ROWS.iter().map(|(id, name, get)| {
                            let s = get(&d);
                            let cell = move |f: fn(&Summary) -> f64| opt(s.as_ref().map(f), ms);
                            view! {
                                <tr data-testid=format!("import-row-{id}")>
                                    <th scope="row">{*name}</th>
                                    <td>{cell(|s| s.mean)}</td>
                                    <td data-testid=format!("import-{id}-p50")>{cell(|s| s.p50)}</td>
                                    <td>{cell(|s| s.p90)}</td>
                                    <td>{cell(|s| s.p95)}</td>
                                    <td data-testid=format!("import-{id}-p99")>{cell(|s| s.p99)}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="run-figures">
                {m.output_tokens_per_s.map(|t| format!("System output: {t:.1} tokens/s. "))}
                {m.user_output_tokens_per_s.map(|u| format!("Per user: median {:.1} tokens/s. ", u.median))}
                {format!("Stalls over {:.0} ms: {} in {} requests. ", m.stalls.threshold_ms, m.stalls.count, m.stalls.requests_with_stalls)}
                {d.analysis.goodput.as_ref().map(|g| view! {
                    <span data-testid="import-goodput">{format!("Goodput under {}: {} ({} of {} requests).", g.slos, percent(g.ratio), g.good, g.total)}</span>
                })}
            </p>
            <ul class="score-line" data-testid="import-scores">
                {d.analysis.scores.iter().map(|s| {
                    let verdict = s.verdict.map(|v| v.word()).unwrap_or("n/a");
                    view! {
                        <li class=format!("verdict-{verdict}") title=s.explanation.clone()>
                            <strong>{s.name.clone()}</strong>" "
                            {s.score.map(|x| format!("{x:.0}")).unwrap_or_else(|| "—".into())}
                            " "<span class="verdict">{verdict}</span>
                        </li>
                    }
                }).collect_view()}
            </ul>
            <section class="replay-picker" aria-label="Replay requests of this run">
                <h4>"Feel it: replay requests of this run"</h4>
                <label>
                    "Typical and worst by "
                    <select data-testid="import-pick-by" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        by.set(PickBy::ALL.into_iter().find(|p| format!("{p:?}") == v).unwrap_or(PickBy::Ttft));
                    }>
                        {PickBy::ALL.iter().map(|p| view! { <option value=format!("{p:?}")>{p.label()}</option> }).collect_view()}
                    </select>
                </label>
                <button type="button" data-testid="replay-worst" on:click=move |_| {
                    let l = by_label();
                    go_worst(worst().map(|i| (i, format!("worst (P99 {l})"))), typical().map(|i| (i, format!("typical (P50 {l})"))));
                }>"Replay worst (P99) vs typical"</button>
                <button type="button" class="secondary" data-testid="replay-typical" on:click=move |_| {
                    let l = by_label();
                    go_typical(typical().map(|i| (i, format!("typical (P50 {l})"))), worst().map(|i| (i, format!("worst (P99 {l})"))));
                }>"Replay typical (P50) vs worst"</button>
                <label>
                    "or request # "
                    <input type="number" min="1" max=m.requests.to_string() data-testid="import-pick" prop:value=move || pick.get()
                        on:input=move |ev| pick.set(event_target_value(&ev))/>
                </label>
                <button type="button" class="secondary" data-testid="replay-pick" on:click=move |_| {
                    let n = digest.with_value(|d| d.rows.len());
                    match pick.get_untracked().trim().parse::<usize>() {
                        Ok(i) if (1..=n).contains(&i) => go_pick(Some((i - 1, "picked".to_string())), typical().map(|t| (t, format!("typical (P50 {})", by_label())))),
                        _ => error.set(Some(format!("pick a request number from 1 to {n}"))),
                    }
                }>"Replay it vs typical"</button>
                <p class="hint">
                    {move || {
                        let (t, w) = (typical(), worst());
                        digest.with_value(|d| {
                            let f = |i: Option<usize>| i.and_then(|i| d.rows.get(i)).map(|r| format!(
                                "#{} (TTFT {}, TPOT {}, E2EL {})", r.index + 1,
                                opt(r.ttft_ms, ms), opt(r.tpot_ms, ms), opt(r.e2el_ms, ms)));
                            format!("Typical: {}. Worst: {}.", f(t).unwrap_or_else(|| "—".into()), f(w).unwrap_or_else(|| "—".into()))
                        })
                    }}
                </p>
                {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="import-replay-error">{e}</p> })}
            </section>
            {(!d.comparison.is_empty()).then(|| {
                let rows = d.comparison.clone();
                let differs = rows.iter().filter(|r| r.differs).count();
                view! {
                    <details class="tool-comparison" open=true>
                        <summary data-testid="tool-comparison-summary">
                            {format!("The tool's own summary beside the lab's recomputation: {} of {} figures equal within rounding", rows.len() - differs, rows.len())}
                        </summary>
                        <div class="table-scroll" tabindex="0">
                            <table class="metrics" data-testid="tool-comparison">
                                <thead><tr>
                                    <th scope="col">"figure"</th><th scope="col">"tool"</th><th scope="col">"lab"</th>
                                    <th scope="col">"lab − tool"</th><th scope="col">""</th>
                                </tr></thead>
                                <tbody>
                                    {rows.into_iter().map(|r| view! {
                                        <tr class:differs=r.differs data-testid="tool-figure" data-key=r.key.clone()>
                                            <th scope="row" title=r.key.clone()>{r.label.clone()}</th>
                                            <td>{ms(r.tool)}</td>
                                            <td>{opt(r.lab, ms)}</td>
                                            <td>{opt(r.diff, |v| format!("{v:+.2}"))}</td>
                                            <td>{if r.differs {
                                                view! { <span class="flag" title=r.why.clone().unwrap_or_default()>{format!("differs: {}", r.why.clone().unwrap_or_default())}</span> }.into_any()
                                            } else {
                                                view! { <span class="ok">"equal"</span> }.into_any()
                                            }}</td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    </details>
                }
            })}
            {(!d.notes.is_empty()).then(|| view! {
                <ul class="notes" data-testid="import-notes">
                    {d.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}
                </ul>
            })}
        </article>
    }
}
