//! The analysis of one run: metrics table, goodput under editable SLOs and
//! scenario scores with editable weights.

use lab_core::measure::metrics::{MetricsConfig, RunMetrics};
use lab_core::measure::score::{self, Scenario};
use lab_core::measure::slo::SloSet;
use lab_core::measure::stats::Summary;
use lab_core::trace::Trace;
use lab_core::{Analysis, AnalysisOptions};
use leptos::prelude::*;

use lab_core::chart::plot::{self, cdf, histogram, itl_values, percentile_bars};

use super::charts::{
    CdfChart, GoodputChart, HistogramChart, PercentileBarsChart, ScoreBreakdownChart, TimelineChart,
};
use super::format::{ms, opt, percent};

/// Requests overlaid in the token timeline.
pub const TIMELINE_REQUESTS: usize = 8;
use super::scenario_card::ScenarioCard;

/// Metrics table rows: test id, label, accessor.
type Row = (&'static str, &'static str, fn(&RunMetrics) -> Option<Summary>);

const ROWS: [Row; 8] = [
    ("ttfb", "TTFB (headers)", |m| m.ttfb_ms),
    ("ttft", "TTFT (first token)", |m| m.ttft_ms),
    ("ttfp", "First paint", |m| m.ttfp_ms),
    ("tpot", "TPOT", |m| m.tpot_ms),
    ("itl", "ITL", |m| m.itl_ms),
    ("itl_per_token", "ITL per token", |m| m.itl_per_token_ms),
    ("e2el", "E2EL", |m| m.e2el_ms),
    ("paint_lag", "Paint lag", |m| m.paint_lag_ms),
];

/// Table columns: test id / header, accessor.
type Column = (&'static str, fn(&Summary) -> f64);

const COLUMNS: [Column; 7] = [
    ("mean", |s| s.mean),
    ("median", |s| s.median),
    ("std", |s| s.std),
    ("p50", |s| s.p50),
    ("p90", |s| s.p90),
    ("p95", |s| s.p95),
    ("p99", |s| s.p99),
];

/// Analysis of a loaded trace.
#[component]
pub fn AnalysisPanel(name: String, trace: Trace) -> impl IntoView {
    let metrics = RunMetrics::of(&trace, &MetricsConfig::default());
    let label = trace.meta.label.clone();
    let model = trace.meta.model.clone();
    let slo_text = RwSignal::new(SloSet::standard().to_string());
    let slos = Memo::new(move |_| slo_text.with(|t| t.parse::<SloSet>()));
    let scenarios = RwSignal::new(score::presets());
    let analysis = Memo::new(move |_| {
        let opts = AnalysisOptions {
            metrics: MetricsConfig::default(),
            slos: slos.get().ok(),
            scenarios: scenarios.get(),
        };
        Analysis::from_metrics(metrics.clone(), label.clone(), model.clone(), &opts)
    });
    let m = move || analysis.with(|a| a.metrics.clone());
    let itl = itl_values(&trace, &MetricsConfig::default());
    let timelines = plot::timelines(&trace, &MetricsConfig::default(), TIMELINE_REQUESTS);
    let timeline_title = if trace.requests.len() > TIMELINE_REQUESTS {
        format!("Tokens over time (first {TIMELINE_REQUESTS} of {} requests)", trace.requests.len())
    } else {
        "Tokens over time".to_string()
    };
    view! {
        <div class="analysis" data-testid="analysis">
            <h3 data-testid="analysis-title">
                {name} {move || analysis.with(|a| a.label.clone().map(|l| format!(" — {l}")))}
            </h3>
            <ul class="facts">
                <li>"Requests " <b data-testid="requests">{move || m().requests}</b></li>
                <li>"Completed " <b data-testid="completed">{move || m().completed}</b></li>
                <li>"Failed " <b data-testid="failed">{move || m().failed}</b></li>
                <li>"Output tokens " <b data-testid="output-tokens">{move || m().output_tokens}</b></li>
                <li>
                    "System tokens/s "
                    <b data-testid="output-tokens-per-s">
                        {move || opt(m().output_tokens_per_s, |v| format!("{v:.2}"))}
                    </b>
                </li>
                <li>
                    "Stalls (>" {move || format!("{:.0}", m().stalls.threshold_ms)} " ms) "
                    <b data-testid="stalls">{move || m().stalls.count}</b>
                </li>
            </ul>
            <div class="table-scroll" tabindex="0">
                <table class="metrics" data-testid="metrics-table">
                    <caption>"Latency per request, in milliseconds"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"metric"</th>
                            {COLUMNS.iter().map(|(c, _)| view! { <th scope="col">{*c}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>
                        {ROWS
                            .iter()
                            .map(|&(id, label, get)| {
                                view! {
                                    <tr>
                                        <th scope="row">{label}</th>
                                        {COLUMNS
                                            .iter()
                                            .map(|&(col, pick)| {
                                                view! {
                                                    <td data-testid=format!("metric-{id}-{col}")>
                                                        {move || opt(get(&m()).map(|s| pick(&s)), ms)}
                                                    </td>
                                                }
                                            })
                                            .collect_view()}
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
            <section class="charts" data-testid="charts">
                <TimelineChart id="chart-timeline".to_string() title=timeline_title series=timelines/>
                <div class="chart-row">
                    <HistogramChart id="chart-itl-histogram".to_string() title="Inter-token latency".to_string() unit="ITL (ms)".to_string() bins=histogram(&itl, 24)/>
                    <CdfChart id="chart-itl-cdf".to_string() title="Inter-token latency, cumulative".to_string() unit="ITL (ms)".to_string() series=vec![("ITL".to_string(), cdf(&itl))]/>
                </div>
                {move || view! { <PercentileBarsChart metrics=percentile_bars(&m(), slos.get().ok().as_ref())/> }}
                {move || analysis.with(|a| a.goodput.clone()).map(|g| view! { <GoodputChart goodput=g/> })}
                {move || view! { <ScoreBreakdownChart scores=analysis.with(|a| a.scores.clone())/> }}
            </section>
            <section class="goodput">
                <h4>"Goodput"</h4>
                <label>
                    "SLOs (ms) "
                    <input
                        type="text"
                        data-testid="slo-input"
                        prop:value=move || slo_text.get()
                        on:change=move |ev| slo_text.set(event_target_value(&ev))
                    />
                </label>
                {move || match slos.get() {
                    Err(e) => view! { <p class="error" role="alert" data-testid="slo-error">{e.to_string()}</p> }.into_any(),
                    Ok(_) => {
                        let g = analysis.with(|a| a.goodput.clone());
                        view! {
                            <p data-testid="goodput">
                                {g.as_ref().map(|g| {
                                    format!("{} of requests meet every SLO ({} of {})", percent(g.ratio), g.good, g.total)
                                })}
                            </p>
                        }
                        .into_any()
                    }
                }}
            </section>
            <section class="scores" data-testid="scores">
                <h4>"Scenario scores"</h4>
                {move || {
                    analysis
                        .with(|a| a.scores.clone())
                        .into_iter()
                        .enumerate()
                        .map(|(i, s)| view! { <ScenarioCard index=i score=s scenarios=scenarios/> })
                        .collect_view()
                }}
            </section>
        </div>
    }
}

/// Replaces one target weight, keeping the scenario valid.
pub(super) fn set_weight(
    scenarios: RwSignal<Vec<Scenario>>,
    scenario: usize,
    target: usize,
    weight: f64,
) -> Result<(), String> {
    let mut next = scenarios.get_untracked();
    let s = next.get_mut(scenario).ok_or("no such scenario")?;
    let t = s.targets.get_mut(target).ok_or("no such target")?;
    t.weight = weight;
    s.validate().map_err(|e| e.to_string())?;
    scenarios.set(next);
    Ok(())
}
