//! Line charts: token timelines, CDFs, latency against concurrency.

use lab_core::chart::plot::Timeline;
use lab_core::chart::{nice_ticks, polyline, step_polyline};
use lab_core::measure::sweep::Level;
use leptos::prelude::*;

use super::{Axes, ChartFrame, H, M, W, fmt_ms, x_scale, y_scale};

/// Most markers (hover points) drawn per series.
pub const MAX_MARKERS: usize = 400;

fn count(v: f64) -> String {
    format!("{v:.0}")
}

fn share(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// Cumulative tokens against time, one line per series (arrival solid,
/// paint dashed), stalls shaded.
#[component]
pub fn TimelineChart(
    /// Test id.
    id: String,
    /// Title.
    title: String,
    /// `(name, timeline)` per series (at most 4 colours; more reuse them).
    series: Vec<(String, Timeline)>,
) -> impl IntoView {
    let end = series.iter().map(|(_, t)| t.end_ms()).fold(1.0, f64::max);
    let top = series.iter().map(|(_, t)| t.tokens()).fold(1.0, f64::max);
    let xt = nice_ticks(0.0, end, 6);
    let yt = nice_ticks(0.0, top, 5);
    let x = x_scale((0.0, xt.last().copied().unwrap_or(end).max(end)));
    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
    let points: usize = series.iter().map(|(_, t)| t.arrival.len()).sum();
    let stalls: usize = series.iter().map(|(_, t)| t.stalls.len()).sum();
    let axes = Axes {
        x: &x,
        xt: &xt,
        y: &y,
        yt: &yt,
        fx: fmt_ms,
        fy: count,
        xl: "time since request sent (ms)",
        yl: "tokens",
    }
    .render();
    let label = format!(
        "Tokens over time for {} series: {}",
        series.len(),
        series
            .iter()
            .map(|(n, t)| format!("{n}, {:.0} tokens in {:.0} ms", t.tokens(), t.end_ms()))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let legend: Vec<(usize, String)> =
        series.iter().enumerate().map(|(i, (n, _))| (i % 4, n.clone())).collect();
    let marks = series
        .into_iter()
        .enumerate()
        .map(|(i, (name, t))| {
            let c = format!("s{}", i % 4);
            let step = t.arrival.len().div_ceil(MAX_MARKERS).max(1);
            let (y0, y1) = (H - M.3, M.2);
            view! {
                <g class=c.clone() data-series=i>
                    {t.stalls.iter().map(|&(a, b)| view! {
                        <rect class="stall" x=x.map(a) y=y1 width=(x.map(b) - x.map(a)).max(1.0) height=y0 - y1>
                            <title>{format!("{name}: stall of {:.0} ms at {:.0} ms", b - a, a)}</title>
                        </rect>
                    }).collect_view()}
                    {match t.answer_from {
                        // Reasoning, then the answer: two segments of one line.
                        Some(k) => view! {
                            <polyline class="line reasoning" data-testid="timeline-reasoning" points=step_polyline_xy(&t.arrival[..=k], &x, &y)>
                                <title>{format!("{name}: reasoning until {:.0} ms", t.arrival[k].0)}</title>
                            </polyline>
                            <polyline class="line" data-testid="timeline-answer" points=step_polyline_xy(&t.arrival[k..], &x, &y)></polyline>
                        }.into_any(),
                        None => view! { <polyline class="line" points=step_polyline_xy(&t.arrival, &x, &y)></polyline> }.into_any(),
                    }}
                    {(!t.paint.is_empty()).then(|| view! { <polyline class="paint" points=step_polyline_xy(&t.paint, &x, &y)></polyline> })}
                    {t.arrival.iter().step_by(step).map(|&(ms, n)| view! {
                        <circle class="dot" data-testid="timeline-point" cx=x.map(ms) cy=y.map(n) r="2.2">
                            <title>{format!("{name}: {n:.0} tokens at {ms:.0} ms")}</title>
                        </circle>
                    }).collect_view()}
                </g>
            }
        })
        .collect_view();
    view! {
        <ChartFrame title=title id=id>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-points=points data-stalls=stalls>
                {axes}
                {marks}
            </svg>
            <p class="legend">
                {legend.into_iter().map(|(c, n)| view! { <span class=format!("key s{c}")>{n}</span> }).collect_view()}
                <span class="key-note">"solid: arrived · dotted: reasoning · dashed: painted · shaded: stalls"</span>
            </p>
        </ChartFrame>
    }
}

/// Steps: a cumulative count holds until the next arrival.
fn step_polyline_xy(
    pts: &[(f64, f64)],
    x: &lab_core::chart::LinearScale,
    y: &lab_core::chart::LinearScale,
) -> String {
    let mut out = Vec::with_capacity(pts.len() * 2 + 1);
    let mut last = 0.0;
    out.push((0.0, 0.0));
    for &(t, n) in pts {
        out.push((t, last));
        out.push((t, n));
        last = n;
    }
    polyline(&out, x, y)
}

/// Empirical CDFs, one step line per series.
#[component]
pub fn CdfChart(
    /// Test id.
    id: String,
    /// Title.
    title: String,
    /// x axis label.
    unit: String,
    /// `(name, cdf points)` per series.
    series: Vec<(String, Vec<(f64, f64)>)>,
) -> impl IntoView {
    let lo = series.iter().flat_map(|(_, c)| c.first().map(|p| p.0)).fold(f64::INFINITY, f64::min);
    let hi = series.iter().flat_map(|(_, c)| c.last().map(|p| p.0)).fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo.min(0.0), hi) } else { (0.0, 1.0) };
    let xt = nice_ticks(lo, hi, 6);
    let x = x_scale((xt.first().copied().unwrap_or(lo), xt.last().copied().unwrap_or(hi).max(hi)));
    let y = y_scale((0.0, 1.0));
    let yt = [0.0, 0.25, 0.5, 0.75, 1.0];
    let points: usize = series.iter().map(|(_, c)| c.len()).sum();
    let axes =
        Axes {
            x: &x, xt: &xt, y: &y, yt: &yt, fx: fmt_ms, fy: share, xl: &unit, yl: "share of values ≤ x"
        }
        .render();
    let label = format!("Cumulative distribution of {unit} for {} series", series.len());
    let legend: Vec<(usize, String)> =
        series.iter().enumerate().map(|(i, (n, _))| (i % 4, n.clone())).collect();
    let marks = series
        .into_iter()
        .enumerate()
        .map(|(i, (name, c))| {
            let step = c.len().div_ceil(MAX_MARKERS).max(1);
            view! {
                <g class=format!("s{}", i % 4) data-series=i>
                    <polyline class="line" points=step_polyline(&c, &x, &y)></polyline>
                    {c.iter().step_by(step).map(|&(v, s)| view! {
                        <circle class="dot" data-testid="cdf-point" cx=x.map(v) cy=y.map(s) r="1.8">
                            <title>{format!("{name}: {:.1}% ≤ {v:.1}", s * 100.0)}</title>
                        </circle>
                    }).collect_view()}
                </g>
            }
        })
        .collect_view();
    view! {
        <ChartFrame title=title id=id>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-points=points>
                {axes}
                {marks}
            </svg>
            <p class="legend">{legend.into_iter().map(|(c, n)| view! { <span class=format!("key s{c}")>{n}</span> }).collect_view()}</p>
        </ChartFrame>
    }
}

/// A line of the concurrency chart: name and the value it takes per level.
type LevelLine = (&'static str, fn(&Level) -> Option<f64>);

/// TTFT and E2EL percentiles against concurrency, with the saturation point.
#[component]
pub fn ConcurrencyChart(levels: Vec<Level>, knee: Option<u32>) -> impl IntoView {
    // Concurrency levels double: evenly spaced by position.
    let n = levels.len().max(2);
    let x = x_scale((0.0, (n - 1) as f64));
    let lines: [LevelLine; 4] = [
        ("TTFT P50", |l| l.ttft_ms.map(|s| s.p50)),
        ("TTFT P95", |l| l.ttft_ms.map(|s| s.p95)),
        ("E2EL P50", |l| l.e2el_ms.map(|s| s.p50)),
        ("E2EL P95", |l| l.e2el_ms.map(|s| s.p95)),
    ];
    let top = levels.iter().flat_map(|l| lines.iter().filter_map(move |(_, f)| f(l))).fold(1.0, f64::max);
    let yt = nice_ticks(0.0, top, 5);
    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
    let xt: Vec<f64> = (0..levels.len()).map(|i| i as f64).collect();
    let labels: Vec<String> = levels.iter().map(|l| l.concurrency.to_string()).collect();
    let axes =
        Axes { x: &x, xt: &[], y: &y, yt: &yt, fx: fmt_ms, fy: fmt_ms, xl: "requests at once", yl: "ms" }
            .render();
    let knee_x = knee.and_then(|k| levels.iter().position(|l| l.concurrency == k)).map(|i| x.map(i as f64));
    let label = format!(
        "TTFT and E2EL percentiles at {} concurrency levels{}",
        labels.len(),
        knee.map(|k| format!("; saturation at {k}")).unwrap_or_default()
    );
    let mut points = 0;
    let marks = lines
        .iter()
        .enumerate()
        .map(|(i, (name, f))| {
            let pts: Vec<(f64, f64, u32)> = levels
                .iter()
                .enumerate()
                .filter_map(|(k, l)| Some((k as f64, f(l)?, l.concurrency)))
                .collect();
            points += pts.len();
            let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.1)).collect();
            view! {
                <g class=format!("s{i}") data-series=i>
                    <polyline class="line" points=polyline(&xy, &x, &y)></polyline>
                    {pts.into_iter().map(|(k, v, c)| view! {
                        <circle class="dot" data-testid="concurrency-point" cx=x.map(k) cy=y.map(v) r="3.5">
                            <title>{format!("{name} at {c} at once: {v:.0} ms")}</title>
                        </circle>
                    }).collect_view()}
                </g>
            }
        })
        .collect_view();
    view! {
        <ChartFrame title="Latency as concurrency grows".to_string() id="chart-concurrency".to_string()>
            <svg viewBox=format!("0 0 {W} {H}") role="img" data-points=points aria-label=label>
                {axes}
                <g class="axis">
                    {xt.iter().zip(labels).map(|(&k, l)| view! { <text x=x.map(k) y=H - M.3 + 14.0 text-anchor="middle">{l}</text> }).collect_view()}
                </g>
                {knee_x.map(|kx| view! {
                    <line class="knee" data-testid="knee" x1=kx x2=kx y1=M.2 y2=H - M.3><title>"saturation point"</title></line>
                    <text class="label" x=kx + 4.0 y=M.2 + 10.0>"saturation"</text>
                })}
                {marks}
            </svg>
            <p class="legend">
                {lines.iter().enumerate().map(|(i, (n, _))| view! { <span class=format!("key s{i}")>{*n}</span> }).collect_view()}
            </p>
        </ChartFrame>
    }
}
