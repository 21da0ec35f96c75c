//! The runs module's root: the views that work on runs and files (Import
//! with the comparison, Field data, Analyze, the Library with reports), each mounted
//! where the main module shows it, sharing one importer, library and route
//! in the module's own Leptos runtime. They follow the main module through
//! the URL, IndexedDB and Web Storage; a replay they ask for is played by
//! the main module (`lab_core::share::command::Command::Replay`).

use leptos::prelude::*;

use super::live::{CompareEndpoints, FinishedRunResults};
use super::{AnalyzeView, FieldView, ImportView, LibraryView};
use crate::browser::importer::{Importer, use_importer};
use crate::browser::library::{Library, use_library, use_page_runs};
use crate::browser::use_route::{UseRoute, use_route};
use crate::browser::use_scenarios::{UseScenarios, use_scenarios};
use crate::browser::use_shared::use_shared;

/// What the module's views share.
#[derive(Clone, Copy)]
struct Shared {
    route: UseRoute,
    lib: Library,
    scenarios: UseScenarios,
    importer: Importer,
}

/// View `part` (`import`, `field`, `analyze`, `library`, `live-results` or
/// `live-compare`) as the
/// runs module mounts it.
#[component]
pub fn RunsModule(part: String) -> impl IntoView {
    let s = use_shared(|| {
        let lib = use_library();
        let scenarios = use_scenarios();
        let importer = use_importer();
        // Imports are scored in the worker: it gets the saved scenarios too.
        Effect::new(move |_| importer.set_scenarios(scenarios.custom.get()));
        Shared { route: use_route(), lib, scenarios, importer }
    });
    provide_context(s.route);
    provide_context(s.lib);
    provide_context(s.scenarios);
    provide_context(s.importer);
    match part.as_str() {
        "import" => {
            // The session's runs, for the comparison: read back only here.
            provide_context(use_shared(|| use_page_runs(s.lib)));
            view! { <ImportView/> }.into_any()
        }
        "field" => {
            provide_context(use_shared(|| use_page_runs(s.lib)));
            view! { <FieldView/> }.into_any()
        }
        "analyze" => view! { <AnalyzeView/> }.into_any(),
        "live-results" => view! { <FinishedRunResults/> }.into_any(),
        "live-compare" => view! { <CompareEndpoints/> }.into_any(),
        _ => view! { <LibraryView/> }.into_any(),
    }
}
