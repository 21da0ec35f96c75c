//! A threshold study's results: the pooled psychometric curve with its
//! band and answers, the fit in figures and in a sentence, each
//! participant's staircase, and the button that turns the fit into a
//! scenario's tiers. Chart data comes from `lab_core::chart::threshold`.

use lab_core::chart::threshold::{MARGIN, curve, staircase};
use lab_core::share::threshold_report::tick_anchor;
use lab_core::study::Study;
use lab_core::study::threshold::analysis::{ParticipantThreshold, ThresholdSummary, spread_heading};
use lab_core::study::threshold::design::Dimension;
use lab_core::study::threshold::psychometric::{Fitted, Point};
use leptos::prelude::*;

use crate::browser::study::UseStudyResults;
use crate::browser::use_scenarios::UseScenarios;

const CURVE: (f64, f64) = (520.0, 220.0);
const STAIR: (f64, f64) = (480.0, 150.0);

fn design_range(study: Signal<Study>) -> (f64, f64) {
    study.with(|s| s.threshold.as_ref().map_or((1.0, 10.0), |t| t.range))
}

/// The threshold study's results.
#[component]
pub fn ThresholdResults(
    summary: ThresholdSummary,
    study: Signal<Study>,
    results: UseStudyResults,
) -> impl IntoView {
    let answers: usize = summary.participants.iter().map(|p| p.track.len()).sum();
    let dim = study.with(|s| s.threshold.as_ref().map_or(Dimension::Ttft, |t| t.dimension));
    view! {
        <div data-testid="threshold-results">
            <p data-testid="results-participants">{format!("{} participant(s), {answers} answer(s).", summary.participants.len())}</p>
            <p class="finding" data-testid="threshold-sentence">{summary.sentence.clone().unwrap_or_else(|| "No answers yet.".into())}</p>
            {summary.pooled.clone().map(|f| view! { <PooledFit fit=f data=summary.data.clone() dim=dim study=study/> })}
            <h4>"Per participant"</h4>
            <div class="staircases">
                {summary.participants.iter().cloned().map(|p| view! { <Staircase p=p dim=dim study=study/> }).collect_view()}
            </div>
            <PerceivedScenario results=results/>
        </div>
    }
}

/// The pooled curve and its figures.
#[component]
fn PooledFit(fit: Fitted, data: Vec<Point>, dim: Dimension, study: Signal<Study>) -> impl IntoView {
    let c = curve(&fit, &data, design_range(study), CURVE.0, CURVE.1);
    let reference = study.with(|s| {
        let t = s.threshold.as_ref()?;
        Some(t.dimension.reference_value(&t.reference_profile().ok()?))
    });
    let weber = reference
        .and_then(|r| fit.weber(r))
        .map_or("–".into(), |(w, (lo, hi))| format!("{w:.2} (95% CI {lo:.2}–{hi:.2})"));
    let f = fit.fit;
    view! {
        <svg class="chart" data-testid="threshold-curve" viewBox=format!("0 0 {} {}", CURVE.0, CURVE.1) role="img"
            aria-label="Share of answers picking the reference by level, with the fitted curve and its 95% band">
            <polygon class="band" points=c.band/>
            <polyline class="fit" fill="none" points=c.curve/>
            <line class="threshold" x1=c.threshold_x x2=c.threshold_x y1="8" y2=CURVE.1 - 20.0/>
            {c.chance_y.map(|y| view! { <line class="chance" data-testid="threshold-chance" x1=MARGIN x2=CURVE.0 - 8.0 y1=y y2=y/> })}
            {c.dots.into_iter().map(|(x, y, r, label)| view! { <circle data-testid="threshold-dot" cx=x cy=y r=r><title>{label}</title></circle> }).collect_view()}
            {c.x_ticks.into_iter().map(|(x, l)| view! { <text x=x y=CURVE.1 - 4.0 text-anchor=tick_anchor(x, CURVE.0)>{l}</text> }).collect_view()}
            <text x=CURVE.0 - 8.0 y=CURVE.1 - 24.0 text-anchor="end">{format!("difference from the reference ({})", dim.unit())}</text>
            <text x="40" y="18">"share picking the reference"</text>
            {c.y_ticks.into_iter().map(|(y, l)| view! { <text x="2" y=y + 4.0>{l}</text> }).collect_view()}
        </svg>
        <table class="metrics" data-testid="threshold-fit">
            <tbody>
                <tr data-testid="threshold-alpha" data-value=f.alpha data-low=fit.alpha_ci.0 data-high=fit.alpha_ci.1 data-beta=f.beta>
                    <th scope="row">"threshold α (half notice)"</th><td>{format!("{} (95% CI {}–{})", dim.format(f.alpha), dim.number(fit.alpha_ci.0), dim.number(fit.alpha_ci.1))}</td></tr>
                <tr><th scope="row">"slope β"</th><td data-testid="threshold-beta">{fit.beta_text()}</td></tr>
                <tr><th scope="row">"lapse rate λ"</th><td>{format!("{:.1}%", f.lapse * 100.0)}</td></tr>
                <tr><th scope="row">"Weber fraction α / reference"</th><td data-testid="threshold-weber">{weber}</td></tr>
            </tbody>
        </table>
    }
}

/// One participant's staircase and threshold.
#[component]
fn Staircase(p: ParticipantThreshold, dim: Dimension, study: Signal<Study>) -> impl IntoView {
    let plot =
        staircase(&p.track, &p.reversals, p.threshold.map(|t| t.0), design_range(study), STAIR.0, STAIR.1);
    let procedure = study.with(|s| s.threshold.as_ref().map(|t| t.procedure));
    let spread = procedure.as_ref().and_then(|pr| Some((spread_heading(pr), p.spread(pr)?)));
    let text = match (p.threshold, spread) {
        (Some((t, _)), Some((what, (lo, hi)))) => {
            format!("{} ({what}: {}–{})", dim.format(t), dim.number(lo), dim.number(hi))
        }
        (Some((t, _)), None) => dim.format(t),
        (None, _) => "not yet".into(),
    };
    view! {
        <figure class="staircase" data-testid="threshold-participant" data-threshold=p.threshold.map(|t| t.0)>
            <figcaption>{format!("{}: {} pairs, threshold {text}", p.participant, p.track.len())}</figcaption>
            <svg class="chart" data-testid="threshold-staircase" viewBox=format!("0 0 {} {}", STAIR.0, STAIR.1) role="img"
                aria-label="Level by trial; filled: the reference picked; ringed: a reversal">
                <polyline class="track" fill="none" points=plot.line/>
                {plot.threshold_y.map(|y| view! { <line class="threshold" x1="36" x2=STAIR.0 y1=y y2=y/> })}
                {plot.dots.into_iter().map(|d| view! {
                    <circle cx=d.x cy=d.y r=if d.reversal { 4.5 } else { 3.0 } class:correct=d.correct class:reversal=d.reversal/>
                }).collect_view()}
                {plot.ticks.into_iter().map(|(y, l)| view! { <text x="2" y=y + 4.0>{l}</text> }).collect_view()}
            </svg>
        </figure>
    }
}

/// Turns the fit into a scenario's tiers.
#[component]
fn PerceivedScenario(results: UseStudyResults) -> impl IntoView {
    let scenarios = expect_context::<UseScenarios>();
    let base = RwSignal::new("chat".to_string());
    view! {
        <div class="row-actions" data-testid="threshold-scenario-box">
            <label>"Scenario "
                <select data-testid="threshold-base" prop:value=move || base.get() on:change=move |ev| base.set(event_target_value(&ev))>
                    {move || scenarios.all.get().into_iter().map(|s| view! { <option value=s.id.clone()>{s.name}</option> }).collect_view()}
                </select>
            </label>
            <button type="button" data-testid="threshold-scenario" on:click=move |_| results.perceived_scenario(&base.get_untracked(), scenarios)>
                "Place its tiers where people notice"
            </button>
        </div>
        {move || results.scenario_note.get().map(|m| view! { <p class="notice" role="status" data-testid="threshold-scenario-note">{m}</p> })}
        <CustomScenarios/>
    }
}

/// The saved custom scenarios: download (for `latency-lab analyze
/// --scenario-file`) or remove.
#[component]
fn CustomScenarios() -> impl IntoView {
    let s = expect_context::<UseScenarios>();
    let problem = RwSignal::new(None::<String>);
    view! {
        <ul class="custom-scenarios" data-testid="custom-scenarios" hidden=move || s.custom.with(Vec::is_empty)>
            {move || s.custom.get().into_iter().map(|c| {
                let (a, b) = (c.id.clone(), c.id.clone());
                view! {
                    <li data-testid="custom-scenario">{format!("{} ", c.name)}
                        <button type="button" class="link" on:click=move |_| problem.set(s.download(&a).err().map(|e| e.to_string()))>"Download JSON"</button>
                        " "<button type="button" class="link" on:click=move |_| problem.set(s.remove(&b).err().map(|e| e.to_string()))>"Remove"</button>
                    </li>
                }
            }).collect_view()}
        </ul>
        {move || problem.get().or_else(|| s.problem.get()).map(|m| view! { <p class="error" role="alert">{m}</p> })}
    }
}
