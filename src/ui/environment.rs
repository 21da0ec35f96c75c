//! Shows what bounds the accuracy of this browser's measurements: the
//! clock's step, whether the page is cross-origin isolated and, when it is
//! not, what that costs and how to get the fine clock back.

use lab_core::trace::client::{
    Browser, HEADERS_FILE_ISOLATION, ISOLATION_HEADERS, NGINX_ISOLATION, clock_note,
};
use leptos::prelude::*;

use crate::browser::clock;

/// Clock resolution and cross-origin isolation of the page.
#[component]
pub fn EnvironmentBadge() -> impl IntoView {
    let isolated = clock::cross_origin_isolated();
    let browser = clock::user_agent().as_deref().and_then(Browser::from_user_agent);
    let note = clock_note(isolated, clock::timer_resolution_ms(), browser.as_ref());
    let Some(lost) = note.lost else {
        return view! {
            <div class="env-badge" data-testid="environment"
                title="The page is cross-origin isolated, so the browser gives it its finest clock.">
                <span data-testid="clock-note">{note.short}</span>
            </div>
        }
        .into_any();
    };
    let headers = ISOLATION_HEADERS.map(|(k, v)| format!("{k}: {v}")).join("\n");
    view! {
        <details class="env-badge warn" data-testid="environment">
            <summary data-testid="clock-note">{note.short}</summary>
            <div class="env-help" data-testid="clock-help">
                <p data-testid="clock-lost">{lost}</p>
                <p>"To get the fine clock back, serve the lab with " <code>"latency-lab serve"</code>
                   " (" <code>"./lab serve"</code> "), or send these two headers with every file of the app:"</p>
                <pre>{headers}</pre>
                <p>"nginx:"</p>
                <pre data-testid="clock-nginx">{NGINX_ISOLATION}</pre>
                <p>"A static host that reads a " <code>"_headers"</code> " file (Netlify, Cloudflare Pages):"</p>
                <pre>{HEADERS_FILE_ISOLATION}</pre>
                <p>"A live endpoint on another origin keeps working either way when it allows CORS."</p>
            </div>
        </details>
    }
    .into_any()
}
