//! The study designer's hook: the draft study (the one open last time comes
//! back), every valid edit saved, the studies saved in this browser, study
//! files in and out, share links, and starting a participant. A draft that
//! has answers or is published is frozen ([`UseStudyDesigner::frozen`]): an
//! edit makes a new version of it (`lab_core::study::version`) and says so.

use lab_core::study::Study;
use lab_core::study::version::Frozen;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::store;
use crate::browser::files::{self, download_text};
use crate::browser::library::Library;
use crate::browser::page;
use crate::browser::share;

/// Largest study file read (bytes).
pub const MAX_STUDY_BYTES: u64 = 16 * 1024 * 1024;

/// The draft and what can be done with it.
#[derive(Clone, Copy)]
pub struct UseStudyDesigner {
    /// The study being designed.
    pub draft: RwSignal<Study>,
    /// Studies saved in this browser.
    pub saved: RwSignal<Vec<Study>>,
    /// What just happened, for people.
    pub message: RwSignal<Option<String>>,
    /// The last share link made (cleared by the next edit).
    pub link: RwSignal<Option<String>>,
    /// Why a trace file gave no condition.
    pub file_error: RwSignal<Option<String>>,
    /// Why the draft cannot change in place (set by the study view from
    /// its answers and the study server); `None`: it can.
    pub frozen: RwSignal<Option<Frozen>>,
    /// The study open last time has been read (until then the draft is the
    /// example, which that read replaces: the view offers nothing to do
    /// with the draft before it, or a link shared at once would be the
    /// example's and be cleared by the read).
    pub ready: Signal<bool>,
    /// The id the draft was saved under before its id was typed: typing an
    /// id renames the draft, so that entry goes once the new one is saved
    /// (unless answers in this browser need it), rather than staying as a
    /// second saved study.
    renamed_from: StoredValue<Option<String>>,
    lib: Library,
    run_test: Callback<Study>,
}

/// Opens the designer on the study open last time (or the example);
/// `run_test` runs a study as a test participant (the participant flow,
/// which lives in the main module: the study module asks for it with
/// `lab_core::share::command::Command::RunTest`).
pub fn use_study_designer(lib: Library, run_test: Callback<Study>) -> UseStudyDesigner {
    let loaded = RwSignal::new(false);
    let d = UseStudyDesigner {
        draft: RwSignal::new(Study::example()),
        saved: RwSignal::new(Vec::new()),
        message: RwSignal::new(None),
        link: RwSignal::new(None),
        file_error: RwSignal::new(None),
        frozen: RwSignal::new(None),
        ready: loaded.into(),
        renamed_from: StoredValue::new(None),
        lib,
        run_test,
    };
    spawn_local(async move {
        if let Some(s) = store::current_study(&lib).await {
            d.draft.set(s);
        }
        loaded.set(true);
        d.reload_list();
    });
    // Every valid edit is saved.
    Effect::new(move |_| {
        let s = d.draft.get();
        if !loaded.get() || s.validate().is_err() {
            return;
        }
        d.link.set(None);
        let renamed = d.renamed_from.try_update_value(Option::take).flatten().filter(|old| *old != s.id);
        spawn_local(async move {
            match store::save_study(&lib, &s).await {
                Ok(()) => {
                    if let Some(old) = renamed
                        && store::sessions(&lib, &old).await.is_ok_and(|s| s.is_empty())
                    {
                        let _ = store::delete_study(&lib, &old).await;
                    }
                    d.reload_list();
                }
                Err(e) => d.message.set(Some(format!("The study could not be saved: {e}"))),
            }
        });
    });
    d
}

impl UseStudyDesigner {
    fn reload_list(&self) {
        let d = *self;
        spawn_local(async move {
            if let Ok(list) = store::studies(&d.lib).await {
                d.saved.set(list);
            }
        });
    }

    /// Changes the draft; a frozen draft's change becomes a new version
    /// (its id and title marked, the reason in [`Self::message`]). Typing
    /// its own id is no such change: it names another study.
    pub fn edit(&self, f: impl FnOnce(&mut Study)) {
        let old = self.draft.get_untracked();
        let mut next = old.clone();
        f(&mut next);
        if next == old {
            return;
        }
        if next.id != old.id && self.frozen.get_untracked().is_none() {
            self.renamed_from.update_value(|r| {
                r.get_or_insert_with(|| old.id.clone());
            });
        }
        if next.id == old.id
            && let Some(why) = self.frozen.get_untracked()
        {
            let taken: Vec<String> = self.saved.with_untracked(|l| l.iter().map(|s| s.id.clone()).collect());
            next = next.new_version(|id| taken.iter().any(|t| t == id));
            self.message.set(Some(why.explain(&old.id, &next.id)));
            // The new version has no answers and is not published.
            self.frozen.set(None);
        }
        self.draft.set(next);
    }

    /// Turns the draft into a threshold study or a comparison of
    /// conditions (a new threshold design's placements seeded by the clock).
    pub fn set_kind(&self, kind: &str) {
        self.draft.update(|s| s.set_kind(kind, page::epoch_ms() as u64));
        self.frozen.set(None);
    }

    /// Opens a saved study, or (for `None`) a new one from the example;
    /// what was said of the study open before goes with it.
    pub fn open(&self, id: Option<&str>) {
        self.message.set(None);
        self.renamed_from.set_value(None);
        match id {
            None => {
                let mut s = Study::example();
                s.id = format!("study-{}", page::epoch_ms() as u64);
                self.draft.set(s);
            }
            Some(id) => {
                if let Some(s) = self.saved.with_untracked(|l| l.iter().find(|s| s.id == id).cloned()) {
                    self.draft.set(s);
                }
            }
        }
    }

    /// Opens a study file.
    pub fn open_file(&self, file: web_sys::File) {
        let d = *self;
        spawn_local(async move {
            let name = file.name();
            let r = files::read_text(&file, MAX_STUDY_BYTES)
                .await
                .map_err(|e| e.to_string())
                .and_then(|t| Study::from_json(&t).map_err(|e| e.to_string()));
            match r {
                Ok(s) => {
                    d.message.set(Some(format!("Opened {name}.")));
                    d.renamed_from.set_value(None);
                    d.draft.set(s);
                }
                Err(e) => d.message.set(Some(format!("{name}: {e}"))),
            }
        });
    }

    /// Adds a condition replaying the first request with tokens of a trace
    /// file.
    pub fn add_recorded(&self, file: web_sys::File) {
        let d = *self;
        spawn_local(async move {
            let name = file.name();
            let read = files::read_trace(&file).await;
            let t = match read {
                Ok(t) => t,
                Err(e) => return d.file_error.set(Some(e.to_string())),
            };
            let label = t.meta.label.clone().unwrap_or_else(|| name.clone());
            match t.requests.into_iter().find(|r| r.chunks.iter().any(|c| c.tokens > 0)) {
                Some(req) => {
                    d.file_error.set(None);
                    d.draft.update(|s| s.add_recorded(label, req));
                }
                None => d.file_error.set(Some(format!("{name}: no request with generated tokens"))),
            }
        });
    }

    /// Offers the study as a file.
    pub fn download(&self) {
        let s = self.draft.get_untracked();
        if let Err(e) = download_text(&format!("{}.study.json", s.id), "application/json", &s.to_json()) {
            self.message.set(Some(e.to_string()));
        }
    }

    /// Makes (and copies) a link that opens the study for a participant.
    pub fn share(&self) {
        let s = self.draft.get_untracked();
        match s.validate() {
            Ok(()) => {
                let d = *self;
                spawn_local(async move {
                    match share::link_for(&lab_core::share::link::Shared::Study(Box::new(s))).await {
                        Ok(url) => d.link.set(Some(url)),
                        Err(e) => d.message.set(Some(e.to_string())),
                    }
                });
            }
            Err(e) => self.message.set(Some(e.to_string())),
        }
    }

    /// Runs the study as a participant in this browser.
    pub fn run(&self) {
        let s = self.draft.get_untracked();
        match s.validate() {
            Ok(()) => self.run_test.run(s),
            Err(e) => self.message.set(Some(format!("The study cannot run yet: {e}"))),
        }
    }
}
