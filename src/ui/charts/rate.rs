//! A workload's request rate over time (`lab_core::workload::summary`'s
//! `rate_over_time`: requests a second, averaged over equal steps).

use lab_core::chart::{nice_ticks, polyline};
use lab_core::workload::summary::RatePoint;
use leptos::prelude::*;

use super::{Axes, ChartFrame, H, W, x_scale, y_scale};

fn seconds(v: f64) -> String {
    if v >= 120.0 { format!("{:.0} min", v / 60.0) } else { format!("{v:.0} s") }
}

fn per_s(v: f64) -> String {
    if v >= 10.0 || v == 0.0 { format!("{v:.0}") } else { format!("{v:.1}") }
}

/// Requests a second against time since the first send, one level per step.
#[component]
pub fn WorkloadRateChart(points: Vec<RatePoint>) -> impl IntoView {
    let step = match points.as_slice() {
        [a, b, ..] => b.t_s - a.t_s,
        _ => 1.0,
    };
    let end = points.last().map_or(1.0, |p| p.t_s + step).max(1.0);
    let top = points.iter().map(|p| p.per_s).fold(0.0, f64::max).max(1.0);
    let xt = nice_ticks(0.0, end, 6);
    let yt = nice_ticks(0.0, top, 4);
    let x = x_scale((0.0, xt.last().copied().unwrap_or(end).max(end)));
    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
    let axes = Axes {
        x: &x,
        xt: &xt,
        y: &y,
        yt: &yt,
        fx: seconds,
        fy: per_s,
        xl: "time since the first send",
        yl: "requests a second",
    }
    .render();
    let levels: Vec<(f64, f64)> =
        points.iter().flat_map(|p| [(p.t_s, p.per_s), (p.t_s + step, p.per_s)]).collect();
    let busiest = points.iter().map(|p| p.per_s).fold(0.0, f64::max);
    let mean = points.iter().map(|p| p.per_s).sum::<f64>() / points.len().max(1) as f64;
    let label = format!(
        "Request rate over {} in {} steps of {}: mean {mean:.2} a second, busiest step {busiest:.2} a second",
        seconds(end),
        points.len(),
        seconds(step)
    );
    view! {
        <ChartFrame title="Request rate over time".to_string() id="workload-rate".to_string()>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-points=points.len()>
                {axes}
                <g class="s0">
                    <polyline class="line" points=polyline(&levels, &x, &y)></polyline>
                    {points.iter().map(|p| view! {
                        <rect class="hover" x=x.map(p.t_s) y=y.map(top.max(p.per_s)) width=(x.map(p.t_s + step) - x.map(p.t_s)).max(1.0)
                            height=(y.map(0.0) - y.map(top.max(p.per_s))).max(0.0) fill="transparent">
                            <title>{format!("{}–{}: {:.2} requests a second", seconds(p.t_s), seconds(p.t_s + step), p.per_s)}</title>
                        </rect>
                    }).collect_view()}
                </g>
            </svg>
        </ChartFrame>
    }
}
