//! Where latency comes from, when the run shows it: the prefill fit of a
//! prompt-length sweep, a conversation turn by turn, a request-rate run
//! over time (`lab_core::measure::{prefill, turns, rate}`).

use lab_core::measure::rate::RateRun;
use lab_core::measure::run::MeasuredRun;
use lab_core::measure::turns::Turns;
use leptos::prelude::*;

use crate::ui::charts::PrefillChart;
use crate::ui::format::opt;

fn num(v: Option<f64>, digits: usize) -> String {
    opt(v, |x| format!("{x:.digits$}"))
}

/// The three views, each only when the run has its data.
#[component]
pub fn Origins(run: StoredValue<MeasuredRun>) -> impl IntoView {
    let a = run.with_value(|r| r.analysis.clone());
    // A fit over a handful of lengths is a sweep; many random lengths are a benchmark.
    let prefill = a.prefill_fit.filter(|f| f.by_length.len() >= 2);
    view! {
        {prefill.map(|f| view! {
            <section class="origins" data-testid="prefill">
                <h4>"Prefill: TTFT against prompt length"</h4>
                <p data-testid="prefill-summary">{f.describe()}</p>
                {(f.by_length.len() <= lab_core::measure::prefill::MAX_TABLE_LENGTHS).then(|| view! { <PrefillChart fit=f.clone()/> })}
            </section>
        })}
        {a.turns.map(|t| view! { <TurnTable turns=t/> })}
        {a.rate_run.map(|r| view! { <RateTable rate=r/> })}
    }
}

/// A conversation turn by turn, and the saving of a stable prefix.
#[component]
fn TurnTable(turns: Turns) -> impl IntoView {
    view! {
        <section class="origins" data-testid="turns">
            <h4>"Conversation: turn by turn"</h4>
            {turns.saving.map(|s| view! { <p data-testid="turns-saving">{s.describe()}</p> })}
            <table class="metrics">
                <thead><tr><th scope="col">"series"</th><th scope="col">"turn"</th><th scope="col">"TTFT (median)"</th>
                    <th scope="col">"context tokens"</th><th scope="col">"cached"</th><th scope="col">"input tokens/s"</th></tr></thead>
                <tbody>{turns.rows.into_iter().map(|r| view! {
                    <tr data-testid="turn-row" data-group=r.group.clone() data-turn=r.turn>
                        <td>{r.group.clone()}</td><td>{r.turn + 1}</td><td data-testid="turn-ttft">{num(r.ttft_ms, 0)}" ms"</td>
                        <td>{num(r.context_tokens, 0)}</td><td>{num(r.cached_tokens, 0)}</td><td>{num(r.input_tokens_per_s, 0)}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </section>
    }
}

/// A request-rate run window by window, and where it saturated.
#[component]
fn RateTable(rate: RateRun) -> impl IntoView {
    view! {
        <section class="origins" data-testid="rate">
            <h4>{format!("Request rate: {} requests, {:.0} s windows", rate.requests, rate.window_s)}</h4>
            <p data-testid="rate-summary">{rate.describe()}</p>
            <table class="metrics">
                <thead><tr><th scope="col">"from"</th><th scope="col">"offered req/s"</th><th scope="col">"system tokens/s"</th>
                    <th scope="col">"user tokens/s"</th><th scope="col">"TTFT (median)"</th><th scope="col">"in flight (mean)"</th></tr></thead>
                <tbody>{rate.windows.into_iter().map(|w| view! {
                    <tr data-testid="rate-row">
                        <td>{format!("{:.0} s", w.start_s)}</td><td>{format!("{:.2}", w.offered_per_s)}</td><td>{format!("{:.1}", w.system_tokens_per_s)}</td>
                        <td>{num(w.user_tokens_per_s, 1)}</td><td>{num(w.ttft_ms, 0)}" ms"</td><td>{format!("{:.1}", w.in_flight)}</td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </section>
    }
}
