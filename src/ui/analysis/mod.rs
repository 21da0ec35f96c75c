//! The analysis of one run: facts, the metrics table, charts, goodput under
//! editable SLOs and scenario scores with editable weights. The metrics were
//! computed once (`lab_core::measure::run`); editing SLOs or weights only
//! re-scores them.

mod charts;
mod feel;
mod origins;
mod scores;
mod table;

use lab_core::measure::analysis::{Analysis, AnalysisOptions};
use lab_core::measure::run::MeasuredRun;
use lab_core::measure::score::Scenario;
use lab_core::measure::slo::{SloError, SloSet};
use leptos::prelude::*;

use charts::AnalysisCharts;
use feel::FeelFacts;
use origins::Origins;
use scores::{GoodputSection, ScenarioCard};
use table::{Facts, MetricsTable};

/// Analysis of a run, titled `name`.
#[component]
pub fn AnalysisPanel(name: String, run: MeasuredRun) -> impl IntoView {
    let run = StoredValue::new(run);
    let slo_text = RwSignal::new(SloSet::standard().to_string());
    let slos: Memo<Result<SloSet, SloError>> = Memo::new(move |_| slo_text.with(|t| t.parse::<SloSet>()));
    let all = crate::browser::use_scenarios::scenarios_in_context();
    let scenarios = RwSignal::new(all.get_untracked());
    // A scenario saved meanwhile (a study's perceived tiers) joins at once.
    Effect::new(move |_| scenarios.set(all.get()));
    let analysis = Memo::new(move |_| {
        let opts = AnalysisOptions {
            metrics: run.with_value(|r| r.config),
            slos: slos.get().ok(),
            scenarios: scenarios.get(),
        };
        run.with_value(|r| {
            Analysis::from_metrics(
                r.analysis.metrics.clone(),
                r.trace.meta.label.clone(),
                r.trace.meta.model.clone(),
                &opts,
            )
        })
    });
    let set_weight =
        Callback::new(move |(scenario, target, weight): (usize, usize, f64)| -> Result<(), String> {
            let next: Scenario = scenarios.with_untracked(|s| {
                s.get(scenario)
                    .ok_or("no such scenario".to_string())?
                    .with_weight(target, weight)
                    .map_err(|e| e.to_string())
            })?;
            scenarios.update(|s| s[scenario] = next);
            Ok(())
        });
    view! {
        <div class="analysis" data-testid="analysis">
            <h3 data-testid="analysis-title">{name} {move || analysis.with(|a| a.label.clone().map(|l| format!(" — {l}")))}</h3>
            <Facts analysis=analysis.into()/>
            {analysis.with_untracked(|a| a.metrics.early_stamps.sentence()).map(|s| view! {
                <p class="warn" data-testid="early-stamps">{s}</p>
            })}
            <MetricsTable analysis=analysis.into()/>
            <FeelFacts analysis=analysis.into()/>
            <Origins run=run/>
            <AnalysisCharts run=run analysis=analysis.into() slos=Signal::derive(move || slos.get().ok())/>
            <GoodputSection slo_text=slo_text slos=slos analysis=analysis.into()/>
            <section class="scores" data-testid="scores">
                <h4>"Scenario scores"</h4>
                {move || analysis.with(|a| a.scores.clone()).into_iter().enumerate().map(|(i, s)| {
                    let weights = scenarios.with_untracked(|all| all.get(i).map(|s| s.targets.iter().map(|t| t.weight).collect()).unwrap_or_default());
                    view! { <ScenarioCard index=i score=s weights=weights set_weight=set_weight/> }
                }).collect_view()}
            </section>
        </div>
    }
}
