//! Components. They render signals; computing is `lab_core`'s job and
//! browser access is [`crate::browser`]'s.

mod analysis_panel;
mod analyze;
pub mod charts;
mod environment;
mod format;
pub mod import;
pub mod library;
pub mod live;
pub mod replay;
pub mod runs;
mod scenario_card;
pub mod study;

use leptos::prelude::*;

pub use analysis_panel::AnalysisPanel;
pub use analyze::AnalyzeView;
pub use environment::EnvironmentBadge;
pub use import::ImportView;
pub use library::LibraryView;
pub use live::LiveView;
pub use replay::ReplayView;
pub use runs::RunLog;
pub use study::{ParticipantFlow, ParticipantMode, StudyView};

use lab_core::share::link::Shared;
use leptos::task::spawn_local;

use crate::browser::library::{Library, use_library};

/// The app's views, as named in the URL fragment.
const TABS: [(&str, &str); 6] = [
    ("replay", "Replay"),
    ("live", "Live"),
    ("import", "Import results"),
    ("analyze", "Analyze a trace"),
    ("study", "UX study"),
    ("library", "Library"),
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

/// Panes of a shared link, ready for the replay lab.
fn shared_panes(panes: &[lab_core::share::link::SharedPane]) -> Result<Vec<replay::PaneConfig>, String> {
    panes
        .iter()
        .take(crate::browser::scheduler::MAX_PANES)
        .map(|p| {
            let profile = lab_core::replay::profile::preset(&p.profile)
                .map_or_else(|| p.profile.parse::<lab_core::replay::profile::Profile>(), Ok)
                .map_err(|e| format!("pane \"{}\": {e}", p.title))?;
            Ok(replay::PaneConfig {
                title: p.title.clone(),
                source: replay::PaneSource::Profile(replay::ProfileDraft {
                    profile,
                    prompt_tokens: p.prompt_tokens,
                }),
            })
        })
        .collect()
}

/// Opens what the page's link asks for: a shared preset or study, or the
/// participant session in progress (`#participate`, after a reload).
fn open_link(
    nav: Nav,
    inbox: ReplayInbox,
    flow: ParticipantFlow,
    lib: Library,
    notice: RwSignal<Option<String>>,
) {
    match crate::browser::share::opened_with() {
        Some(Ok(Shared::Panes { title, panes })) => match shared_panes(&panes) {
            Ok(list) if !list.is_empty() => {
                notice.set(Some(format!("Opened the shared replay “{title}”.")));
                inbox.0.set(Some(list));
                nav.go("replay");
            }
            Ok(_) => notice.set(Some("The shared link holds no pane.".into())),
            Err(e) => notice.set(Some(format!("The shared link cannot play: {e}"))),
        },
        Some(Ok(Shared::Study(study))) => {
            nav.tab.set("study".into());
            flow.begin(lib, *study);
        }
        Some(Err(e)) => notice.set(Some(format!("The shared link is damaged: {e}"))),
        None => {
            let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
            if hash == "#participate" {
                nav.tab.set("study".into());
                spawn_local(async move {
                    match crate::browser::study_store::active(&lib).await {
                        Some((study, session)) => flow.resume(study, session),
                        None => nav.go("study"),
                    }
                });
            }
        }
    }
}

/// Light, dark or the system's theme.
#[component]
fn ThemeToggle() -> impl IntoView {
    use crate::browser::theme;
    let current = RwSignal::new(theme::saved());
    theme::apply(&current.get_untracked());
    let next = move |_| {
        let i = theme::THEMES.iter().position(|t| *t == current.get_untracked()).unwrap_or(0);
        let t = theme::THEMES[(i + 1) % theme::THEMES.len()].to_string();
        theme::apply(&t);
        current.set(t);
    };
    view! {
        <button type="button" class="secondary theme-toggle" data-testid="theme-toggle" on:click=next
            aria-label=move || format!("Colour theme: {} (change)", current.get())>
            {move || format!("Theme: {}", current.get())}
        </button>
    }
}

/// First visit: what the lab shows, in two sentences, and where to go.
#[component]
fn Landing() -> impl IntoView {
    let nav = expect_context::<Nav>();
    let shown = RwSignal::new(true);
    let go = move |id: &'static str| {
        shown.set(false);
        nav.go(id);
    };
    view! {
        <section class="landing" data-testid="landing" hidden=move || !shown.get()>
            <p class="landing-lead">
                <strong>"These answers stream at the same tokens per second, yet they do not feel the same."</strong>
                " One makes you wait before the first word, another stutters; users feel the wait and the rhythm, not the average rate, "
                "and Latency Lab measures and scores exactly that."
            </p>
            <div class="landing-paths" role="group" aria-label="Start here">
                <button type="button" data-testid="go-live" on:click=move |_| go("live")>"Measure your endpoint"</button>
                <button type="button" class="secondary" data-testid="go-replay" on:click=move |_| go("replay")>"Compare profiles side by side"</button>
                <button type="button" class="secondary" data-testid="go-import" on:click=move |_| go("import")>"Import benchmark results"</button>
                <button type="button" class="secondary" data-testid="go-study" on:click=move |_| go("study")>"Run a UX study"</button>
            </div>
        </section>
    }
}

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
    let lib = use_library();
    provide_context(lib);
    provide_context(crate::browser::importer::use_importer());
    let inbox = ReplayInbox(RwSignal::new(None));
    provide_context(inbox);
    let flow = ParticipantFlow::new();
    provide_context(flow);
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let linked =
        tab_from_hash().or((hash.starts_with("#share=") || hash == "#participate").then_some("study"));
    // A first visit (no fragment) lands on the replay story, playing.
    let tab = RwSignal::new(linked.unwrap_or("replay").to_string());
    let nav = Nav { tab };
    provide_context(nav);
    let notice = RwSignal::new(None::<String>);
    open_link(nav, inbox, flow, lib, notice);
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
            <div class="header-tools">
                <EnvironmentBadge/>
                <ThemeToggle/>
            </div>
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
        {move || notice.get().map(|m| view! {
            <p class="notice app-notice" role="status" data-testid="app-notice">
                {m}" "<button type="button" class="link" on:click=move |_| notice.set(None)>"Dismiss"</button>
            </p>
        })}
        {linked.is_none().then(|| view! { <Landing/> })}
        <main class="app-main" inert=move || flow.is_open()>
            <div hidden=move || tab.get() != "replay"><ReplayView active=replay_active autoplay=linked.is_none()/></div>
            <div hidden=move || tab.get() != "live"><LiveView/></div>
            <div hidden=move || tab.get() != "import"><ImportView/></div>
            <div hidden=move || tab.get() != "analyze"><AnalyzeView/></div>
            <div hidden=move || tab.get() != "study"><StudyView/></div>
            <div hidden=move || tab.get() != "library"><LibraryView/></div>
        </main>
        <ParticipantMode/>
        <footer class="app-footer">
            "Metrics follow vLLM's benchmark definitions; percentiles are computed like numpy's."
        </footer>
    }
}
