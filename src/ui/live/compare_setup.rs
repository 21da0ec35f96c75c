//! Compare endpoints, the set-up (in the runs module, loaded when it is
//! opened): the endpoints to compare, each added from Live's form as it
//! stands (read from storage, its key kept in this page's memory only),
//! the rounds, and Compare, which asks Live to run it
//! (`Command::Compare`; the run: [`crate::browser::live::CompareSpec`]).

use lab_core::measure::compare::{MAX_ENDPOINTS, letter};
use lab_core::share::command::{Command, CompareSide};
use leptos::prelude::*;

use crate::browser::live::MAX_ROUNDS;
use crate::browser::use_commands;
use crate::browser::use_stored_endpoint::use_stored_endpoint;

/// Rounds asked for until the user says otherwise.
const DEFAULT_ROUNDS: u32 = 10;

/// The comparison's set-up.
#[component]
pub fn CompareEndpoints() -> impl IntoView {
    let form = use_stored_endpoint();
    let sides: RwSignal<Vec<CompareSide>> = RwSignal::new(Vec::new());
    let rounds = RwSignal::new(DEFAULT_ROUNDS);
    let add = move |_| {
        let side = form.side();
        sides.update(|l| {
            l.truncate(MAX_ENDPOINTS - 1);
            l.push(side);
        });
    };
    let start = move |_| {
        // One request for all: the form's as it is now.
        let now = form.config.get_untracked();
        let mut list = sides.get_untracked();
        list.iter_mut().for_each(|s| s.config.ask_as(&now));
        use_commands::send(&Command::Compare { sides: list, rounds: rounds.get_untracked() });
    };
    view! {
        <p class="hint">
            "The same prompt (the form's) sent to 2–4 endpoints of any wire, one after another, round after round. "
            "Set the form to an endpoint and add it, then the next. The results show each endpoint's TTFT, first paint, "
            "TPOT, QoE and scenario scores, and how each differs from A, with 95% intervals. Keys stay in this page's memory."
        </p>
        <ol class="compare-list" data-testid="compare-list">
            {move || sides.get().into_iter().enumerate().map(|(i, s)| view! {
                <li data-testid="compare-endpoint">
                    <b>{letter(i).to_string()}</b>" · "{s.config.describe()}" "
                    <button type="button" class="link" aria-label=format!("remove endpoint {}", letter(i))
                        on:click=move |_| sides.update(|l| { l.remove(i); })>"remove"</button>
                </li>
            }).collect_view()}
        </ol>
        <div class="row">
            <button type="button" class="secondary" data-testid="compare-add"
                prop:disabled=move || sides.with(|l| l.len() >= MAX_ENDPOINTS) on:click=add>"Add the endpoint above"</button>
            <label>"Rounds "
                <input type="number" min="1" max=MAX_ROUNDS.to_string() data-testid="compare-rounds" prop:value=move || rounds.get().to_string()
                    on:input=move |ev| if let Ok(n) = event_target_value(&ev).trim().parse() { rounds.set(n) }/>
            </label>
            <button type="button" data-testid="compare-start" prop:disabled=move || sides.with(|l| l.len() < 2)
                on:click=start>"Compare"</button>
        </div>
    }
}
