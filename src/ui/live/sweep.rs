//! Latency under load: one row per concurrency level, the curve, and the
//! saturation point in words.

use lab_core::measure::sweep::{Level, Saturation};
use leptos::prelude::*;

use crate::ui::charts::ConcurrencyChart;
use crate::ui::format::{ms, opt};

/// The load table and chart.
#[component]
pub fn SweepTable(levels: Vec<Level>, knee: Option<Saturation>) -> impl IntoView {
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
            <ConcurrencyChart levels=chart_levels knee=knee_c/>
            <p data-testid="saturation">
                {match knee {
                    Some(k) => k.explanation,
                    None => "No saturation point in this range: throughput grew with concurrency without a large latency cost.".to_string(),
                }}
            </p>
        </section>
    }
}
