//! The Field view's form: the researcher token, a site (or every site), a period, one
//! browser or model, a scenario to score the groups as; *Summarize* reads the period at a glance
//! ([`super::summary`]), *Load as a run* reads its requests as a trace file
//! (`take` gets it), *Download* saves that file
//! ([`crate::browser::use_field_collector`]).

use leptos::prelude::*;

use lab_core::field::summary::GroupBy;
use lab_core::measure::score::presets;

use super::summary::FieldSummary;
use crate::browser::use_field_collector::{FieldQuery, use_field_collector};

/// The field data form; `take` gets the trace file it reads.
#[component]
pub fn FieldSource(take: Callback<Vec<web_sys::File>>) -> impl IntoView {
    let c = use_field_collector();
    let q = RwSignal::new(FieldQuery { scenario: "chat".into(), ..FieldQuery::default() });
    let field =
        move |set: fn(&mut FieldQuery, String)| move |ev| q.update(|q| set(q, event_target_value(&ev)));
    let by = RwSignal::new(GroupBy::Day);
    let query = move || q.get_untracked();
    let load = move |_| c.load(query(), Callback::new(move |file| take.run(vec![file])));
    let set_by = move |ev| by.set(GroupBy::from_name(&event_target_value(&ev)).unwrap_or(GroupBy::Day));
    view! {
        <div class="field-source" data-testid="field-source">
            <label>"Researcher token "
                <input type="password" autocomplete="off" data-testid="field-token" prop:value=move || c.token.value.get()
                    on:change=move |ev| c.set_token(event_target_value(&ev))/>
            </label>
            <button type="button" class="secondary" data-testid="field-sites" on:click=move |_| c.list_sites()>"List sites"</button>
            <label>"Site "
                <select data-testid="field-site" on:change=field(|q, v| q.site = v)>
                    <option value="">"every site"</option>
                    {move || c.sites.get().into_iter().map(|s| view! {
                        <option value=s.name.clone()>{format!("{} ({} requests)", s.name, s.requests)}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"From "<input type="date" data-testid="field-from" on:change=field(|q, v| q.from = v)/></label>
            <label>"to "<input type="date" data-testid="field-to" on:change=field(|q, v| q.to = v)/></label>
            <label>"Browser "<input type="text" placeholder="any" data-testid="field-browser" on:change=field(|q, v| q.browser = v)/></label>
            <label>"Model "<input type="text" placeholder="any" data-testid="field-model" on:change=field(|q, v| q.model = v)/></label>
            <label>"Summarize by "
                <select data-testid="field-by" on:change=set_by>
                    {GroupBy::ALL.into_iter().map(|g| view! { <option value=g.name()>{g.name()}</option> }).collect_view()}
                </select>
            </label>
            <label>"Score groups as "
                <select data-testid="field-scenario" on:change=field(|q, v| q.scenario = v)>
                    {presets().into_iter().map(|s| view! { <option value=s.id.clone()>{s.name.clone()}</option> }).collect_view()}
                    <option value="">"no scenario"</option>
                </select>
            </label>
            <button type="button" class="secondary" data-testid="field-summarize" disabled=move || c.busy.get() on:click=move |_| c.summarize(query(), by.get_untracked())>"Summarize"</button>
            <button type="button" data-testid="field-load" disabled=move || c.busy.get() on:click=load>"Load as a run"</button>
            <button type="button" class="secondary" data-testid="field-download" hidden=move || c.last.with(Option::is_none)
                on:click=move |_| c.download_last()>"Download the period as a trace file"</button>
            {move || c.error.get().map(|e| view! { <p class="error" role="alert" data-testid="field-error">{e}</p> })}
        </div>
        {move || c.summary.get().map(|s| view! { <FieldSummary summary=s/> })}
    }
}
