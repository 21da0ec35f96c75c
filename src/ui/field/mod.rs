//! The Field view: what real users' browsers saw, read from the field
//! collector of the `latency-lab serve` that served this page (requests
//! the field snippet, or any OpenTelemetry GenAI instrumentation, sent to
//! `POST /v1/traces`). A site and period at a glance: requests over time,
//! percentiles with their intervals by day, browser, model or site
//! ([`summary`]); then the period loaded as a run ([`source`]): every
//! figure, score and share within the SLOs, its P50/P90/P99 request played
//! in the Replay lab, two periods compared ("since the deploy"), and the
//! period downloaded as a trace file for `analyze` and studies.

mod source;
mod summary;

pub use summary::FieldSummary;

use leptos::prelude::*;

use crate::browser::importer::Importer;
use crate::browser::use_field_collector::is_collector_file;
use crate::ui::import::{CompareRuns, FileJobs, RunCards, SloForm, keep_and_import};
use source::FieldSource;

/// The Field view.
#[component]
pub fn FieldView() -> impl IntoView {
    let importer = expect_context::<Importer>();
    // A period read is kept in the library like an imported file.
    let take = keep_and_import();
    let periods = move || importer.runs.with(|r| r.iter().any(|r| is_collector_file(&r.file)));
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
            <Show when=periods>
                <CompareRuns/>
                <RunCards keep=is_collector_file/>
            </Show>
        </section>
    }
}
