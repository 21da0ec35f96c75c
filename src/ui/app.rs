//! The whole app: the hooks that own its state, provided as context, and
//! the shell around the views. Every view stays mounted (hidden when another
//! is shown), so a run keeps streaming while you look at another view; the
//! URL says which one shows ([`lab_core::share::route`]).

use lab_core::share::route::{Route, View};
use leptos::prelude::*;

use super::shell::{AppHeader, Landing, LandingPaths, Notice, TabBar};
use super::{LazyView, LiveView, ParticipantMode, ReplayView};
use crate::browser::importer::MODULE_FILES;
use crate::browser::library::use_library;
use crate::browser::study::use_participant_flow;
use crate::browser::use_commands::{UseCommandsOptions, use_commands};
use crate::browser::use_links::{UseLinksOptions, use_links};
use crate::browser::use_module::{ANALYZE_VIEW, FIELD_VIEW, IMPORT_VIEW, LIBRARY_VIEW, Module, STUDY_MODULE};
use crate::browser::use_prefetch::use_prefetch;
use crate::browser::use_replay_lab::{UseReplayLabOptions, use_replay_lab};
use crate::browser::use_route::use_route;
use crate::browser::use_run_announcer::use_run_announcer;
use crate::browser::use_scenarios::use_scenarios;
use crate::browser::use_session_runs::use_session_runs;

/// The files of every on-demand module: the runs views', the import
/// worker's (which the Import view starts) and the study view's.
const ON_DEMAND: [&str; 7] = [
    IMPORT_VIEW.script,
    IMPORT_VIEW.wasm,
    MODULE_FILES[0],
    MODULE_FILES[1],
    MODULE_FILES[2],
    STUDY_MODULE.script,
    STUDY_MODULE.wasm,
];

/// The app.
#[component]
pub fn App() -> impl IntoView {
    let route = use_route();
    let landed = route.route.get_untracked() == Route::Landing;
    let lib = use_library();
    let runs = use_session_runs();
    let view = Memo::new(move |_| route.route.get().view());
    let active = Signal::derive(move || view.get() == View::Replay);
    let lab = use_replay_lab(UseReplayLabOptions { lib, runs, active, autoplay: landed });
    let flow = use_participant_flow(lib, route);
    let notice = RwSignal::new(None::<String>);
    use_links(UseLinksOptions { route, lab, flow, notice });
    let announcer = use_run_announcer();
    provide_context(announcer);
    use_commands(UseCommandsOptions { flow, lab, route, announcer });
    provide_context(route);
    provide_context(lib);
    provide_context(runs);
    provide_context(lab);
    provide_context(flow);
    provide_context(use_scenarios());
    // Once the landing replay has played to its end (never during it: the
    // downloads would compete with its releases; never for a participant),
    // the on-demand modules come in idle time: opening their view is instant.
    let played = Signal::derive(move || {
        !lab.engine.finished.with(Vec::is_empty) && !flow.is_open() && route.route.get() != Route::Participate
    });
    use_prefetch(played, &ON_DEMAND);
    let shown = move |v: View| move || view.get() != v;
    // Opened as `#<view>` only: a participant (`#participate`, `#s/<id>`)
    // never downloads the views a researcher or an engineer works in.
    let lazy = move |m: Module, v: View| {
        view! { <LazyView module=m shown=Signal::derive(move || route.route.get() == Route::View(v))/> }
    };
    view! {
        <div class="app-page" inert=move || flow.is_open()>
            // The first stop of the keyboard, shown when focused: past the
            // header and the tabs to the view (a button, not a link: the
            // address's fragment names the view).
            <button type="button" class="skip-link" data-testid="skip-link"
                on:click=move |_| crate::browser::page::focus("main.app-main")>"Skip to content"</button>
            <AppHeader/>
            <TabBar current=view.into()/>
            <Notice notice=notice/>
            <Landing shown=Signal::derive(move || route.route.get() == Route::Landing)/>
            <main class="app-main" tabindex="-1">
                <div hidden=shown(View::Replay)><ReplayView/></div>
                <LandingPaths shown=Signal::derive(move || route.route.get() == Route::Landing)/>
                <div hidden=shown(View::Live)><LiveView/></div>
                <div hidden=shown(View::Import)>{lazy(IMPORT_VIEW, View::Import)}</div>
                <div hidden=shown(View::Field)>{lazy(FIELD_VIEW, View::Field)}</div>
                <div hidden=shown(View::Analyze)>{lazy(ANALYZE_VIEW, View::Analyze)}</div>
                <div hidden=shown(View::Study)>{lazy(STUDY_MODULE, View::Study)}</div>
                <div hidden=shown(View::Library)>{lazy(LIBRARY_VIEW, View::Library)}</div>
            </main>
            <footer class="app-footer">
                "Metrics follow vLLM's benchmark definitions; percentiles are computed like numpy's."
            </footer>
        </div>
        <ParticipantMode/>
    }
}
