//! The Field view: what real users' browsers saw, read from the field
//! collector of the `latency-lab serve` that served this page (requests
//! the field snippet, or any OpenTelemetry GenAI instrumentation, sent to
//! `POST /v1/traces`). A site and period at a glance: requests over time,
//! percentiles with their intervals by day, browser or model
//! ([`summary`]); then the period loaded as a run ([`source`]): every
//! figure, score and share within the SLOs, its P50/P90/P99 request played
//! in the Replay lab, two periods compared ("since the deploy"), and the
//! period downloaded as a trace file for `analyze` and studies.

mod source;
mod summary;

use leptos::prelude::*;

use crate::browser::importer::Importer;
use crate::browser::library::Library;
use crate::browser::use_field_collector::is_collector_file;
use crate::ui::import::{CompareRuns, FileJobs, ImportedRunCard, SloForm};
use source::FieldSource;

/// The Field view.
#[component]
pub fn FieldView() -> impl IntoView {
    let importer = expect_context::<Importer>();
    let lib = expect_context::<Library>();
    // A period read is kept in the library like an imported file.
    let take = Callback::new(move |chosen: Vec<web_sys::File>| {
        chosen.iter().for_each(|f| lib.save_file(f));
        importer.import(chosen);
    });
    let periods =
        move || importer.runs.get().into_iter().filter(|r| is_collector_file(&r.file)).collect::<Vec<_>>();
    view! {
        <section class="panel" data-testid="field-view">
            <h2>"Field data: what your users' browsers saw"</h2>
            <p class="hint">
                "Requests your pages sent with the field snippet ("<code>"packages/field"</code>
                "), or any OpenTelemetry GenAI instrumentation, to this server's "<code>"POST /v1/traces"</code>
                ". Summarize a site's period, then load it as a run to see every figure, play its P50, P90 "
                "or P99 request, and compare it with another period. OTLP files from a collector, Jaeger or "
                "Tempo go to the Import view."
            </p>
            <FieldSource take=take/>
            <SloForm/>
            <FileJobs keep=is_collector_file/>
            <Show when=move || !periods().is_empty()>
                <CompareRuns/>
                <div class="imported-runs">
                    <For each=periods
                        key=|r| (r.key, r.digest.analysis.goodput.as_ref().map(|g| g.slos.clone()), r.digest.comparison.len())
                        children=move |r| view! { <ImportedRunCard run=r/> }/>
                </div>
            </Show>
        </section>
    }
}
