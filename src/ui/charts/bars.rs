//! Bar charts: histograms, percentiles against SLOs, goodput per SLO,
//! scenario score breakdowns.

use lab_core::chart::plot::{Bin, MetricBars, score_segments};
use lab_core::chart::{LinearScale, nice_ticks};
use lab_core::measure::score::ScenarioScore;
use lab_core::measure::slo::Goodput;
use leptos::prelude::*;

use super::{Axes, ChartFrame, H, M, W, fmt_ms, x_scale, y_scale};

fn count(v: f64) -> String {
    format!("{v:.0}")
}

/// A histogram of values (counts per bin).
#[component]
pub fn HistogramChart(
    /// Test id.
    id: String,
    /// Title.
    title: String,
    /// x axis label.
    unit: String,
    /// The bins.
    bins: Vec<Bin>,
) -> impl IntoView {
    let lo = bins.first().map_or(0.0, |b| b.lo);
    let hi = bins.last().map_or(1.0, |b| b.hi);
    let top = bins.iter().map(|b| b.count).max().unwrap_or(1).max(1) as f64;
    let x = x_scale((lo, hi));
    let yt = nice_ticks(0.0, top, 4);
    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
    let xt = nice_ticks(lo, hi, 6).into_iter().filter(|t| *t >= lo && *t <= hi).collect::<Vec<_>>();
    let axes =
        Axes { x: &x, xt: &xt, y: &y, yt: &yt, fx: fmt_ms, fy: count, xl: &unit, yl: "count" }.render();
    let total: usize = bins.iter().map(|b| b.count).sum();
    let n = bins.len();
    let label = format!("Histogram of {total} {unit} values in {n} bins from {lo:.1} to {hi:.1}");
    view! {
        <ChartFrame title=title id=id>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-bars=n data-total=total>
                {axes}
                {bins.into_iter().map(|b| {
                    let (x0, x1) = (x.map(b.lo), x.map(b.hi));
                    view! {
                        <rect class="bar" data-testid="histogram-bar" x=x0 + 0.5 width=(x1 - x0 - 1.0).max(0.5)
                            y=y.map(b.count as f64) height=(y.map(0.0) - y.map(b.count as f64)).max(0.0)>
                            <title>{format!("{:.1}–{:.1}: {}", b.lo, b.hi, b.count)}</title>
                        </rect>
                    }
                }).collect_view()}
            </svg>
        </ChartFrame>
    }
}

/// P50–P99 bars of TTFT, TPOT and E2EL, each against its SLO line (bars
/// over the SLO are drawn in the "poor" colour). One small chart per
/// metric, since their scales differ by orders of magnitude.
#[component]
pub fn PercentileBarsChart(metrics: Vec<MetricBars>) -> impl IntoView {
    let n: usize = metrics.iter().map(|m| m.bars.len()).sum();
    let panel_w = W / metrics.len().max(1) as f64;
    let label = metrics
        .iter()
        .map(|m| {
            format!(
                "{}: {}{}",
                m.metric,
                m.bars.iter().map(|(l, v)| format!("{l} {v:.0} ms")).collect::<Vec<_>>().join(", "),
                m.slo_ms.map(|s| format!(" (SLO {s:.0} ms)")).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    view! {
        <ChartFrame title="Percentiles against the SLOs".to_string() id="chart-percentiles".to_string()>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label data-bars=n>
                {metrics.into_iter().enumerate().map(|(k, m)| {
                    let left = k as f64 * panel_w;
                    let top = m.bars.iter().map(|b| b.1).chain(m.slo_ms).fold(1.0, f64::max);
                    let yt = nice_ticks(0.0, top, 4);
                    let y = y_scale((0.0, yt.last().copied().unwrap_or(top).max(top)));
                    let x0 = left + 44.0;
                    let bw = (panel_w - 56.0) / m.bars.len().max(1) as f64;
                    let slo = m.slo_ms;
                    view! {
                        <g class="panel-group" data-metric=m.metric.clone()>
                            <g class="grid">{yt.iter().map(|t| view! { <line x1=x0 x2=left + panel_w - 8.0 y1=y.map(*t) y2=y.map(*t)></line> }).collect_view()}</g>
                            <g class="axis">
                                {yt.iter().map(|t| view! { <text x=x0 - 4.0 y=y.map(*t) + 4.0 text-anchor="end">{fmt_ms(*t)}</text> }).collect_view()}
                                <text class="label" x=x0 + (panel_w - 56.0) / 2.0 y=H - 4.0 text-anchor="middle">{format!("{} (ms)", m.metric)}</text>
                            </g>
                            {m.bars.iter().enumerate().map(|(i, (l, v))| {
                                let over = slo.is_some_and(|s| *v > s);
                                view! {
                                    <rect class=if over { "bar over" } else { "bar" } data-testid="percentile-bar"
                                        x=x0 + i as f64 * bw + 3.0 width=(bw - 6.0).max(1.0) y=y.map(*v) height=(y.map(0.0) - y.map(*v)).max(0.0)>
                                        <title>{format!("{} {l}: {v:.1} ms{}", m.metric, slo.map(|s| format!(" (SLO {s:.0} ms{})", if over { ", missed" } else { ", met" })).unwrap_or_default())}</title>
                                    </rect>
                                    <text class="label" x=x0 + (i as f64 + 0.5) * bw y=H - M.3 + 14.0 text-anchor="middle">{l.clone()}</text>
                                }
                            }).collect_view()}
                            {slo.map(|s| view! {
                                <line class="slo" data-testid="slo-line" x1=x0 x2=left + panel_w - 8.0 y1=y.map(s) y2=y.map(s)><title>{format!("{} SLO: {s:.0} ms", m.metric)}</title></line>
                            })}
                        </g>
                    }
                }).collect_view()}
            </svg>
        </ChartFrame>
    }
}

/// Share of requests meeting each SLO, and all of them (goodput).
#[component]
pub fn GoodputChart(goodput: Goodput) -> impl IntoView {
    let mut rows: Vec<(String, f64, usize)> = goodput
        .per_slo
        .iter()
        .map(|o| (format!("{} ≤ {} ms", o.slo.metric, o.slo.threshold_ms), o.ratio, o.met))
        .collect();
    rows.push(("all SLOs (goodput)".into(), goodput.ratio, goodput.good));
    let n = rows.len();
    let h = n as f64 * 28.0 + 30.0;
    let x = LinearScale::new((0.0, 1.0), (150.0, W - 40.0));
    let total = goodput.total;
    let label = rows.iter().map(|(l, r, _)| format!("{l}: {:.0}%", r * 100.0)).collect::<Vec<_>>().join(", ");
    view! {
        <ChartFrame title="Requests meeting each SLO".to_string() id="chart-goodput".to_string()>
            <svg viewBox=format!("0 0 {W} {h}") role="img" data-bars=n aria-label=label>
                <g class="grid">{[0.0, 0.25, 0.5, 0.75, 1.0].iter().map(|t| view! { <line x1=x.map(*t) x2=x.map(*t) y1=4.0 y2=h - 22.0></line> }).collect_view()}</g>
                <g class="axis">{[0.0, 0.5, 1.0].iter().map(|t| view! { <text x=x.map(*t) y=h - 8.0 text-anchor="middle">{format!("{:.0}%", t * 100.0)}</text> }).collect_view()}</g>
                {rows.into_iter().enumerate().map(|(i, (l, r, met))| {
                    let y = 6.0 + i as f64 * 28.0;
                    view! {
                        <text class="label" x=144.0 y=y + 15.0 text-anchor="end">{l.clone()}</text>
                        <rect class="lost" x=x.map(0.0) y=y width=x.map(1.0) - x.map(0.0) height=20.0></rect>
                        <rect class=if i + 1 == n { "bar s2" } else { "bar" } data-testid="goodput-bar" x=x.map(0.0) y=y width=(x.map(r) - x.map(0.0)).max(0.0) height=20.0>
                            <title>{format!("{l}: {met} of {total} requests ({:.1}%)", r * 100.0)}</title>
                        </rect>
                        <text x=x.map(r).max(x.map(0.0)) + 4.0 y=y + 15.0>{format!("{:.0}%", r * 100.0)}</text>
                    }
                }).collect_view()}
            </svg>
        </ChartFrame>
    }
}

/// Each scenario's score as the points each target earned (coloured) and
/// lost (grey), adding up to 100.
#[component]
pub fn ScoreBreakdownChart(scores: Vec<ScenarioScore>) -> impl IntoView {
    let rows: Vec<(String, Option<f64>, Vec<lab_core::chart::plot::Segment>)> =
        scores.iter().map(|s| (s.name.clone(), s.score, score_segments(s))).collect();
    let n: usize = rows.iter().map(|r| r.2.len()).sum();
    let h = rows.len() as f64 * 30.0 + 30.0;
    let x = LinearScale::new((0.0, 100.0), (170.0, W - 50.0));
    let label = rows
        .iter()
        .map(|(name, s, _)| {
            format!("{name}: {}", s.map_or("not measurable".into(), |v| format!("{v:.0} of 100")))
        })
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <ChartFrame title="Where each scenario's score comes from".to_string() id="chart-scores".to_string()>
            <svg viewBox=format!("0 0 {W} {h}") role="img" data-segments=n aria-label=label>
                <g class="axis">{[0.0, 50.0, 100.0].iter().map(|t| view! { <text x=x.map(*t) y=h - 8.0 text-anchor="middle">{format!("{t:.0}")}</text> }).collect_view()}</g>
                {rows.into_iter().enumerate().map(|(i, (name, score, segs))| {
                    let y = 6.0 + i as f64 * 30.0;
                    let mut at = 0.0;
                    let mut lost_at = segs.iter().map(|s| s.points).sum::<f64>();
                    view! {
                        <text class="label" x=164.0 y=y + 15.0 text-anchor="end">{name.clone()}</text>
                        {segs.into_iter().enumerate().map(|(k, s)| {
                            let (x0, x1) = (x.map(at), x.map(at + s.points));
                            at += s.points;
                            let (l0, l1) = (x.map(lost_at), x.map(lost_at + s.lost));
                            lost_at += s.lost;
                            view! {
                                <rect class=format!("bar s{}", k % 4) data-testid="score-segment" x=x0 y=y width=(x1 - x0).max(0.0) height=20.0>
                                    <title>{format!("{name}, {}: {:.1} points earned", s.label, s.points)}</title>
                                </rect>
                                <rect class="lost" x=l0 y=y width=(l1 - l0).max(0.0) height=20.0>
                                    <title>{format!("{name}, {}: {:.1} points lost", s.label, s.lost)}</title>
                                </rect>
                            }
                        }).collect_view()}
                        <text x=x.map(100.0) + 4.0 y=y + 15.0>{score.map_or("–".into(), |v| format!("{v:.0}"))}</text>
                    }
                }).collect_view()}
            </svg>
        </ChartFrame>
    }
}
