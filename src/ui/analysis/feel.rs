//! How the streams felt, beyond goodput: time to first answer, reasoning
//! time, input (prefill) throughput, fluidity-index, QoE and Apdex, with the
//! parameters they were computed with (`lab_core::measure::feel`).

use lab_core::measure::analysis::Analysis;
use lab_core::measure::stats::Summary;
use leptos::prelude::*;

use crate::ui::format::{ms, opt};

/// The figures, one line each.
#[component]
pub fn FeelFacts(analysis: Signal<Analysis>) -> impl IntoView {
    let m = move || analysis.with(|a| a.metrics.clone());
    let ratio = |s: Option<Summary>| match s {
        Some(s) => format!("{:.2} (median {:.2}, worst {:.2})", s.mean, s.median, s.min),
        None => opt(None, ms),
    };
    view! {
        <ul class="facts feel" data-testid="feel">
            <li title="First answer (non-reasoning) token, median">"Time to first answer " <b data-testid="feel-ttfa">{move || opt(m().time_to_first_answer_ms.map(|s| s.median), ms)}</b></li>
            {move || m().reasoning_ms.map(|s| view! {
                <li title="Time to first answer − TTFT, for requests that reasoned first">"Reasoning " <b data-testid="feel-reasoning">{ms(s.median)}</b></li>
            })}
            <li title="Prompt tokens / TTFT per request (median), and prompt tokens / duration for the run">
                "Input tokens/s " <b data-testid="feel-input-tps">{move || opt(m().input_tokens_per_s.map(|s| s.median), |v| format!("{v:.0}"))}</b>
                " (system " <b data-testid="feel-system-input-tps">{move || opt(m().system_input_tokens_per_s, |v| format!("{v:.0}"))}</b>")"
            </li>
            <li title=move || { let f = m().feel; format!("Share of tokens on time: first by {:.0} ms, then one every {:.0} ms (a late token re-bases the schedule)", f.fluidity_ttft_ms, f.fluidity_tbt_ms) }>
                "Fluidity-index " <b data-testid="feel-fluidity">{move || ratio(m().fluidity_index)}</b>
            </li>
            <li title=move || { let f = m().feel; format!("Delivered against a reader who expects the first token at {:.0} ms and reads {:.0} tokens/s (1 = never waiting)", f.qoe_ttft_ms, f.qoe_tokens_per_s) }>
                "QoE " <b data-testid="feel-qoe">{move || ratio(m().qoe)}</b>
            </li>
            <li title=move || format!("(satisfied + tolerating / 2) / requests: TTFT ≤ {0:.0} ms satisfied, ≤ {1:.0} ms tolerating, failed frustrated", m().feel.apdex_ms, 4.0 * m().feel.apdex_ms)>
                "Apdex (TTFT) " <b data-testid="feel-apdex">{move || opt(m().apdex_ttft, |v| format!("{v:.2}"))}</b>
            </li>
        </ul>
    }
}
