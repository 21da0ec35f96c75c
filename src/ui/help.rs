//! A view's help: a link to its page of the book (`/docs/`,
//! [`lab_core::share::route::View::help_page`]), opened beside the lab.

use lab_core::share::route::View;
use leptos::prelude::*;

/// "Help" for the view `of`.
#[component]
pub fn HelpLink(of: View) -> impl IntoView {
    view! {
        <a class="help-link" href=of.help_page() target="_blank" rel="noopener"
            data-testid=format!("help-{}", of.id())
            aria-label=format!("Help: the {} page of the lab's docs (opens in a new tab)", of.label())>
            "Help"
        </a>
    }
}
