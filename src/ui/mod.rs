//! Components. They render signals; computing is `lab_core`'s job and
//! browser access is [`crate::browser`]'s.

mod analysis_panel;
mod analyze;
mod environment;
mod format;
pub mod import;
pub mod live;
pub mod replay;
pub mod runs;
mod scenario_card;

use leptos::prelude::*;

pub use analysis_panel::AnalysisPanel;
pub use analyze::AnalyzeView;
pub use environment::EnvironmentBadge;
pub use import::ImportView;
pub use live::LiveView;
pub use replay::ReplayView;
pub use runs::{RunList, RunLog};

/// The app's views, as named in the URL fragment.
const TABS: [(&str, &str); 5] = [
    ("replay", "Replay"),
    ("live", "Live"),
    ("import", "Import results"),
    ("analyze", "Analyze a trace"),
    ("runs", "Runs"),
];

/// Switching views from anywhere (provided as context by the app).
#[derive(Clone, Copy)]
pub struct Nav {
    /// The view shown.
    pub tab: RwSignal<String>,
}

impl Nav {
    /// Shows a view and names it in the URL fragment.
    pub fn go(&self, id: &str) {
        self.tab.set(id.to_string());
        if let Some(w) = web_sys::window() {
            let _ = w.location().set_hash(id);
        }
    }
}

/// Panes handed to the replay lab by another view (e.g. an imported run's
/// typical and worst requests); the replay view takes them, plays them and
/// clears this.
#[derive(Clone, Copy)]
pub struct ReplayInbox(pub RwSignal<Option<Vec<replay::PaneConfig>>>);

/// The tab named in the URL fragment, if any.
fn tab_from_hash() -> Option<&'static str> {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let name = hash.trim_start_matches('#');
    TABS.iter().find(|(id, _)| *id == name).map(|(id, _)| *id)
}

/// The whole app. Every view stays mounted (hidden when not chosen), so a run
/// keeps streaming while you look at another tab.
#[component]
pub fn App() -> impl IntoView {
    provide_context(RunLog::new());
    provide_context(crate::browser::importer::use_importer());
    provide_context(ReplayInbox(RwSignal::new(None)));
    let linked = tab_from_hash();
    // A first visit (no fragment) lands on the replay story, playing.
    let tab = RwSignal::new(linked.unwrap_or("replay").to_string());
    let nav = Nav { tab };
    provide_context(nav);
    let replay_active = Signal::derive(move || tab.get() == "replay");
    let select = move |id: &'static str| nav.go(id);
    view! {
        <header class="app-header" data-testid="app-header">
            <div class="brand">
                <h1>"Latency Lab"</h1>
                <p class="tagline">
                    "Tokens per second hides what users feel. Measure time to first token, "
                    "the cadence of the stream and the total wait, and score them per use case."
                </p>
            </div>
            <EnvironmentBadge/>
        </header>
        <nav class="tabs" aria-label="Views">
            {TABS.iter().map(|&(id, name)| view! {
                <button
                    type="button"
                    data-testid=format!("tab-{id}")
                    aria-current=move || (tab.get() == id).then_some("page")
                    on:click=move |_| select(id)
                >
                    {name}
                </button>
            }).collect_view()}
        </nav>
        <main class="app-main">
            <div hidden=move || tab.get() != "replay"><ReplayView active=replay_active autoplay=linked.is_none()/></div>
            <div hidden=move || tab.get() != "live"><LiveView/></div>
            <div hidden=move || tab.get() != "import"><ImportView/></div>
            <div hidden=move || tab.get() != "analyze"><AnalyzeView/></div>
            <div hidden=move || tab.get() != "runs"><RunList/></div>
        </main>
        <footer class="app-footer">
            "Metrics follow vLLM's benchmark definitions; percentiles are computed like numpy's."
        </footer>
    }
}
