//! Shows what bounds the accuracy of this browser's measurements.

use leptos::prelude::*;

use crate::browser::clock;

/// Clock resolution and cross-origin isolation of the page.
#[component]
pub fn EnvironmentBadge() -> impl IntoView {
    let isolated = clock::cross_origin_isolated();
    let resolution = clock::timer_resolution_ms();
    let resolution_text = match resolution {
        Some(r) if r < 0.1 => format!("{:.0} µs", r * 1000.0),
        Some(r) => format!("{r:.2} ms"),
        None => "unknown".to_string(),
    };
    let title = if isolated {
        "The page is cross-origin isolated, so the browser gives it a fine-grained clock."
    } else {
        "Not cross-origin isolated: the browser coarsens the clock to about 0.1 ms. Serve the lab with `latency-lab serve` for the fine clock."
    };
    view! {
        <div class="env-badge" title=title data-testid="environment">
            <span data-testid="timer-resolution">"Clock step " {resolution_text}</span>
            <span data-testid="cross-origin-isolated" class:warn=!isolated>
                {if isolated { "cross-origin isolated" } else { "not isolated" }}
            </span>
        </div>
    }
}
