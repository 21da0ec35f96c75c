//! One library entry: select, rename, tag, what it holds, open, download,
//! report; and the row of a replay playback, which opens onto its panes.

use lab_core::measure::registry::LATENCY;
use lab_core::share::library::{Entry, EntryKind, Row, parse_tags};
use leptos::prelude::*;

use crate::browser::page;
use crate::browser::use_library_view::UseLibraryView;
use crate::ui::format::{ms, opt};

/// A row of the library table.
#[component]
pub fn LibraryRow(view: UseLibraryView, entry: Entry) -> impl IntoView {
    let v = view;
    let e = entry;
    let id = e.id.clone();
    let (id_sel, id_toggle, id_name, id_tags) = (id.clone(), id.clone(), id.clone(), id.clone());
    let (e_open, e_dl, e_rep) = (e.clone(), e.clone(), e.clone());
    let status = v.status(&e).word();
    let is_trace = matches!(e.kind, EntryKind::Live | EntryKind::Replay);
    let held = if is_trace {
        format!(
            "{} request(s){}",
            e.requests,
            if e.failed > 0 { format!(" ({} failed)", e.failed) } else { String::new() }
        )
    } else if e.kind == EntryKind::Study {
        format!("{} answer(s)", e.requests)
    } else {
        e.file_bytes.map(|b| format!("{:.1} MB file", b as f64 / 1e6)).unwrap_or_default()
    };
    let meta = format!("{} · {} · {status} · {held}", e.kind.word(), page::local_time(e.saved_ms));
    let in_group = e.group.is_some();
    view! {
        <tr data-testid="library-row" data-kind=format!("{:?}", e.kind).to_lowercase() data-status=status class:in-group=in_group>
            <td><input type="checkbox" aria-label=format!("select {}", e.name)
                prop:checked=move || v.selected.with(|s| s.contains(&id_sel))
                on:change=move |ev| v.toggle(id_toggle.clone(), event_target_checked(&ev))/></td>
            <td class="entry">
                <input type="text" class="inline-edit" data-testid="library-name" aria-label="name" title=e.name.clone() prop:value=e.name.clone()
                    on:change=move |ev| v.rename(&id_name, event_target_value(&ev).trim().to_string())/>
                <span class="meta"><span data-testid="library-meta">{meta}</span>
                    <input type="text" class="inline-edit tags" data-testid="library-tags" aria-label="tags, comma separated"
                        placeholder="+ tags" prop:value=e.tags.join(", ")
                        on:change=move |ev| v.retag(&id_tags, parse_tags(&event_target_value(&ev)))/></span>
            </td>
            {LATENCY.iter().filter(|r| r.places.library.is_some()).map(|r| view! {
                <td data-metric=r.id>{opt(e.kept(r.id), ms)}</td>
            }).collect_view()}
            <td data-testid="library-qoe">{opt(e.qoe_p50, |v| format!("{v:.2}"))}</td>
            <td data-testid="library-apdex">{opt(e.apdex_ttft, |v| format!("{v:.2}"))}</td>
            <td class="actions"><div class="row-actions">
                <button type="button" class="secondary" data-testid="library-open" on:click=move |_| v.open(e_open.clone())>"Open"</button>
                <button type="button" class="secondary" data-testid="library-download" on:click=move |_| v.download(e_dl.clone(), false)>"Download"</button>
                {is_trace.then(|| view! {
                    <button type="button" class="secondary" data-testid="library-report" on:click=move |_| v.download(e_rep.clone(), true)>"Report"</button>
                })}
            </div></td>
        </tr>
    }
}

/// The panes of one replay playback, or the endpoints of one comparison:
/// one row that opens onto them.
#[component]
pub fn GroupRows(view: UseLibraryView, group: String, row: Row) -> impl IntoView {
    let v = view;
    let g = group.clone();
    let open = Signal::derive(move || v.expanded.with(|x| x.contains(&g)));
    let first = row.entries.first().cloned();
    let when = first.as_ref().map(|e| page::local_time(e.saved_ms)).unwrap_or_default();
    let what = row.what();
    let parts = if what == "compare" { "endpoints" } else { "panes" };
    let meta = format!("{what} · {when} · {} {parts}", row.entries.len());
    let title = row.title();
    let entries = row.entries.clone();
    view! {
        <tr data-testid="library-group" data-kind=what class="group">
            <td></td>
            // Through the actions column: a group has none of its own, and a
            // cell left empty there sat beside it 291 px wide (issue 44).
            <td class="entry" colspan="6">
                <button type="button" class="link" data-testid="library-group-toggle" aria-expanded=move || open.get().to_string()
                    on:click=move |_| v.toggle_group(&group)>
                    {move || if open.get() { "▾ " } else { "▸ " }}<span class="group-title">{title}</span>
                </button>
                <span class="meta">{meta}</span>
            </td>
        </tr>
        {move || open.get().then(|| entries.iter().cloned().map(|e| view! { <LibraryRow view=v entry=e/> }).collect_view())}
    }
}
