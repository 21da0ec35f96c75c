//! TTFT against prompt length: the median per length and the fitted line
//! (`lab_core::measure::prefill`).

use lab_core::chart::{nice_ticks, polyline};
use lab_core::measure::prefill::PrefillFit;
use leptos::prelude::*;

use super::{Axes, ChartFrame, H, W, fmt_ms, x_scale, y_scale};

fn tokens(v: f64) -> String {
    if v >= 1000.0 { format!("{:.0}k", v / 1000.0) } else { format!("{v:.0}") }
}

/// Median TTFT per prompt length, with the line a + b·x through them.
#[component]
pub fn PrefillChart(fit: PrefillFit) -> impl IntoView {
    let longest = fit.by_length.last().map_or(1.0, |l| l.0 as f64).max(1.0);
    let line_end = fit.overhead_ms + fit.ms_per_token * longest;
    let top = fit.by_length.iter().map(|l| l.1).fold(line_end.max(fit.overhead_ms), f64::max).max(1.0);
    let xt = nice_ticks(0.0, longest, 6);
    let yt = nice_ticks(0.0, top, 5);
    let x = x_scale((0.0, xt.last().copied().unwrap_or(longest).max(longest)));
    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
    let axes =
        Axes { x: &x, xt: &xt, y: &y, yt: &yt, fx: tokens, fy: fmt_ms, xl: "prompt tokens", yl: "TTFT (ms)" }
            .render();
    let line = polyline(&[(0.0, fit.overhead_ms.max(0.0)), (longest, line_end.max(0.0))], &x, &y);
    let label = format!(
        "Median TTFT at {} prompt lengths with the fitted line. {}",
        fit.by_length.len(),
        fit.describe()
    );
    view! {
        <ChartFrame title="TTFT against prompt length".to_string() id="prefill".to_string()>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-points=fit.by_length.len()>
                {axes}
                <g class="s1"><polyline class="line fit" data-testid="prefill-line" points=line></polyline></g>
                <g class="s0">
                    {fit.by_length.iter().map(|&(len, ms, n)| view! {
                        <circle class="dot" data-testid="prefill-point" cx=x.map(len as f64) cy=y.map(ms) r="3.5">
                            <title>{format!("{len} prompt tokens: median TTFT {ms:.0} ms over {n} request(s)")}</title>
                        </circle>
                    }).collect_view()}
                </g>
            </svg>
            <p class="legend"><span class="key s0">"median TTFT"</span><span class="key s1">"fitted line"</span></p>
        </ChartFrame>
    }
}
