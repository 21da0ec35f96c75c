//! Requests over time: one bar per bucket of send time
//! (`lab_core::field::timeline`), its failed share in the "poor" colour.
//! Where pages sample, the bars are the requests the recorded ones stand
//! for (an estimate, said in the axis, the label and each bar's title).

use lab_core::chart::nice_ticks;
use lab_core::field::timeline::Timeline;
use leptos::prelude::*;

use super::{Axes, ChartFrame, H, M, W, x_scale, y_scale};

/// Most time labels under the bars.
const LABELS: usize = 6;

fn count(v: f64) -> String {
    format!("{v:.0}")
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "—".into(), |v| format!("{v:.0} ms"))
}

/// The chart of a period's requests over time.
#[component]
pub fn RequestsOverTimeChart(timeline: Timeline) -> impl IntoView {
    let n = timeline.buckets.len().max(1);
    let sampled = timeline.buckets.iter().any(|b| (b.estimated - b.requests as f64).abs() > 1e-9);
    // What a bar stands for: its requests, or where pages sample their estimate.
    let height =
        |b: &lab_core::field::timeline::TimeBucket| if sampled { b.estimated } else { b.requests as f64 };
    let top = timeline.buckets.iter().map(height).fold(1.0, f64::max);
    let x = x_scale((0.0, n as f64));
    // Requests are whole: no tick between two counts.
    let yt: Vec<f64> = nice_ticks(0.0, top, 4).into_iter().filter(|t| t.fract() == 0.0).collect();
    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
    let xl = format!("send time (UTC), one bar per {}", timeline.width());
    let yl = if sampled { "requests (estimated)" } else { "requests" };
    let axes = Axes { x: &x, xt: &[], y: &y, yt: &yt, fx: count, fy: count, xl: &xl, yl }.render();
    let every = n.div_ceil(LABELS);
    let labels: Vec<(f64, String)> = (0..n)
        .step_by(every)
        .filter_map(|i| {
            timeline.buckets.get(i).map(|b| (x.map(i as f64 + 0.5), timeline.label(b.start_unix_ms)))
        })
        .collect();
    let total: usize = timeline.buckets.iter().map(|b| b.requests).sum();
    let estimated: f64 = timeline.buckets.iter().map(|b| b.estimated).sum();
    let label = if sampled {
        format!(
            "{total} requests recorded, ≈ {estimated:.0} estimated, in {n} buckets of {}",
            timeline.width()
        )
    } else {
        format!("{total} requests in {n} buckets of {}", timeline.width())
    };
    let bars = timeline
        .buckets
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (x0, x1) = (x.map(i as f64), x.map(i as f64 + 1.0));
            let (w, base) = ((x1 - x0 - 1.0).max(0.5), y.map(0.0));
            let counted = if sampled {
                format!("≈ {:.0} requests ({} recorded)", b.estimated, b.requests)
            } else {
                format!("{} requests", b.requests)
            };
            let title = format!(
                "{}: {counted}, {} failed; TTFT P50 {}, P90 {}",
                timeline.label(b.start_unix_ms),
                b.failed,
                opt_ms(b.ttft_p50_ms),
                opt_ms(b.ttft_p90_ms)
            );
            // The failed share of the bar, as recorded.
            let share = if b.requests == 0 { 0.0 } else { b.failed as f64 / b.requests as f64 };
            let (all, failed) = (y.map(height(b)), y.map(height(b) * share));
            view! {
                <g data-testid="requests-bar" data-requests=b.requests data-failed=b.failed>
                    <rect class="bar" x=x0 + 0.5 width=w y=all height=(base - all).max(0.0)></rect>
                    <rect class="bar over" x=x0 + 0.5 width=w y=failed height=(base - failed).max(0.0)></rect>
                    <title>{title}</title>
                </g>
            }
        })
        .collect_view();
    view! {
        <ChartFrame title="Requests over time (failed or stopped in red)".to_string() id="chart-field-requests".to_string()>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-bars=n data-total=total>
                {axes}
                {bars}
                <g class="axis">
                    {labels.into_iter().map(|(px, l)| view! { <text x=px y=H - M.3 + 14.0 text-anchor="middle">{l}</text> }).collect_view()}
                </g>
            </svg>
        </ChartFrame>
    }
}
