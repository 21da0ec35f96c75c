//! The analysis' charts: token timelines, ITL histogram and CDF,
//! percentiles against the SLOs, goodput per SLO, score breakdown.

use lab_core::chart::plot::{cdf, histogram, itl_values, percentile_bars, timelines};
use lab_core::measure::analysis::Analysis;
use lab_core::measure::run::MeasuredRun;
use lab_core::measure::slo::SloSet;
use leptos::prelude::*;

use crate::ui::charts::{
    CdfChart, GoodputChart, HistogramChart, PercentileBarsChart, ScoreBreakdownChart, TimelineChart,
};

/// Requests overlaid in the token timeline.
pub const TIMELINE_REQUESTS: usize = 8;
/// Bins of the ITL histogram.
pub const HISTOGRAM_BINS: usize = 24;

/// The charts of a run.
#[component]
pub fn AnalysisCharts(
    run: StoredValue<MeasuredRun>,
    analysis: Signal<Analysis>,
    slos: Signal<Option<SloSet>>,
) -> impl IntoView {
    let (itl, series, n) = run.with_value(|r| {
        (
            itl_values(&r.trace, &r.config),
            timelines(&r.trace, &r.config, TIMELINE_REQUESTS),
            r.trace.requests.len(),
        )
    });
    let title = if n > TIMELINE_REQUESTS {
        format!("Tokens over time (first {TIMELINE_REQUESTS} of {n} requests)")
    } else {
        "Tokens over time".to_string()
    };
    view! {
        <section class="charts" data-testid="charts">
            <TimelineChart id="chart-timeline".to_string() title=title series=series/>
            <div class="chart-row">
                <HistogramChart id="chart-itl-histogram".to_string() title="Inter-token latency".to_string() unit="ITL (ms)".to_string() bins=histogram(&itl, HISTOGRAM_BINS)/>
                <CdfChart id="chart-itl-cdf".to_string() title="Inter-token latency, cumulative".to_string() unit="ITL (ms)".to_string() series=vec![("ITL".to_string(), cdf(&itl))]/>
            </div>
            {move || view! { <PercentileBarsChart metrics=percentile_bars(&analysis.with(|a| a.metrics.clone()), slos.get().as_ref())/> }}
            {move || analysis.with(|a| a.goodput.clone()).map(|g| view! { <GoodputChart goodput=g/> })}
            {move || view! { <ScoreBreakdownChart scores=analysis.with(|a| a.scores.clone())/> }}
        </section>
    }
}
