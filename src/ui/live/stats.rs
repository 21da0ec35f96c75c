//! Live figures of the streaming request and the ITL sparkline.

use lab_core::stream::live::LiveStats;
use leptos::prelude::*;

use crate::ui::format::{ms1_or_s as ms0, opt};

/// The stat tiles.
#[component]
pub fn LiveStatsPanel(stats: RwSignal<LiveStats>) -> impl IntoView {
    let tile = move |id: &'static str, label: &'static str, value: Signal<String>, hint: &'static str| {
        view! {
            <div class="tile" title=hint>
                <span class="label">{label}</span>
                <span class="value" data-testid=id>{move || value.get()}</span>
            </div>
        }
    };
    let s = move || stats.get();
    view! {
        <div class="tiles" data-testid="live-stats">
            {tile("live-ttfb", "TTFB", Signal::derive(move || opt(s().ttfb_ms, ms0)), "Response headers received")}
            {tile("live-ttft", "TTFT", Signal::derive(move || opt(s().ttft_ms, ms0)), "First token received")}
            {tile("live-ttfp", "First paint", Signal::derive(move || opt(s().ttfp_ms, ms0)), "First token on screen")}
            {tile("live-tokens", "Tokens", Signal::derive(move || s().tokens.to_string()), "Chunks received so far")}
            {tile(
                "live-tps-overall",
                "Tokens/s, whole answer",
                Signal::derive(move || opt(s().overall_tokens_per_s, |v| format!("{v:.1}"))),
                "Tokens since the request was sent, waiting included",
            )}
            {tile(
                "live-tps",
                "Tokens/s after the first",
                Signal::derive(move || opt(s().tokens_per_s, |v| format!("{v:.1}"))),
                "Decode rate since the first token",
            )}
            {tile(
                "live-stalls",
                "Stalls",
                Signal::derive(move || s().stalls.to_string()),
                "Gaps over 250 ms so far",
            )}
            {tile("live-elapsed", "Elapsed", Signal::derive(move || ms0(s().elapsed_ms)), "Since the request was sent")}
            <Show when=move || s().first_tool_call_ms.is_some()>
                {tile("live-first-tool-call", "First tool call", Signal::derive(move || opt(s().first_tool_call_ms, ms0)), "First tool-call fragment received")}
            </Show>
        </div>
        <Sparkline values=Signal::derive(move || s().recent_gaps_ms)/>
    }
}

/// Width and height of the sparkline's coordinate system.
const W: f64 = 240.0;
const H: f64 = 40.0;

/// Inter-token gaps as a line (taller = longer gap), scaled to the largest.
#[component]
pub fn Sparkline(values: Signal<Vec<f64>>) -> impl IntoView {
    let points = move || {
        let v = values.get();
        let max = v.iter().copied().fold(1.0f64, f64::max);
        let step = if v.len() > 1 { W / (v.len() - 1) as f64 } else { 0.0 };
        v.iter()
            .enumerate()
            .map(|(i, g)| format!("{:.1},{:.1}", i as f64 * step, H - g / max * (H - 2.0) - 1.0))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let label = move || {
        let v = values.get();
        match v.last() {
            Some(last) => format!("Inter-token gaps, last {} (latest {:.1} ms)", v.len(), last),
            None => "Inter-token gaps appear here while tokens stream".to_string(),
        }
    };
    view! {
        <figure class="sparkline">
            <svg
                viewBox=format!("0 0 {W} {H}")
                preserveAspectRatio="none"
                role="img"
                aria-label=label
                data-testid="itl-sparkline"
                data-points=move || values.get().len()
            >
                <polyline points=points fill="none" stroke="currentColor" stroke-width="1.5"></polyline>
            </svg>
            <figcaption>{label}</figcaption>
        </figure>
    }
}
