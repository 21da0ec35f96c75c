//! The run library view: everything saved in this browser (live runs,
//! replays, imported files, study results), to rename, tag, open, report,
//! delete, and move between browsers as a bundle.

use lab_core::measure::analysis::{Analysis, AnalysisOptions};
use lab_core::share::library::{Bundle, Entry, EntryKind, parse_tags};
use lab_core::share::report;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::files::{self, download_text};
use crate::browser::importer::Importer;
use crate::browser::library::Library;
use crate::browser::runner::RunOutput;
use crate::ui::Nav;
use crate::ui::format::{ms, opt};
use crate::ui::live::{RunResults, trace_file_name};

/// Largest bundle read (bytes).
pub const MAX_BUNDLE_BYTES: u64 = 512 * 1024 * 1024;

fn when(saved_ms: f64) -> String {
    js_sys::Date::new(&saved_ms.into()).to_locale_string("en-GB", &wasm_bindgen::JsValue::UNDEFINED).into()
}

/// "interrupted" for a live run cut before it finished (the tab closed),
/// "recording" while it is still streaming in this page.
fn status(e: &Entry, page_start_ms: f64) -> &'static str {
    match (e.complete, e.saved_ms >= page_start_ms) {
        (true, _) => "complete",
        (false, true) => "recording",
        (false, false) => "interrupted",
    }
}

/// Today as `YYYY-MM-DD`.
pub fn today() -> String {
    let iso: String = js_sys::Date::new_0().to_iso_string().into();
    iso.chars().take(10).collect()
}

/// The library view.
#[component]
pub fn LibraryView() -> impl IntoView {
    let lib = expect_context::<Library>();
    let importer = expect_context::<Importer>();
    let nav = expect_context::<Nav>();
    let page_start = js_sys::Date::now();
    let filter = RwSignal::new(String::new());
    let kind = RwSignal::new(String::new());
    let selected = RwSignal::new(Vec::<String>::new());
    let shown = RwSignal::new(None::<(String, RunOutput)>);
    let message = RwSignal::new(None::<String>);

    let visible = Memo::new(move |_| {
        let f = filter.get().to_lowercase();
        let k = kind.get();
        lib.entries
            .get()
            .into_iter()
            .filter(|e| k.is_empty() || format!("{:?}", e.kind).to_lowercase() == k)
            .filter(|e| {
                f.is_empty() || e.name.to_lowercase().contains(&f) || e.tags.iter().any(|t| t.contains(&f))
            })
            .collect::<Vec<_>>()
    });

    let open = move |e: Entry| {
        message.set(None);
        spawn_local(async move {
            match e.kind {
                EntryKind::Import => match lib.file(&e.id).await {
                    Ok(f) => {
                        importer.import(f);
                        nav.go("import");
                    }
                    Err(m) => message.set(Some(format!("{}: {m}", e.name))),
                },
                EntryKind::Study => nav.go("study"),
                _ => match lib.trace(&e.id).await {
                    Ok(t) => {
                        let c = t.meta.concurrency.unwrap_or(1);
                        shown.set(Some((e.id.clone(), RunOutput { levels: vec![(c, t.clone())], trace: t })))
                    }
                    Err(m) => message.set(Some(format!("{}: {m}", e.name))),
                },
            }
        });
    };
    let download = move |e: Entry, as_report: bool| {
        spawn_local(async move {
            let r = match e.kind {
                // The original file, as it was imported.
                EntryKind::Import => lib
                    .file(&e.id)
                    .await
                    .and_then(|f| files::download_blob(&f, &f.name()).map_err(|e| files::js_message(&e))),
                _ => lib.trace(&e.id).await.and_then(|t| {
                    if as_report {
                        let a = Analysis::of(&t, &AnalysisOptions::default());
                        let html = report::run_report(&t, &a, &today(), e.status(page_start));
                        let name = trace_file_name(&t).replace(".trace.json", ".report.html");
                        download_text(&name, "text/html", &html).map_err(|e| files::js_message(&e))
                    } else {
                        download_text(&trace_file_name(&t), "application/json", &t.to_json())
                            .map_err(|e| files::js_message(&e))
                    }
                }),
            };
            if let Err(m) = r {
                message.set(Some(format!("{}: {m}", e.name)));
            }
        });
    };
    let export = move |_| {
        let ids = selected.get_untracked();
        spawn_local(async move {
            match lib.bundle(&ids).await {
                Ok(b) => {
                    let n = b.items.len();
                    let name = format!("latency-lab-library-{}.bundle.json", today());
                    match download_text(&name, "application/json", &b.to_json()) {
                        Ok(()) => message.set(Some(format!(
                            "Exported {n} entr{} to {name}.",
                            if n == 1 { "y" } else { "ies" }
                        ))),
                        Err(m) => message.set(Some(files::js_message(&m))),
                    }
                }
                Err(m) => message.set(Some(format!("Export failed: {m}"))),
            }
        });
    };
    let import_bundle = move |file: web_sys::File| {
        spawn_local(async move {
            let name = file.name();
            let r = match files::read_text(&file, MAX_BUNDLE_BYTES).await {
                Ok(text) => match Bundle::from_json(&text) {
                    Ok(b) => lib.add_bundle(b).await,
                    Err(e) => Err(e.to_string()),
                },
                Err(e) => Err(e.to_string()),
            };
            message.set(Some(match r {
                Ok(n) => format!("Added {n} entr{} from {name}.", if n == 1 { "y" } else { "ies" }),
                Err(m) => format!("{name}: {m}"),
            }));
        });
    };
    let delete_selected = move |_| {
        let ids = selected.get_untracked();
        if ids.is_empty() {
            return;
        }
        lib.delete(ids.clone());
        selected.set(Vec::new());
        if shown.with_untracked(|s| s.as_ref().is_some_and(|(id, _)| ids.contains(id))) {
            shown.set(None);
        }
    };
    let toggle = move |id: String, on: bool| {
        selected.update(|s| {
            s.retain(|x| *x != id);
            if on {
                s.push(id);
            }
        })
    };

    view! {
        <section class="panel" data-testid="library-view">
            <h2>"Library"</h2>
            <p class="hint">
                "Every live run, replay, imported file and study result is kept in this browser (IndexedDB) and survives a reload. "
                "A live run is saved every second while it streams, so closing the tab loses at most a second. "
                "Export a bundle to move the library to another browser or to a colleague; API keys are never stored in it."
            </p>
            {move || lib.error.get().map(|m| view! { <p class="error" role="alert" data-testid="library-error">{m}</p> })}
            {move || message.get().map(|m| view! { <p class="notice" role="status" data-testid="library-message">{m}</p> })}
            <div class="library-controls">
                <label>"Search "<input type="search" data-testid="library-filter" placeholder="name or tag"
                    prop:value=move || filter.get() on:input=move |ev| filter.set(event_target_value(&ev))/></label>
                <label>"Kind "
                    <select data-testid="library-kind" on:change=move |ev| kind.set(event_target_value(&ev))>
                        <option value="">"all"</option>
                        <option value="live">"live runs"</option>
                        <option value="replay">"replays"</option>
                        <option value="import">"imported files"</option>
                        <option value="study">"study results"</option>
                    </select>
                </label>
                <button type="button" class="secondary" data-testid="library-export" on:click=export>
                    {move || if selected.with(Vec::is_empty) { "Export all as bundle".to_string() } else { format!("Export {} selected", selected.with(Vec::len)) }}
                </button>
                <label class="file">"Import a bundle "
                    <input type="file" accept=".json,application/json" data-testid="library-import"
                        on:change=move |ev| {
                            if let Some(f) = files::take_chosen(&ev).into_iter().next() { import_bundle(f); }
                        }/>
                </label>
                <button type="button" class="danger" data-testid="library-delete" prop:disabled=move || selected.with(Vec::is_empty)
                    on:click=delete_selected>"Delete selected"</button>
            </div>
            <Show
                when=move || !lib.entries.with(Vec::is_empty)
                fallback=move || view! {
                    <p class="empty" data-testid="library-empty">
                        {move || if lib.ready.get() { "Nothing saved yet. Runs, replays and imports land here automatically." } else { "Opening the library…" }}
                    </p>
                }
            >
                <div class="table-scroll" tabindex="0">
                    <table class="metrics library" data-testid="library-table">
                        <thead><tr>
                            <th scope="col"><span class="sr-only">"select"</span></th>
                            <th scope="col">"name"</th>
                            <th scope="col">"kind"</th>
                            <th scope="col">"tags"</th>
                            <th scope="col">"saved"</th>
                            <th scope="col">"status"</th>
                            <th scope="col">"requests"</th>
                            <th scope="col">"TTFT P50"</th>
                            <th scope="col">"E2EL P50"</th>
                            <th scope="col">""</th>
                        </tr></thead>
                        <tbody>
                            <For each=move || visible.get() key=|e| (e.id.clone(), e.complete, e.name.clone(), e.tags.clone()) let:e>
                                {
                                    let id = e.id.clone();
                                    let (id2, id3, id4) = (id.clone(), id.clone(), id.clone());
                                    let (e_open, e_dl, e_rep) = (e.clone(), e.clone(), e.clone());
                                    let tags_text = e.tags.join(", ");
                                    let name = e.name.clone();
                                    let st = status(&e, page_start);
                                    let is_trace = matches!(e.kind, EntryKind::Live | EntryKind::Replay);
                                    view! {
                                        <tr data-testid="library-row" data-kind=format!("{:?}", e.kind).to_lowercase() data-status=st>
                                            <td><input type="checkbox" aria-label=format!("select {name}")
                                                prop:checked=move || selected.with(|s| s.contains(&id))
                                                on:change=move |ev| toggle(id2.clone(), event_target_checked(&ev))/></td>
                                            <td><input type="text" class="inline-edit" data-testid="library-name" aria-label="name" prop:value=e.name.clone()
                                                on:change=move |ev| {
                                                    let tags = lib.entries.with_untracked(|l| l.iter().find(|x| x.id == id3).map(|x| x.tags.clone())).unwrap_or_default();
                                                    lib.edit(&id3, event_target_value(&ev).trim().to_string(), tags);
                                                }/></td>
                                            <td>{e.kind.word()}</td>
                                            <td><input type="text" class="inline-edit" data-testid="library-tags" aria-label="tags, comma separated" placeholder="tags, comma separated" prop:value=tags_text
                                                on:change=move |ev| {
                                                    let name = lib.entries.with_untracked(|l| l.iter().find(|x| x.id == id4).map(|x| x.name.clone())).unwrap_or_default();
                                                    lib.edit(&id4, name, parse_tags(&event_target_value(&ev)));
                                                }/></td>
                                            <td>{when(e.saved_ms)}</td>
                                            <td class=format!("status-{st}")>{st}</td>
                                            <td>{if is_trace { format!("{}{}", e.requests, if e.failed > 0 { format!(" ({} failed)", e.failed) } else { String::new() }) } else { e.file_bytes.map(|b| format!("{:.1} MB file", b as f64 / 1e6)).unwrap_or_default() }}</td>
                                            <td>{opt(e.ttft_p50_ms, ms)}</td>
                                            <td>{opt(e.e2el_p50_ms, ms)}</td>
                                            <td class="row-actions">
                                                <button type="button" class="secondary" data-testid="library-open" on:click=move |_| open(e_open.clone())>"Open"</button>
                                                <button type="button" class="secondary" data-testid="library-download" on:click=move |_| download(e_dl.clone(), false)>"Download"</button>
                                                {is_trace.then(|| view! {
                                                    <button type="button" class="secondary" data-testid="library-report" on:click=move |_| download(e_rep.clone(), true)>"Report"</button>
                                                })}
                                            </td>
                                        </tr>
                                    }
                                }
                            </For>
                        </tbody>
                    </table>
                </div>
            </Show>
            {move || shown.get().map(|(id, out)| {
                let title = lib.entries.with(|l| l.iter().find(|e| e.id == id).map(|e| e.name.clone())).unwrap_or_default();
                view! {
                    <div data-testid="library-shown">
                        <h3>{title}</h3>
                        <RunResults output=out/>
                    </div>
                }
            })}
        </section>
    }
}
