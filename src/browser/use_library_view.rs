//! The library view's hook: filtering and selecting entries, opening one
//! (a run's results, an imported file in the Import view, a study's
//! results), downloads and reports, bundles in and out, deleting.

use lab_core::measure::analysis::{Analysis, AnalysisOptions};
use lab_core::measure::run::MeasuredRun;
use lab_core::share::library::{Bundle, Entry, EntryKind, EntryStatus, Row, rows};
use lab_core::share::report;
use lab_core::share::route::{Route, View};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::library::Library;
use crate::browser::files::{self, download_text};
use crate::browser::importer::Importer;
use crate::browser::page;
use crate::browser::use_route::UseRoute;

/// Largest bundle read (bytes).
pub const MAX_BUNDLE_BYTES: u64 = 512 * 1024 * 1024;

/// The view's state and actions.
#[derive(Clone, Copy)]
pub struct UseLibraryView {
    /// Search text (name or tag).
    pub filter: RwSignal<String>,
    /// Kind filter (`live`, `replay`, `import`, `study`; empty for all).
    pub kind: RwSignal<String>,
    /// Selected entry ids.
    pub selected: RwSignal<Vec<String>>,
    /// The entry opened, with its run.
    pub shown: RwSignal<Option<(String, MeasuredRun)>>,
    /// What just happened, for people.
    pub message: RwSignal<Option<String>>,
    /// The entries that pass the filters.
    pub visible: Memo<Vec<Entry>>,
    /// Them as the list shows them (a playback's panes as one row).
    pub rows: Memo<Vec<Row>>,
    /// Playbacks whose panes are shown.
    pub expanded: RwSignal<Vec<String>>,
    page_start: f64,
    lib: Library,
    importer: Importer,
    route: UseRoute,
    /// The scenarios Live, Import and Analyze score with (custom ones too):
    /// a report scores with the same.
    scenarios: Signal<Vec<lab_core::measure::score::Scenario>>,
}

/// The ending of "entr…" for `n` entries.
fn plural(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

/// What [`use_library_view`] works with.
#[derive(Clone, Copy)]
pub struct UseLibraryViewOptions {
    /// The library shown.
    pub lib: Library,
    /// Opens saved imports.
    pub importer: Importer,
    /// Goes to the view an opened entry belongs in.
    pub route: UseRoute,
}

/// Creates the view's state over the library.
pub fn use_library_view(options: UseLibraryViewOptions) -> UseLibraryView {
    let UseLibraryViewOptions { lib, importer, route } = options;
    let filter = RwSignal::new(String::new());
    let kind = RwSignal::new(String::new());
    let visible = Memo::new(move |_| {
        let f = filter.get().to_lowercase();
        let k = kind.get();
        lib.entries.with(|all| {
            all.iter()
                .filter(|e| k.is_empty() || format!("{:?}", e.kind).to_lowercase() == k)
                .filter(|e| {
                    f.is_empty()
                        || e.name.to_lowercase().contains(&f)
                        || e.tags.iter().any(|t| t.contains(&f))
                })
                .cloned()
                .collect::<Vec<_>>()
        })
    });
    let rows = Memo::new(move |_| visible.with(|v: &Vec<Entry>| rows(v)));
    UseLibraryView {
        filter,
        kind,
        rows,
        expanded: RwSignal::new(Vec::new()),
        selected: RwSignal::new(Vec::new()),
        shown: RwSignal::new(None),
        message: RwSignal::new(None),
        visible,
        page_start: page::opened_ms(),
        lib,
        importer,
        route,
        scenarios: crate::browser::use_scenarios::scenarios_in_context(),
    }
}

impl UseLibraryView {
    /// Complete, recording (in this page) or interrupted.
    pub fn status(&self, e: &Entry) -> EntryStatus {
        e.status(self.page_start)
    }

    /// Shows or hides the panes of playback `group`.
    pub fn toggle_group(&self, group: &str) {
        self.expanded.update(|x| match x.iter().position(|g| g == group) {
            Some(i) => {
                x.remove(i);
            }
            None => x.push(group.to_string()),
        });
    }

    /// Opens an entry where it belongs.
    pub fn open(&self, e: Entry) {
        let v = *self;
        v.message.set(None);
        spawn_local(async move {
            match e.kind {
                EntryKind::Import => match v.lib.file(&e.id).await {
                    Ok(f) => {
                        v.importer.import(vec![f]);
                        v.route.go(Route::View(View::Import));
                    }
                    Err(m) => v.message.set(Some(format!("{}: {m}", e.name))),
                },
                EntryKind::Study => v.route.go(Route::View(View::Study)),
                _ => match v.lib.trace(&e.id).await {
                    Ok(t) => v.shown.set(Some((e.id.clone(), MeasuredRun::of(t, &[])))),
                    Err(m) => v.message.set(Some(format!("{}: {m}", e.name))),
                },
            }
        });
    }

    /// Downloads an entry as it is saved, or (traces) its HTML report.
    pub fn download(&self, e: Entry, as_report: bool) {
        let v = *self;
        spawn_local(async move {
            let r = match e.kind {
                // The original file, as it was imported.
                EntryKind::Import => v
                    .lib
                    .file(&e.id)
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|f| files::download_blob(&f, &f.name()).map_err(|e| e.to_string())),
                _ => v.lib.trace(&e.id).await.map_err(|e| e.to_string()).and_then(|t| {
                    let r = if as_report {
                        // The SLOs and scenarios the run was shown with in Live.
                        let opts = AnalysisOptions::standard(v.scenarios.get_untracked());
                        let a = Analysis::of(&t, &opts);
                        let html = report::run_report(&t, &a, &page::today(), v.status(&e));
                        download_text(&t.file_name(".report.html"), "text/html", &html)
                    } else {
                        download_text(&t.file_name(".trace.json"), "application/json", &t.to_json())
                    };
                    r.map_err(|e| e.to_string())
                }),
            };
            if let Err(m) = r {
                v.message.set(Some(format!("{}: {m}", e.name)));
            }
        });
    }

    /// Exports the selected entries (all when none is) as a bundle.
    pub fn export(&self) {
        let v = *self;
        let ids = v.selected.get_untracked();
        spawn_local(async move {
            let b = match v.lib.bundle(&ids).await {
                Ok(b) => b,
                Err(m) => return v.message.set(Some(format!("Export failed: {m}"))),
            };
            let n = b.items.len();
            let name = format!("latency-lab-library-{}.bundle.json", page::today());
            v.message.set(Some(match download_text(&name, "application/json", &b.to_json()) {
                Ok(()) => format!("Exported {n} entr{} to {name}.", plural(n)),
                Err(m) => m.to_string(),
            }));
        });
    }

    /// Adds the entries of a bundle file.
    pub fn import_bundle(&self, file: web_sys::File) {
        let v = *self;
        spawn_local(async move {
            let name = file.name();
            let r = match files::read_text(&file, MAX_BUNDLE_BYTES).await {
                Ok(text) => match Bundle::from_json(&text) {
                    Ok(b) => v.lib.add_bundle(b).await.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                },
                Err(e) => Err(e.to_string()),
            };
            v.message.set(Some(match r {
                Ok(n) => format!("Added {n} entr{} from {name}.", plural(n)),
                Err(m) => format!("{name}: {m}"),
            }));
        });
    }

    /// Deletes the selected entries; says so once it is committed.
    pub fn delete_selected(&self) {
        let v = *self;
        let ids = v.selected.get_untracked();
        if ids.is_empty() {
            return;
        }
        let n = ids.len();
        v.message.set(Some(format!("Deleting {n} entr{}…", plural(n))));
        spawn_local(async move {
            if let Err(m) = v.lib.delete(&ids).await {
                return v.message.set(Some(format!("Nothing was deleted: {m}")));
            }
            v.message.set(Some(format!("Deleted {n} entr{}.", plural(n))));
            v.selected.update(|s| s.retain(|id| !ids.contains(id)));
            if v.shown.with_untracked(|s| s.as_ref().is_some_and(|(id, _)| ids.contains(id))) {
                v.shown.set(None);
            }
        });
    }

    /// Selects or unselects an entry.
    pub fn toggle(&self, id: String, on: bool) {
        self.selected.update(|s| {
            s.retain(|x| *x != id);
            if on {
                s.push(id);
            }
        });
    }

    /// Renames an entry (keeps its tags).
    pub fn rename(&self, id: &str, name: String) {
        let tags = self.lib.entries.with_untracked(|l| l.iter().find(|x| x.id == id).map(|x| x.tags.clone()));
        self.lib.edit(id, name, tags.unwrap_or_default());
    }

    /// Retags an entry (keeps its name).
    pub fn retag(&self, id: &str, tags: Vec<String>) {
        let name = self.lib.entries.with_untracked(|l| l.iter().find(|x| x.id == id).map(|x| x.name.clone()));
        self.lib.edit(id, name.unwrap_or_default(), tags);
    }
}
