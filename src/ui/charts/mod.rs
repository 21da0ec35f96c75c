//! SVG charts over `lab_core::chart::scale` scales and `lab_core::chart::plot` data.
//! Plain SVG components rather than a charting crate: the charts are few
//! and simple, the scales and data are tested natively in `lab-core`, and
//! the bundle stays small. Every mark carries a `<title>` (hover shows its
//! values; screen readers read it), every chart has a text label and
//! exports as SVG or PNG ([`ChartFrame`]).

mod bars;
mod lines;
mod prefill;
mod rate;
mod requests;

pub use bars::{GoodputChart, HistogramChart, PercentileBarsChart, ScoreBreakdownChart};
pub use lines::{CdfChart, ConcurrencyChart, TimelineChart};
pub use prefill::PrefillChart;
pub use rate::WorkloadRateChart;
pub use requests::RequestsOverTimeChart;

use lab_core::chart::LinearScale;
use leptos::prelude::*;

use crate::browser::chart_export;

/// Chart width in SVG units (the chart scales to its box).
pub const W: f64 = 640.0;
/// Chart height.
pub const H: f64 = 240.0;
/// Margins: left, right, top, bottom.
pub const M: (f64, f64, f64, f64) = (56.0, 16.0, 12.0, 36.0);

/// The x scale over the plot area.
pub fn x_scale(domain: (f64, f64)) -> LinearScale {
    LinearScale::new(domain, (M.0, W - M.1))
}

/// The y scale over the plot area (up is larger).
pub fn y_scale(domain: (f64, f64)) -> LinearScale {
    LinearScale::new(domain, (H - M.3, M.2))
}

/// A tick label in ms or s.
pub fn fmt_ms(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{:.1} s", v / 1000.0)
    } else if v.abs() >= 10.0 || v == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Axes of a chart: scales, ticks, tick formats and axis labels.
pub struct Axes<'a> {
    /// x scale.
    pub x: &'a LinearScale,
    /// x ticks.
    pub xt: &'a [f64],
    /// y scale.
    pub y: &'a LinearScale,
    /// y ticks.
    pub yt: &'a [f64],
    /// x tick format.
    pub fx: fn(f64) -> String,
    /// y tick format.
    pub fy: fn(f64) -> String,
    /// x axis label.
    pub xl: &'a str,
    /// y axis label.
    pub yl: &'a str,
}

impl Axes<'_> {
    /// Grid lines, axis lines, tick labels and axis labels.
    pub fn render(&self) -> impl IntoView + use<> {
        let (x0, x1) = (M.0, W - M.1);
        let (y0, y1) = (H - M.3, M.2);
        let xs: Vec<(f64, String)> = self.xt.iter().map(|&t| (self.x.map(t), (self.fx)(t))).collect();
        let ys: Vec<(f64, String)> = self.yt.iter().map(|&t| (self.y.map(t), (self.fy)(t))).collect();
        let (xl, yl) = (self.xl.to_string(), self.yl.to_string());
        let mid = (y0 + y1) / 2.0;
        view! {
            <g class="grid">
                {ys.iter().map(|(py, _)| view! { <line x1=x0 x2=x1 y1=*py y2=*py></line> }).collect_view()}
            </g>
            <g class="axis">
                <line x1=x0 x2=x1 y1=y0 y2=y0></line>
                <line x1=x0 x2=x0 y1=y0 y2=y1></line>
                {xs.into_iter().map(|(px, l)| view! { <text x=px y=y0 + 14.0 text-anchor="middle">{l}</text> }).collect_view()}
                {ys.into_iter().map(|(py, l)| view! { <text x=x0 - 6.0 y=py + 4.0 text-anchor="end">{l}</text> }).collect_view()}
                <text class="label" x=(x0 + x1) / 2.0 y=H - 4.0 text-anchor="middle">{xl}</text>
                <text class="label" x=12.0 y=mid text-anchor="middle" transform=format!("rotate(-90 12 {mid})")>{yl}</text>
            </g>
        }
    }
}

/// A chart's frame: title, the SVG, a legend or note, export buttons.
#[component]
pub fn ChartFrame(
    /// Title shown above the chart.
    title: String,
    /// Test id and export file name.
    id: String,
    children: Children,
) -> impl IntoView {
    let figure = NodeRef::<leptos::html::Figure>::new();
    let error = RwSignal::new(None::<String>);
    let export = move |png: bool| {
        let Some(f) = figure.get_untracked() else { return };
        let Some(svg) = f.query_selector("svg").ok().flatten() else { return };
        let name = format!("latency-lab-{}", f.get_attribute("data-testid").unwrap_or_default());
        let r = if png {
            chart_export::download_png(&svg, &name)
        } else {
            chart_export::download_svg(&svg, &name)
        };
        error.set(r.err().map(|e| e.to_string()));
    };
    view! {
        <figure class="chart" data-testid=id node_ref=figure>
            <figcaption>
                <span class="chart-title">{title}</span>
                <span class="chart-export">
                    <button type="button" class="link" data-testid="export-svg" on:click=move |_| export(false)>"SVG"</button>
                    " · "
                    <button type="button" class="link" data-testid="export-png" on:click=move |_| export(true)>"PNG"</button>
                </span>
            </figcaption>
            {children()}
            {move || error.get().map(|m| view! { <p class="error" role="alert">{m}</p> })}
        </figure>
    }
}
