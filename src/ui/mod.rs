//! Components. They render signals; computing is `lab_core`'s job and
//! browser access is [`crate::browser`]'s.

mod analysis_panel;
mod analyze;
mod environment;
mod format;
mod scenario_card;

use leptos::prelude::*;

pub use analysis_panel::AnalysisPanel;
pub use analyze::AnalyzeView;
pub use environment::EnvironmentBadge;

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
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
        <main class="app-main">
            <AnalyzeView/>
        </main>
        <footer class="app-footer">
            "Metrics follow vLLM's benchmark definitions; percentiles are computed like numpy's."
        </footer>
    }
}
