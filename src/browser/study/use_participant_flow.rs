//! The participant flow hook: one participant's way through a study
//! (`lab_core::study::flow::Flow`, where every step and transition is
//! defined), played by a replay engine and saved after every change, so a
//! reload (or a crash) loses no answer. The session in progress is named in
//! storage, so `#participate` after a reload finds it again.
//!
//! Focus: whenever a new step or question appears, the element marked
//! `data-autofocus` in the flow's overlay gets the keyboard focus (the
//! question, or the Play button), and [`UseParticipantFlow::announcement`]
//! says it for screen readers.

use lab_core::share::route::{Route, View};
use lab_core::study::flow::{AfterAnswer, Flow, Step, is_test, trial_title};
use lab_core::study::results::Answer;
use lab_core::study::submit::Submission;
use lab_core::study::timing::Timing;
use lab_core::trace::Released;
use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use super::store;
use super::timing_check::{check_timing, played};
use super::use_outbox::{UseOutbox, use_outbox};
use crate::browser::clock::now_ms;
use crate::browser::files::download_text;
use crate::browser::library::Library;
use crate::browser::page;
use crate::browser::replay::{RenderMode, ReplayEngine, SchedulerKind, use_replay_engine};
use crate::browser::use_route::UseRoute;

/// The flow and what a participant can do (provided as context by the app).
#[derive(Clone, Copy)]
pub struct UseParticipantFlow {
    /// The flow, while a participant is in it.
    pub flow: RwSignal<Option<Flow>>,
    /// A storage problem, shown to the participant.
    pub error: RwSignal<Option<String>>,
    /// Saves started and not yet committed (shown as "saving…").
    pub pending: RwSignal<u32>,
    /// Whether the last save failed (shown as "not saved").
    pub save_failed: RwSignal<bool>,
    /// What a screen reader should say now (a new question, a new trial).
    pub announcement: Memo<String>,
    /// The overlay (focus moves inside it).
    pub overlay: NodeRef<Div>,
    /// Where the two samples of a trial play.
    pub outputs: [NodeRef<Div>; 2],
    /// The study server's id of the study, when it was published there.
    pub server: RwSignal<Option<String>>,
    /// Answers on their way to the study server.
    pub outbox: UseOutbox,
    /// What this browser can show (checked when the flow opens, before
    /// consent; `None` while checking).
    pub timing: RwSignal<Option<Timing>>,
    engine: ReplayEngine,
    pub(super) lib: Library,
    pub(super) route: UseRoute,
    pub(super) starting: StoredValue<bool>,
}

/// Creates the (closed) flow.
pub fn use_participant_flow(lib: Library, route: UseRoute) -> UseParticipantFlow {
    let flow = RwSignal::new(None::<Flow>);
    let announcement = Memo::new(move |_| flow.with(|f| f.as_ref().map(announce).unwrap_or_default()));
    let f = UseParticipantFlow {
        flow,
        error: RwSignal::new(None),
        pending: RwSignal::new(0),
        save_failed: RwSignal::new(false),
        announcement,
        overlay: NodeRef::new(),
        outputs: [NodeRef::new(), NodeRef::new()],
        server: RwSignal::new(None),
        outbox: use_outbox(lib),
        timing: RwSignal::new(None),
        engine: use_replay_engine(),
        lib,
        route,
        starting: StoredValue::new(false),
    };
    // Playback ends when every pane of the trial has its result; a hidden
    // tab stops it, and the trial plays again.
    Effect::new(move |_| {
        let playing = flow.with(|f| {
            f.as_ref()
                .filter(|f| f.step == Step::Playing)
                .map(|f| f.trial().map_or(0, |t| t.conditions.len()))
        });
        let Some(n) = playing else { return };
        if (0..n).all(|i| f.engine.panes[i].result.with(Option::is_some)) {
            let released: Vec<Released> = (0..n)
                .filter_map(|i| {
                    f.engine.panes[i].result.with_untracked(|r| {
                        r.as_ref().and_then(|r| r.trace.meta.replay.as_ref().map(|x| x.released_by))
                    })
                })
                .collect();
            let timing = played(f.timing.get_untracked(), &released);
            flow.update(|fl| fl.iter_mut().for_each(|fl| fl.playback_ended(now_ms(), Some(timing))));
        } else if f.engine.notice.get().is_some() {
            flow.update(|f| f.iter_mut().for_each(Flow::interrupted));
        }
    });
    // The browser is checked once, when a participant first opens the flow.
    let checked = StoredValue::new(false);
    Effect::new(move |_| {
        if flow.with(Option::is_some) && !checked.get_value() {
            checked.set_value(true);
            let engine = f.engine;
            spawn_local(async move { f.timing.set(Some(check_timing(engine).await)) });
        }
    });
    // Focus follows what is asked.
    Effect::new(move |_| {
        announcement.track();
        let overlay = f.overlay;
        request_animation_frame(move || {
            let target =
                overlay.get_untracked().and_then(|o| o.query_selector("[data-autofocus]").ok().flatten());
            if let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
                let _ = el.focus();
            }
        });
    });
    f
}

/// What the participant is asked, in words.
fn announce(f: &Flow) -> String {
    let title = f.trial().map(trial_title).unwrap_or_default();
    match f.step {
        Step::Consent => format!("{}: please read the consent.", f.study.title),
        Step::Instructions => format!("{}: instructions.", f.study.title),
        Step::Resume => "Welcome back.".into(),
        Step::Ready => format!("{title}: press Play."),
        Step::Playing => format!("{title} is playing."),
        Step::Answer(_) => f.question().map(|q| format!("{title}: {}", q.prompt())).unwrap_or_default(),
        Step::Done => "All done. Thank you!".into(),
        Step::Declined => "You did not agree: nothing was recorded.".into(),
    }
}

impl UseParticipantFlow {
    /// True while a participant is in the flow.
    pub fn is_open(&self) -> bool {
        self.flow.with(Option::is_some)
    }

    /// True while a new participant is being set up.
    pub fn starting(&self) -> bool {
        self.starting.get_value()
    }

    /// Leaves the flow (the session stays saved and resumable).
    pub fn close(&self) {
        self.engine.pause();
        self.flow.set(None);
    }

    /// Ends participation: the flow closes, no session is in progress, and
    /// the study view shows (to a researcher's test session; a participant
    /// lands on the start page, away from any design).
    pub fn leave(&self) {
        let test = self.flow.with_untracked(|f| f.as_ref().is_some_and(|f| is_test(&f.session.participant)));
        self.close();
        self.route.go(if test { Route::View(View::Study) } else { Route::Landing });
        let lib = self.lib;
        spawn_local(async move {
            let _ = store::set_active(&lib, None).await;
        });
    }

    /// Consent given.
    pub fn accept_consent(&self) {
        self.flow.update(|f| f.iter_mut().for_each(Flow::accept_consent));
        self.save();
    }

    /// Consent declined (nothing is saved or sent), or `false`: back to it.
    pub fn decline_consent(&self, declined: bool) {
        let step = if declined { Flow::decline_consent } else { Flow::reconsider };
        self.flow.update(|f| f.iter_mut().for_each(step));
    }

    /// From the instructions (or the welcome back) to the trials.
    pub fn start_trials(&self) {
        self.flow.update(|f| f.iter_mut().for_each(Flow::start_trials));
    }

    /// Plays the current trial.
    pub fn play(&self) {
        let mut panes = None;
        self.flow.update(|f| panes = f.as_mut().and_then(Flow::play));
        let Some(panes) = panes else { return };
        let outputs = self
            .outputs
            .iter()
            .filter_map(|o| o.get_untracked().map(|e| -> web_sys::Element { (*e).clone().into() }));
        self.engine.load(
            panes.into_iter().zip(outputs).collect(),
            RenderMode::Markdown,
            SchedulerKind::Precise,
        );
        let engine = self.engine;
        spawn_local(async move {
            engine.ready().await;
            engine.play();
        });
    }

    /// The participant's answer to `question`.
    pub fn answer(&self, question: String, answer: Answer) {
        let mut outcome = None;
        self.flow.update(|f| outcome = f.as_mut().map(|f| f.answer(&question, answer, now_ms())));
        match outcome {
            Some(Err(e)) => self.error.set(Some(e.to_string())),
            Some(Ok(next)) => {
                self.save();
                self.send_last();
                match next {
                    AfterAnswer::Done => self.save_results(),
                    AfterAnswer::NextTrial => self.clear_outputs(),
                    AfterAnswer::NextQuestion => {}
                }
            }
            None => {}
        }
    }

    /// Sends the answer just given to the study server, if the study is
    /// published there.
    fn send_last(&self) {
        let Some(id) = self.server.get_untracked() else { return };
        let answer = self.flow.with_untracked(|f| {
            let s = &f.as_ref()?.session;
            Some(Submission::of(s.responses.last()?, s.number))
        });
        if let Some(a) = answer {
            self.outbox.push(id, a);
        }
    }

    /// The next sample starts from empty panes.
    fn clear_outputs(&self) {
        for out in &self.outputs {
            if let Some(el) = out.get_untracked() {
                el.set_text_content(None);
            }
        }
    }

    /// Offers the participant's answers as a file.
    pub fn download_answers(&self) {
        let Some(session) = self.flow.with_untracked(|f| f.as_ref().map(|f| f.session.clone())) else {
            return;
        };
        let name = format!("{}-{}.results.json", session.study_id, session.participant);
        if let Err(e) = download_text(&name, "application/json", &session.results().to_json()) {
            self.error.set(Some(e.to_string()));
        }
    }

    fn save(&self) {
        let Some(session) = self.flow.with_untracked(|f| f.as_ref().map(|f| f.session.clone())) else {
            return;
        };
        let s = *self;
        s.pending.update(|n| *n += 1);
        spawn_local(async move {
            let result = store::save_session(&s.lib, &session).await;
            s.save_failed.set(result.is_err());
            s.error.set(result.err().map(|e| format!("Your last answer could not be saved: {e}")));
            s.pending.update(|n| *n = n.saturating_sub(1));
        });
    }

    /// Adds the finished session's answers to the library (kind "study").
    fn save_results(&self) {
        let Some((title, session)) =
            self.flow.with_untracked(|f| f.as_ref().map(|f| (f.study.title.clone(), f.session.clone())))
        else {
            return;
        };
        let name = format!("{title} · {} · {}", session.participant, page::today());
        self.lib.save_text(
            lab_core::share::library::EntryKind::Study,
            &name,
            &session.results().to_json(),
            session.responses.len(),
        );
        let lib = self.lib;
        spawn_local(async move {
            let _ = store::set_active(&lib, None).await;
        });
    }
}
