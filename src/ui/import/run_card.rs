//! One imported run: its figures, goodput and scores, its requests to
//! replay, and the tool's own summary beside the lab's.

use lab_core::import::digest::RunDigest;
use lab_core::measure::registry::{COLUMNS, LATENCY};
use leptos::prelude::*;

use super::replay_picker::ReplayPicker;
use super::tool_figures::ToolFigures;
use crate::browser::importer::{Importer, LoadedRun};
use crate::ui::format::{ms, opt, percent};

/// An imported run.
#[component]
pub fn ImportedRunCard(run: LoadedRun) -> impl IntoView {
    let importer = expect_context::<Importer>();
    let d = run.digest.clone();
    let key = run.key;
    let m = &d.analysis.metrics;
    let failures = if m.failed == 0 {
        String::new()
    } else {
        format!(" ({})", m.failures.iter().map(|(k, v)| format!("{v} {k}")).collect::<Vec<_>>().join(", "))
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
            <Figures digest=d.clone()/>
            <ReplayPicker key=key digest=d.clone()/>
            {(!d.comparison.is_empty()).then(|| view! { <ToolFigures rows=d.comparison.clone()/> })}
            {(!d.notes.is_empty()).then(|| view! {
                <ul class="notes" data-testid="import-notes">
                    {d.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}
                </ul>
            })}
        </article>
    }
}

/// The run's latency table, throughput, stalls, goodput and scores.
#[component]
fn Figures(digest: RunDigest) -> impl IntoView {
    let d = digest;
    let m = d.analysis.metrics.clone();
    view! {
        <div class="table-scroll" tabindex="0">
            <table class="metrics" data-testid="import-figures">
                <thead><tr>
                    <th scope="col">"ms"</th>
                    {COLUMNS.map(|c| view! { <th scope="col">{c.label()}</th> }).collect_view()}
                </tr></thead>
                <tbody>
                    // The registry's rows of imported runs, and the rows
                    // tools do not record (response headers, paints) when
                    // the run has them: field data, a lab trace.
                    {LATENCY.iter().filter(|r| (r.places.import && r.shown_for(&m)) || (r.get)(&m).is_some()).map(|r| {
                        let s = (r.get)(&m);
                        view! {
                            <tr data-testid=format!("import-row-{}", r.id) data-metric=r.id title=r.what>
                                <th scope="row">{r.label}</th>
                                {COLUMNS.map(|c| view! {
                                    <td data-testid=format!("import-{}-{}", r.id, c.id())>{opt(s.map(|s| c.of(&s)), ms)}</td>
                                }).collect_view()}
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
        <p class="run-figures">
            {m.output_tokens_per_s.map(|t| format!("System output: {t:.1} tokens/s. "))}
            {m.system_input_tokens_per_s.map(|t| format!("System input: {t:.0} tokens/s. "))}
            <span data-testid="import-feel">{feel_line(&m)}</span>
            {m.user_output_tokens_per_s.map(|u| format!("Per user: median {:.1} tokens/s. ", u.median))}
            {format!("Stalls over {:.0} ms: {} in {} requests. ", m.stalls.threshold_ms, m.stalls.count, m.stalls.requests_with_stalls)}
            {d.analysis.goodput.as_ref().map(|g| view! {
                <span data-testid="import-goodput">{format!("Goodput under {}: {} ({} of {} requests).", g.slos, percent(g.ratio), g.good, g.total)}</span>
                " "<span data-testid="import-within">{format!("Within each: {}.", g.per_slo.iter()
                    .map(|o| format!("{} ≤ {} ms {}", o.slo.metric, o.slo.threshold_ms, percent(o.ratio))).collect::<Vec<_>>().join(" · "))}</span>
            })}
        </p>
        <ul class="score-line" data-testid="import-scores">
            {d.analysis.scores.iter().map(|s| {
                let verdict = s.verdict.map(|v| v.word()).unwrap_or("n/a");
                view! {
                    <li class=format!("verdict-{verdict}") title=s.explanation.clone()>
                        <strong>{s.name.clone()}</strong>" "{s.score.map(|x| format!("{x:.0}")).unwrap_or_else(|| "—".into())}
                        " "<span class="verdict">{verdict}</span>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// Fluidity-index, QoE and Apdex in one line (where the format has the data).
fn feel_line(m: &lab_core::measure::metrics::RunMetrics) -> String {
    let mut parts = Vec::new();
    if let Some(f) = m.fluidity_index {
        parts.push(format!("fluidity-index median {:.2}", f.median));
    }
    if let Some(q) = m.qoe {
        parts.push(format!("QoE median {:.2}", q.median));
    }
    if let Some(a) = m.apdex_ttft {
        parts.push(format!("Apdex (TTFT) {a:.2}"));
    }
    if parts.is_empty() { String::new() } else { format!("How it felt: {}. ", parts.join(", ")) }
}
