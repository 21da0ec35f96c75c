//! The shell around the views: the header (clock facts, theme), the tabs,
//! the app-wide notice and the first-visit landing.

use lab_core::share::route::{Route, View};
use leptos::prelude::*;

use super::EnvironmentBadge;
use crate::browser::use_route::UseRoute;
use crate::browser::use_theme::use_theme;

/// The header.
#[component]
pub fn AppHeader() -> impl IntoView {
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
    }
}

/// Light, dark or the system's theme.
#[component]
fn ThemeToggle() -> impl IntoView {
    let theme = use_theme();
    view! {
        <button type="button" class="secondary theme-toggle" data-testid="theme-toggle" on:click=move |_| theme.cycle()
            aria-label=move || format!("Colour theme: {} (change)", theme.theme.get())>
            {move || format!("Theme: {}", theme.theme.get())}
        </button>
    }
}

/// The views, one link each (each view has its own address).
#[component]
pub fn TabBar(current: Signal<View>) -> impl IntoView {
    let route = expect_context::<UseRoute>();
    view! {
        <nav class="tabs" aria-label="Views">
            {View::ALL.into_iter().map(|v| view! {
                <a
                    href=Route::View(v).fragment()
                    class="tab"
                    data-testid=format!("tab-{}", v.id())
                    aria-current=move || (current.get() == v).then_some("page")
                    on:click=move |ev| {
                        ev.prevent_default();
                        route.go(Route::View(v));
                    }
                >
                    {v.label()}
                </a>
            }).collect_view()}
            // The shown view's page of the book (one link for every view,
            // here rather than in each: the on-demand modules carry none).
            <a class="help-link" href=move || current.get().help_page() target="_blank" rel="noopener"
                data-testid="help-link" title="This view's page of the lab's docs (opens in a new tab)">
                "Help ↗"
            </a>
        </nav>
    }
}

/// A message for the whole app (opened links), dismissable.
#[component]
pub fn Notice(notice: RwSignal<Option<String>>) -> impl IntoView {
    move || {
        notice.get().map(|m| {
            view! {
                <p class="notice app-notice" role="status" data-testid="app-notice">
                    {m}" "<button type="button" class="link" on:click=move |_| notice.set(None)>"Dismiss"</button>
                </p>
            }
        })
    }
}

/// First visit: what the lab shows, in two sentences, above the replay
/// that plays it (kept short, so the playing panes are in the first screen).
#[component]
pub fn Landing(shown: Signal<bool>) -> impl IntoView {
    view! {
        <section class="landing" data-testid="landing" hidden=move || !shown.get()>
            <p class="landing-lead">
                <strong>"Side by side, answers that a tokens-per-second figure calls alike do not feel alike."</strong>
                " Users feel the wait and the rhythm, not the average rate: Latency Lab measures and scores exactly that."
            </p>
        </section>
    }
}

/// First visit: where to go next, under the replay.
#[component]
pub fn LandingPaths(shown: Signal<bool>) -> impl IntoView {
    let route = expect_context::<UseRoute>();
    let go = move |v: View| route.go(Route::View(v));
    view! {
        <section class="landing landing-next" hidden=move || !shown.get()>
            <div class="landing-paths" role="group" aria-label="Start here">
                <button type="button" data-testid="go-live" on:click=move |_| go(View::Live)>"Measure your endpoint"</button>
                <button type="button" class="secondary" data-testid="go-replay" on:click=move |_| {
                    // The story above is the replay already: this leads to choosing its panes.
                    go(View::Replay);
                    crate::browser::page::focus("[data-testid=pane-0-source]");
                }>"Choose your own profiles to compare"</button>
                <button type="button" class="secondary" data-testid="go-import" on:click=move |_| go(View::Import)>"Import benchmark results"</button>
                <button type="button" class="secondary" data-testid="go-study" on:click=move |_| go(View::Study)>"Run a UX study"</button>
            </div>
        </section>
    }
}
