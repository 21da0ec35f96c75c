//! The researcher's side of the study server: the researcher token (asked
//! once per browser session and kept in `sessionStorage`, like API keys:
//! never in exports, links or the library), publishing the draft, the
//! published versions of it with their participant links, closing them,
//! and their answers, read again every [`POLL_MS`] while the study view is
//! shown, so the results refresh as participants answer. The design each
//! version was published with is read once ([`UseStudyServer::design`]):
//! results are computed from it, never from the draft as edited since, and
//! answers of a version published with another design are left out (and
//! said to be).

use std::collections::HashMap;

use lab_core::study::Study;
use lab_core::study::results::StudyResults;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::server::{self, Listed};
use crate::browser::library::Library;
use crate::browser::page;
use crate::browser::use_storage::{Store, UseStorage, use_storage};
use crate::browser::use_visibility::use_visibility;
use lab_core::share::library::EntryKind;

/// How often the answers are read again while shown (ms).
pub const POLL_MS: u64 = 2_000;
/// `sessionStorage` key of the researcher token.
pub const TOKEN_KEY: &str = "latency-lab.study-token";

/// The study server as the researcher uses it.
#[derive(Clone, Copy)]
pub struct UseStudyServer {
    /// The researcher token.
    pub token: UseStorage,
    /// Published versions of the draft (same study id), newest first.
    pub published: RwSignal<Vec<Listed>>,
    /// Their answers, merged (those of the versions published with
    /// [`Self::design`]).
    pub results: RwSignal<Option<StudyResults>>,
    /// The design the newest published version was published with.
    pub design: RwSignal<Option<Study>>,
    /// What just happened, for people.
    pub message: RwSignal<Option<String>>,
    /// Reading or publishing.
    pub busy: RwSignal<bool>,
    draft: Signal<Study>,
    /// Designs as published, with their fingerprints, by server id (they
    /// never change there, so each is read and fingerprinted once).
    designs: StoredValue<HashMap<String, (Study, String)>>,
    lib: Library,
}

/// What [`use_study_server`] works with.
#[derive(Clone, Copy)]
pub struct UseStudyServerOptions {
    /// Keeps the published studies of this browser.
    pub lib: Library,
    /// The study open in the designer.
    pub draft: Signal<Study>,
    /// Answers are polled while true (the study view is shown).
    pub shown: Signal<bool>,
}

/// The study server for the designer's study.
pub fn use_study_server(options: UseStudyServerOptions) -> UseStudyServer {
    let UseStudyServerOptions { lib, draft, shown } = options;
    let s = UseStudyServer {
        token: use_storage(Store::Session, TOKEN_KEY),
        published: RwSignal::new(Vec::new()),
        results: RwSignal::new(None),
        design: RwSignal::new(None),
        message: RwSignal::new(None),
        busy: RwSignal::new(false),
        draft,
        designs: StoredValue::new(HashMap::new()),
        lib,
    };
    // What was said (published, a link) is of the design it was said of:
    // an edit or another study open takes it away.
    Effect::new(move |said_of: Option<String>| {
        let now = draft.with(Study::fingerprint);
        if said_of.is_some_and(|f| f != now) {
            s.message.set(None);
        }
        now
    });
    let hidden = use_visibility();
    let polling = Memo::new(move |_| shown.get() && !hidden.get() && !s.token.value.with(String::is_empty));
    Effect::new(move |_| {
        draft.track();
        if polling.get() {
            s.refresh();
        }
    });
    let timer = set_interval_with_handle(
        move || {
            if polling.get_untracked() {
                s.refresh();
            }
        },
        std::time::Duration::from_millis(POLL_MS),
    );
    on_cleanup(move || {
        if let Ok(t) = timer {
            t.clear();
        }
    });
    s
}

impl UseStudyServer {
    /// The participant link of published study `id`: the server's (built
    /// from its public address, `serve --public-url`) when it gave one, else
    /// on this page's origin.
    pub fn link(id: &str, url: Option<&str>) -> String {
        url.map_or_else(
            || format!("{}{}", page::origin(), lab_core::study::hosting::link_path(id)),
            str::to_string,
        )
    }

    /// Keeps the token for this browser session (blank: forget it).
    pub fn set_token(&self, token: String) {
        if let Err(e) = self.token.set(token.trim().to_string()) {
            self.message.set(Some(format!("The token cannot be kept in this tab: {e}")));
        }
    }

    /// Reads the published versions of the draft, their designs (once) and
    /// their answers.
    pub fn refresh(&self) {
        let s = *self;
        let token = s.token.value.get_untracked();
        let study_id = s.draft.with_untracked(|d| d.id.clone());
        spawn_local(async move {
            let listed = match server::list(&token).await {
                Ok(l) => l.into_iter().filter(|l| l.study_id == study_id).collect::<Vec<_>>(),
                Err(e) => return s.message.set(Some(e.to_string())),
            };
            for l in &listed {
                if s.designs.with_value(|d| d.contains_key(&l.id)) {
                    continue;
                }
                match server::design(&l.id, &token).await {
                    Ok(d) => s.designs.update_value(|all| {
                        let fingerprint = d.fingerprint();
                        all.insert(l.id.clone(), (d, fingerprint));
                    }),
                    Err(e) => return s.message.set(Some(e.to_string())),
                }
            }
            // Newest first: the newest version's design is the one analysed.
            let newest = listed.first().and_then(|l| s.designs.with_value(|d| d.get(&l.id).cloned()));
            let (design, fingerprint) = newest.map_or((None, None), |(d, f)| (Some(d), Some(f)));
            let mut all = StudyResults::new(&study_id, Vec::new());
            let mut other = 0u64;
            for l in &listed {
                if s.designs.with_value(|d| d.get(&l.id).map(|(_, f)| f.as_str()) != fingerprint.as_deref()) {
                    other += l.answers;
                    continue;
                }
                match server::results(&l.id, &token).await {
                    Ok(r) => {
                        s.keep_in_library(l, &r);
                        let _ = all.merge(&r);
                    }
                    Err(e) => return s.message.set(Some(e.to_string())),
                }
            }
            if other > 0 {
                s.message.set(Some(format!(
                    "{other} answer(s) on the server were collected with an earlier design of \"{study_id}\" and are left out: results describe the newest published design."
                )));
            }
            if s.published.get_untracked() != listed {
                s.published.set(listed);
            }
            if s.design.with_untracked(|d| d != &design) {
                s.design.set(design);
            }
            if s.results.with_untracked(|r| r.as_ref() != Some(&all)) {
                s.results.set(Some(all));
            }
        });
    }

    /// Keeps published version `l`'s answers in the library (one entry per
    /// version, written again when its answers change).
    fn keep_in_library(&self, l: &Listed, r: &StudyResults) {
        let id = format!("study-server-{}", l.id);
        let known = self.lib.entries.with_untracked(|e| e.iter().find(|e| e.id == id).map(|e| e.requests));
        if known != Some(r.responses.len()) {
            let name = format!("{} · study server {}", l.title, l.id);
            self.lib.save_text_as(id, EntryKind::Study, &name, &r.to_json(), r.responses.len());
        }
    }

    /// Whether the draft, as it is, is a published version still open
    /// (then Publish has nothing to do).
    pub fn published_as_is(&self) -> bool {
        let now = self.draft.with(Study::fingerprint);
        self.published.with(|l| {
            l.iter()
                .any(|p| p.open && self.designs.with_value(|d| d.get(&p.id).is_some_and(|(_, f)| *f == now)))
        })
    }

    /// Publishes the draft; the participant link is shown and copied (the
    /// open version's, when this very design is published already).
    pub fn publish(&self) {
        let s = *self;
        let study = s.draft.get_untracked();
        if let Err(e) = study.validate() {
            return s.message.set(Some(format!("The study cannot be published yet: {e}")));
        }
        s.busy.set(true);
        let token = s.token.value.get_untracked();
        spawn_local(async move {
            match server::publish(&study, &token).await {
                Ok(reply) => {
                    let link = Self::link(&reply.id, reply.url.as_deref());
                    page::copy(&link);
                    s.message.set(Some(if reply.already {
                        format!("This design is published already; its answers stay. Send participants its link (copied): {link}")
                    } else {
                        format!("Published. Send participants this link (copied): {link}")
                    }));
                    s.refresh();
                }
                Err(e) => s.message.set(Some(e.to_string())),
            }
            s.busy.set(false);
        });
    }

    /// Stops published study `id` taking answers.
    pub fn close(&self, id: String) {
        if !page::confirm("Close this study? Participants can no longer answer; the answers so far stay.") {
            return;
        }
        let s = *self;
        let token = s.token.value.get_untracked();
        spawn_local(async move {
            match server::close(&id, &token).await {
                Ok(()) => s.message.set(Some(format!("Study {id} is closed."))),
                Err(e) => s.message.set(Some(e.to_string())),
            }
            s.refresh();
        });
    }
}
