//! The study results hook: every session of the study in this browser,
//! merged files from other participants' browsers (kept in IndexedDB and
//! the library, so they survive a reload) and the study server's answers,
//! each answer counted once (`StudyResults::merge`), summarized by
//! `lab_core::study::results`, exported as CSV, JSON or an HTML report.
//! The researcher's own test sessions are left out unless asked for. A
//! threshold study's answers are summarized by
//! `lab_core::study::threshold::analysis` instead (per-participant
//! thresholds, the pooled fit) and can become a custom scenario's tiers.
//!
//! Everything is computed from **the design that collected the answers**
//! ([`UseStudyResults::design`]): the study server's published copy when
//! the study is published, else the draft, which cannot change in place
//! once it has answers (`lab_core::study::version`). Sessions this browser
//! ran with an earlier draft (the researcher's test runs) are left out and
//! counted ([`UseStudyResults::earlier_sessions`]).

use lab_core::share::library::EntryKind;
use lab_core::share::report;
use lab_core::study::Study;
use lab_core::study::results::{EngineRow, StudyResults, Summary, summarize, to_csv};
use lab_core::study::threshold::analysis::{self as threshold, ThresholdSummary};
use lab_core::study::threshold::in_study::trials_of;
use lab_core::study::threshold::slo;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::store;
use crate::browser::files::{self, download_text};
use crate::browser::library::Library;
use crate::browser::page;
use crate::browser::use_scenarios::UseScenarios;

/// Largest results file merged (bytes).
pub const MAX_RESULTS_BYTES: u64 = 64 * 1024 * 1024;

/// The results and what can be done with them.
#[derive(Clone, Copy)]
pub struct UseStudyResults {
    /// All answers: this browser's sessions, the merged files and the
    /// server's (test sessions only when [`Self::include_tests`]).
    pub combined: Memo<Option<StudyResults>>,
    /// Test sessions among all answers.
    pub tests: Memo<Vec<String>>,
    /// Count the researcher's test sessions too.
    pub include_tests: RwSignal<bool>,
    /// Participants and answers per browser engine (before
    /// [`Self::precise_only`]).
    pub engines: Memo<Vec<EngineRow>>,
    /// Leave out answers to trials played with a timing limit.
    pub precise_only: RwSignal<bool>,
    /// Their summary (comparison studies).
    pub summary: Memo<Option<Summary>>,
    /// A threshold study's summary.
    pub threshold: Memo<Option<ThresholdSummary>>,
    /// What just happened, for people.
    pub message: RwSignal<Option<String>>,
    /// What "Place its tiers" did (cleared when the answers change).
    pub scenario_note: RwSignal<Option<String>>,
    /// The design the answers were collected with, which every figure,
    /// export and scenario uses.
    pub design: Memo<Study>,
    /// Participants' answers collected with the draft's id (test runs left
    /// out): when there are any, the draft is frozen.
    pub answered: Memo<usize>,
    /// Sessions of this browser run with an earlier draft, left out.
    pub earlier_sessions: RwSignal<usize>,
    refresh: RwSignal<u32>,
    /// Merged files that could not be kept in IndexedDB (this page only).
    unsaved: RwSignal<Vec<StudyResults>>,
    lib: Library,
}

/// What [`use_study_results`] reads.
#[derive(Clone, Copy)]
pub struct UseStudyResultsOptions {
    /// Sessions and merged files saved in this browser.
    pub lib: Library,
    /// The study open in the designer.
    pub draft: Signal<Study>,
    /// The design the study server published the answers with.
    pub published: Signal<Option<Study>>,
    /// Turns true when a participant session ended (results are read again).
    pub closed: Signal<bool>,
    /// The study server's answers.
    pub server: Signal<Option<StudyResults>>,
}

/// Results of the study open in the designer, read again whenever a
/// session closes or on [`UseStudyResults::refresh`].
pub fn use_study_results(options: UseStudyResultsOptions) -> UseStudyResults {
    let UseStudyResultsOptions { lib, draft, published, closed, server } = options;
    let local = RwSignal::new(None::<StudyResults>);
    let merged = RwSignal::new(Vec::<StudyResults>::new());
    let message = RwSignal::new(None::<String>);
    let refresh = RwSignal::new(0u32);
    let unsaved = RwSignal::new(Vec::<StudyResults>::new());
    let earlier_sessions = RwSignal::new(0usize);
    let design = Memo::new(move |_| {
        let id = draft.with(|d| d.id.clone());
        published.get().filter(|p| p.id == id).unwrap_or_else(|| draft.get())
    });
    // Only the newest read is shown (an older one may finish later).
    let generation = StoredValue::new(0u32);
    Effect::new(move |_| {
        refresh.track();
        if !closed.get() {
            return;
        }
        let study = design.get();
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        spawn_local(async move {
            let id = study.id.clone();
            let (sessions, files) = (store::sessions(&lib, &id).await, store::merged(&lib, &id).await);
            if generation.get_value() != mine {
                return;
            }
            match sessions {
                Ok(list) => {
                    let fingerprint = study.fingerprint();
                    let (same, earlier): (Vec<_>, Vec<_>) =
                        list.into_iter().partition(|s| s.ran_with(&fingerprint));
                    earlier_sessions.set(earlier.len());
                    let mut all = StudyResults::new(&id, Vec::new());
                    for s in same {
                        let _ = all.merge(&s.results());
                    }
                    local.set(Some(all));
                }
                Err(e) => message.set(Some(e.to_string())),
            }
            match files {
                Ok(files) => merged.set(files),
                Err(e) => message.set(Some(e.to_string())),
            }
        });
    });
    let everything = Memo::new(move |_| {
        let id = design.with(|d| d.id.clone());
        // A read of another id (the draft just became a new version) is not this study's.
        let mut all = local.get().filter(|l| l.study_id == id)?;
        for m in merged.get().iter().chain(unsaved.get().iter()).chain(server.get().as_ref()) {
            if m.study_id == id {
                let _ = all.merge(m);
            }
        }
        Some(all)
    });
    let answered =
        Memo::new(move |_| everything.with(|a| a.as_ref().map_or(0, |a| a.without_tests().responses.len())));
    let include_tests = RwSignal::new(false);
    let tests = Memo::new(move |_| {
        everything.with(|a| a.as_ref().map(StudyResults::test_participants).unwrap_or_default())
    });
    let chosen = Memo::new(move |_| {
        let all = everything.get()?;
        Some(if include_tests.get() { all } else { all.without_tests() })
    });
    let engines =
        Memo::new(move |_| chosen.with(|c| c.as_ref().map(StudyResults::by_engine).unwrap_or_default()));
    let precise_only = RwSignal::new(false);
    let combined = Memo::new(move |_| {
        let c = chosen.get()?;
        Some(if precise_only.get() { c.precise_only().0 } else { c })
    });
    let summary = Memo::new(move |_| {
        let s = design.get();
        combined.get().filter(|_| !s.is_threshold()).map(|r| summarize(&s, &r))
    });
    let threshold = Memo::new(move |_| {
        let d = design.with(|s| s.threshold.clone())?;
        let trials = combined.with(|r| r.as_ref().map(|r| trials_of(&r.responses)))?;
        Some(threshold::summarize(&d, &trials, d.seed))
    });
    let scenario_note = RwSignal::new(None::<String>);
    // A note about the fit ("no fit yet") is stale once the answers change.
    Effect::new(move |_| {
        threshold.track();
        scenario_note.set(None);
    });
    UseStudyResults {
        combined,
        tests,
        include_tests,
        engines,
        precise_only,
        summary,
        threshold,
        message,
        scenario_note,
        design,
        answered,
        earlier_sessions,
        refresh,
        unsaved,
        lib,
    }
}

impl UseStudyResults {
    /// Reads this browser's sessions again.
    pub fn refresh(&self) {
        self.refresh.update(|n| *n += 1);
    }

    /// Merges other participants' results files.
    pub fn merge(&self, chosen: Vec<web_sys::File>) {
        let r = *self;
        spawn_local(async move {
            let mut notes = Vec::new();
            let id = r.design.with_untracked(|d| d.id.clone());
            for f in chosen {
                let name = f.name();
                let read = files::read_text(&f, MAX_RESULTS_BYTES)
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|t| StudyResults::from_json(&t).map_err(|e| e.to_string()));
                match read {
                    Ok(res) if res.study_id != id => {
                        notes.push(format!("{name}: belongs to study \"{}\", not \"{id}\"", res.study_id))
                    }
                    Ok(res) => {
                        let (answers, people) = (res.responses.len(), res.participants().len());
                        notes.push(format!("{name}: {answers} answer(s) of {people} participant(s) merged"));
                        r.lib.save_text(
                            EntryKind::Study,
                            &format!("merged · {name}"),
                            &res.to_json(),
                            answers,
                        );
                        if let Err(e) = store::save_merged(&r.lib, &res).await {
                            notes.push(format!("{name} is not kept for next time: {e}"));
                            r.unsaved.update(|m| m.push(res));
                        }
                    }
                    Err(e) => notes.push(format!("{name}: {e}")),
                }
            }
            r.message.set(Some(notes.join("; ")));
            r.refresh();
        });
    }

    /// Saves the threshold study's tiers into scenario `base` as a custom
    /// scenario (`<base>-perceived`) every analysis scores with.
    pub fn perceived_scenario(&self, base: &str, scenarios: UseScenarios) {
        let s = self.design.get_untracked();
        let made = self.threshold.with_untracked(|t| {
            let t = t.as_ref().ok_or(slo::PerceivedError::NoFit)?;
            let base = scenarios.all.with_untracked(|all| all.iter().find(|x| x.id == base).cloned());
            threshold::from_study(&s, t, &base.ok_or(slo::PerceivedError::NotThreshold)?)
        });
        let note = match made {
            Ok(scenario) => {
                let name = scenario.name.clone();
                match scenarios.save(scenario) {
                    Ok(()) => {
                        format!("Saved the scenario \"{name}\": Live, Import and Analyze now score with it.")
                    }
                    Err(e) => format!("The scenario could not be saved: {e}"),
                }
            }
            Err(e) => e.to_string(),
        };
        self.scenario_note.set(Some(note));
    }

    /// Offers the results as `csv`, `json` or an HTML `report`.
    pub fn export(&self, kind: &str) {
        let Some(res) = self.combined.get_untracked() else { return };
        let s = self.design.get_untracked();
        let (name, mime, text) = match kind {
            "csv" if s.is_threshold() => (
                format!("{}-trials.csv", s.id),
                "text/csv",
                threshold::to_csv(&s.id, &trials_of(&res.responses)),
            ),
            "csv" => (format!("{}-results.csv", s.id), "text/csv", to_csv(&res)),
            "json" => (format!("{}-results.json", s.id), "application/json", res.to_json()),
            _ if s.is_threshold() => {
                let Some(summary) = self.threshold.get_untracked() else { return };
                let html = lab_core::share::threshold_report::threshold_report(&s, &summary, &page::today());
                (format!("{}-report.html", s.id), "text/html", html)
            }
            _ => {
                let sum = summarize(&s, &res);
                (format!("{}-report.html", s.id), "text/html", report::study_report(&s, &sum, &page::today()))
            }
        };
        if let Err(e) = download_text(&name, mime, &text) {
            self.message.set(Some(e.to_string()));
        }
    }
}
