//! The study server panel: the researcher token (once per browser
//! session), Publish, and each published version of the study with its
//! participant link, its counts and Close (state:
//! [`crate::browser::study::UseStudyServer`]).

use leptos::prelude::*;

use crate::browser::study::UseStudyServer;

/// Publishing to the `latency-lab serve` that served the page.
#[component]
pub fn ServerPanel(server: UseStudyServer) -> impl IntoView {
    let s = server;
    let has_token = move || !s.token.value.with(String::is_empty);
    view! {
        <div class="study-server" data-testid="study-server">
            <p class="hint">
                "Publish the study to this latency-lab serve: participants open one short link, and every answer is stored on the server as it is given."
            </p>
            <div class="row-actions">
                <label>"Researcher token "
                    <input type="password" autocomplete="off" data-testid="study-token" placeholder="llr_… (printed by serve on first start)"
                        prop:value=move || s.token.value.get() on:input=move |ev| s.set_token(event_target_value(&ev))/>
                </label>
                <button type="button" data-testid="study-publish" disabled=move || !has_token() || s.busy.get() || s.published_as_is()
                    title=move || s.published_as_is().then_some("This design is published and open: its link is below.")
                    on:click=move |_| s.publish()>"Publish to the study server"</button>
            </div>
            <p class="hint">"The token stays in this tab only (never in exports or links). It is in the data directory's researcher-token file."</p>
            {move || s.message.get().map(|m| view! { <p class="notice" role="status" data-testid="server-message">{m}</p> })}
            <ul class="published" data-testid="published-list">
                {move || s.published.get().into_iter().map(|p| {
                    let link = UseStudyServer::link(&p.id, p.url.as_deref());
                    let id = p.id.clone();
                    view! {
                        <li data-testid="published-row" data-id=p.id.clone()>
                            <input type="text" readonly data-testid="published-link" size=link.chars().count() prop:value=link.clone() aria-label="Participant link"/>
                            " "<button type="button" class="secondary" data-testid="published-copy" on:click=move |_| crate::browser::page::copy(&link)>"Copy"</button>
                            <span data-testid="published-counts">{format!(" {} participant(s), {} answer(s) · {}", p.participants, p.answers, if p.open { "open" } else { "closed" })}</span>
                            {p.open.then(|| view! {
                                " "<button type="button" class="secondary" data-testid="published-close" on:click=move |_| s.close(id.clone())>"Close"</button>
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </div>
    }
}
