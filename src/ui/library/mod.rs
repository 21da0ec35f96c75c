//! The run library view: everything saved in this browser (live runs,
//! replays, imported files, study results), to rename, tag, open, report,
//! delete, and move between browsers as a bundle (state and actions:
//! [`crate::browser::library`]).

mod row;

use lab_core::measure::registry::LATENCY;
use leptos::prelude::*;

use row::{GroupRows, LibraryRow};

use crate::browser::files;
use crate::browser::importer::Importer;
use crate::browser::library::Library;
use crate::browser::use_library_view::{UseLibraryViewOptions, use_library_view};
use crate::browser::use_route::UseRoute;
use crate::ui::live::RunResults;

/// The library view.
#[component]
pub fn LibraryView() -> impl IntoView {
    let lib = expect_context::<Library>();
    let v = use_library_view(UseLibraryViewOptions {
        lib,
        importer: expect_context::<Importer>(),
        route: expect_context::<UseRoute>(),
    });
    view! {
        <section class="panel" data-testid="library-view">
            <h2>"Library"</h2>
            <p class="hint">
                "Every live run, replay, imported file and study result is kept in this browser (IndexedDB) and survives a reload. "
                "A live run is saved every second while it streams, so closing the tab loses at most a second. "
                "Export a bundle to move the library to another browser or to a colleague; API keys are never stored in it."
            </p>
            {move || lib.error.get().map(|m| view! { <p class="error" role="alert" data-testid="library-error">{m.to_string()}</p> })}
            {move || v.message.get().map(|m| view! { <p class="notice" role="status" data-testid="library-message">{m}</p> })}
            <div class="library-controls">
                <label>"Search "<input type="search" data-testid="library-filter" placeholder="name or tag"
                    prop:value=move || v.filter.get() on:input=move |ev| v.filter.set(event_target_value(&ev))/></label>
                <label>"Kind "
                    <select data-testid="library-kind" on:change=move |ev| v.kind.set(event_target_value(&ev))>
                        <option value="">"all"</option>
                        <option value="live">"live runs"</option>
                        <option value="replay">"replays"</option>
                        <option value="import">"imported files"</option>
                        <option value="study">"study results"</option>
                    </select>
                </label>
                <button type="button" class="secondary" data-testid="library-export" on:click=move |_| v.export()>
                    {move || match v.selected.with(Vec::len) { 0 => "Export all as bundle".to_string(), n => format!("Export {n} selected") }}
                </button>
                <label class="file">"Import a bundle "
                    <input type="file" accept=".json,application/json" data-testid="library-import"
                        on:change=move |ev| files::take_chosen(&ev).into_iter().take(1).for_each(|f| v.import_bundle(f))/>
                </label>
                <button type="button" class="danger" data-testid="library-delete" prop:disabled=move || v.selected.with(Vec::is_empty)
                    on:click=move |_| v.delete_selected()>"Delete selected"</button>
            </div>
            <Show when=move || !lib.entries.with(Vec::is_empty) fallback=move || if lib.ready.get() {
                view! { <p class="empty" data-testid="library-empty">"Nothing saved yet. Runs, replays and imports land here automatically."</p> }.into_any()
            } else {
                view! { <p class="empty" data-testid="library-opening">"Opening the library…"</p> }.into_any()
            }>
                <div class="table-scroll" tabindex="0">
                    <table class="metrics library" data-testid="library-table">
                        <thead><tr>
                            <th scope="col"><span class="sr-only">"select"</span></th>
                            <th scope="col">"name and tags"</th>
                            {LATENCY.iter().filter_map(|r| r.places.library.map(|s| view! {
                                <th scope="col" title=r.what>{r.with_stat(s)}</th>
                            })).collect_view()}
                            <th scope="col"><abbr title="median QoE: 1 = every token by the time a reader needs it (500 ms, 20 tokens/s)">"QoE"</abbr></th>
                            <th scope="col"><abbr title="Apdex of TTFT at 500 ms: satisfied + tolerating / 2">"Apdex"</abbr></th>
                            <th scope="col"><span class="sr-only">"actions"</span></th>
                        </tr></thead>
                        <tbody>
                            <For each=move || v.rows.get() key=|r| r.key()
                                children=move |r| match r.group.clone() {
                                    None => r.entries.into_iter().map(|e| view! { <LibraryRow view=v entry=e/> }).collect_view().into_any(),
                                    Some(g) => view! { <GroupRows view=v group=g row=r/> }.into_any(),
                                }/>
                        </tbody>
                    </table>
                </div>
            </Show>
            {move || v.shown.get().map(|(id, run)| {
                let title = lib.entries.with(|l| l.iter().find(|e| e.id == id).map(|e| e.name.clone())).unwrap_or_default();
                view! {
                    <div data-testid="library-shown">
                        <h3>{title}</h3>
                        <RunResults run=run/>
                    </div>
                }
            })}
        </section>
    }
}
