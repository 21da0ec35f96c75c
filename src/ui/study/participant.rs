//! Participant mode: a clean full-screen flow (consent, instructions, then
//! each trial: play, answer) that never shows a condition's name, profile or
//! metrics, only blind labels ("Sample 3", "A", "B"). The session is saved
//! after every answer; a reload comes back to the same trial.
//!
//! Response time (`rt_ms`) runs from the end of playback (the last chunk of
//! the trial's slowest pane painted) to the click on the answer.

use lab_core::replay::profile::TextSource;
use lab_core::study::plan::{Block, Trial};
use lab_core::study::results::{Answer, Session};
use lab_core::study::{ConditionSource, Question, Study};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::clock::now_ms;
use crate::browser::files::{download_text, js_message};
use crate::browser::library::Library;
use crate::browser::scheduler::{PaneInput, SchedulerKind, use_replay_engine};
use crate::browser::sink::RenderMode;
use crate::browser::study_store::{self, SessionRef};
use crate::ui::library::today;
use crate::ui::replay::{PaneConfig, PaneSource, ProfileDraft};

/// Where the participant is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Reading (and accepting) the consent text.
    Consent,
    /// Reading the instructions.
    Instructions,
    /// Came back after a reload.
    Resume,
    /// Before a trial plays.
    Ready,
    /// The trial plays.
    Playing,
    /// Answering; playback ended at this page time (ms).
    Answer(f64),
    /// Every trial answered.
    Done,
}

/// The participant session shown (provided as context by the study view).
#[derive(Clone, Copy)]
pub struct ParticipantFlow {
    /// The study.
    pub study: RwSignal<Option<Study>>,
    /// The session.
    pub session: RwSignal<Option<Session>>,
    /// The step.
    pub step: RwSignal<Step>,
    /// A storage problem, shown to the participant.
    pub error: RwSignal<Option<String>>,
    /// Saves started and not yet committed (shown as "saving…").
    pub pending: RwSignal<u32>,
    /// Whether the last save failed (shown as "not saved"); kept apart from
    /// `error`, which also reports problems that lose no answer.
    pub save_failed: RwSignal<bool>,
}

impl ParticipantFlow {
    /// A closed flow.
    pub fn new() -> Self {
        Self {
            study: RwSignal::new(None),
            session: RwSignal::new(None),
            step: RwSignal::new(Step::Ready),
            error: RwSignal::new(None),
            pending: RwSignal::new(0),
            save_failed: RwSignal::new(false),
        }
    }

    /// True while the flow is shown.
    pub fn is_open(&self) -> bool {
        self.study.with(Option::is_some)
    }

    /// Starts a new participant of `study` (numbered after the sessions
    /// already in this browser).
    pub fn begin(&self, lib: Library, study: Study) {
        let flow = *self;
        spawn_local(async move {
            let number = study_store::sessions(&lib, &study.id).await.map(|s| s.len() as u32).unwrap_or(0);
            let participant =
                format!("p{:03}-{:06x}", number + 1, (js_sys::Math::random() * 16_777_215.0) as u32);
            let session = Session::new(&study, participant, number);
            let saved = async {
                study_store::save_study(&lib, &study).await?;
                study_store::save_session(&lib, &session).await?;
                study_store::set_active(
                    &lib,
                    Some(&SessionRef {
                        study_id: study.id.clone(),
                        participant: session.participant.clone(),
                    }),
                )
                .await
            };
            let saved = saved.await;
            flow.save_failed.set(saved.is_err());
            if let Err(e) = saved {
                flow.error.set(Some(format!("Answers cannot be saved in this browser: {e}")));
            }
            flow.step.set(if study.consent.is_some() { Step::Consent } else { Step::Instructions });
            flow.session.set(Some(session));
            flow.study.set(Some(study));
            set_hash("participate");
        });
    }

    /// Opens a session saved earlier (after a reload).
    pub fn resume(&self, study: Study, session: Session) {
        let done = session.is_complete(&study);
        self.step.set(match (done, session.consented) {
            (true, _) => Step::Done,
            (false, false) => Step::Consent,
            (false, true) => Step::Resume,
        });
        self.session.set(Some(session));
        self.study.set(Some(study));
    }

    /// Leaves participant mode (the session stays saved).
    pub fn close(&self, lib: Library) {
        self.study.set(None);
        self.session.set(None);
        set_hash("study");
        spawn_local(async move {
            let _ = study_store::set_active(&lib, None).await;
        });
    }

    fn save(&self, lib: Library) {
        let Some(session) = self.session.get_untracked() else { return };
        let flow = *self;
        flow.pending.update(|n| *n += 1);
        spawn_local(async move {
            let result = study_store::save_session(&lib, &session).await;
            flow.save_failed.set(result.is_err());
            match result {
                Ok(()) => flow.error.set(None),
                Err(e) => flow.error.set(Some(format!("Your last answer could not be saved: {e}"))),
            }
            flow.pending.update(|n| *n = n.saturating_sub(1));
        });
    }
}

impl Default for ParticipantFlow {
    fn default() -> Self {
        Self::new()
    }
}

fn set_hash(h: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_hash(h);
    }
}

/// The pane a condition plays: its profile with the study's text (so every
/// condition streams the same words), or its recorded request.
pub fn condition_pane(study: &Study, id: &str) -> Option<PaneConfig> {
    let c = study.conditions.iter().find(|c| c.id == id)?;
    let source = match &c.source {
        ConditionSource::Profile(_) => {
            let mut profile = c.profile().ok()??;
            profile.text = TextSource::Sample { id: study.text.clone() };
            PaneSource::Profile(ProfileDraft { profile, prompt_tokens: 0 })
        }
        ConditionSource::Recorded(r) => PaneSource::Recorded { label: c.id.clone(), request: r.clone() },
    };
    Some(PaneConfig { title: c.id.clone(), source })
}

/// The full-screen participant flow.
#[component]
pub fn ParticipantMode() -> impl IntoView {
    let flow = expect_context::<ParticipantFlow>();
    let lib = expect_context::<Library>();
    let engine = use_replay_engine(None);
    let outputs: [NodeRef<leptos::html::Div>; 2] = [NodeRef::new(), NodeRef::new()];

    let trial = Memo::new(move |_| {
        let study = flow.study.get()?;
        flow.session.with(|s| s.as_ref()?.current(&study).cloned())
    });
    let progress = move || {
        let study = flow.study.get()?;
        flow.session.with(|s| s.as_ref().map(|s| (s.done_trials(&study), s.trials.len())))
    };

    let play = move || {
        let (Some(study), Some(t)) = (flow.study.get_untracked(), trial.get_untracked()) else { return };
        let inputs: Vec<PaneInput> = t
            .conditions
            .iter()
            .zip(outputs.iter())
            .enumerate()
            .filter_map(|(k, (id, out))| {
                let cfg = condition_pane(&study, id)?;
                let el: web_sys::Element = AsRef::<web_sys::Element>::as_ref(&out.get_untracked()?).clone();
                Some(PaneInput {
                    title: ["A", "B"][k].to_string(),
                    source: "study".into(),
                    chunks: cfg.chunks(),
                    output: el,
                })
            })
            .collect();
        engine.load(inputs, RenderMode::Markdown, SchedulerKind::Precise);
        flow.step.set(Step::Playing);
        spawn_local(async move {
            engine.ready().await;
            engine.play();
        });
    };
    // Playback ends when every pane of the trial has its result.
    Effect::new(move |_| {
        let Some(t) = trial.get() else { return };
        let n = t.conditions.len();
        let all = (0..n).all(|i| engine.panes[i].result.with(Option::is_some));
        if all && flow.step.get_untracked() == Step::Playing {
            flow.step.set(Step::Answer(now_ms()));
        }
    });
    // Hidden tab: the engine pauses; the participant replays the trial.
    Effect::new(move |_| {
        if engine.notice.get().is_some() && flow.step.get_untracked() == Step::Playing {
            flow.step.set(Step::Ready);
        }
    });

    let answer = move |question: String, a: Answer| {
        let Step::Answer(ended) = flow.step.get_untracked() else { return };
        let Some(study) = flow.study.get_untracked() else { return };
        let rt = now_ms() - ended;
        let current = trial.get_untracked().map(|t| t.index);
        let mut result = Ok(());
        flow.session.update(|s| {
            if let Some(s) = s {
                result = s.answer(&study, &question, a, rt);
            }
        });
        if let Err(e) = result {
            flow.error.set(Some(e.to_string()));
            return;
        }
        flow.save(lib);
        // Next trial once every question of this one is answered.
        let (next, done) = flow.session.with_untracked(|s| {
            let s = s.as_ref();
            (s.and_then(|s| s.current(&study)).map(|t| t.index), s.is_some_and(|s| s.is_complete(&study)))
        });
        if done {
            flow.step.set(Step::Done);
            save_results(lib, flow);
        } else if next != current {
            // The next sample starts from an empty pane.
            for out in &outputs {
                if let Some(el) = out.get_untracked() {
                    el.set_inner_html("");
                }
            }
            flow.step.set(Step::Ready);
        }
    };

    let accept_consent = move |_| {
        flow.session.update(|s| {
            if let Some(s) = s {
                s.consented = true;
            }
        });
        flow.save(lib);
        flow.step.set(Step::Instructions);
    };
    let fullscreen = move |_| {
        if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
            let _ = el.request_fullscreen();
        }
    };
    let quit = move |_| {
        let ok = web_sys::window()
            .and_then(|w| w.confirm_with_message("Leave the study? Your answers so far are saved.").ok())
            .unwrap_or(true);
        if ok {
            engine.pause();
            flow.close(lib);
        }
    };

    view! {
        <div class="participant" data-testid="participant" hidden=move || !flow.is_open() role="dialog" aria-modal="true"
            aria-label="Study">
            <div class="participant-bar">
                <span data-testid="participant-progress">{move || progress().map(|(d, n)| format!("{d} of {n} done"))}</span>
                <span data-testid="participant-saved" aria-live="polite">
                    {move || {
                        if flow.pending.get() > 0 {
                            "saving…"
                        } else if flow.save_failed.get() {
                            "not saved"
                        } else {
                            "saved"
                        }
                    }}
                </span>
                <span class="spacer"></span>
                <button type="button" class="link" on:click=fullscreen>"Full screen"</button>
                <button type="button" class="link" data-testid="participant-quit" on:click=quit>"Leave"</button>
            </div>
            {move || flow.error.get().map(|m| view! { <p class="error" role="alert" data-testid="participant-error">{m}</p> })}
            <div class="participant-body">
                {move || {
                    let study = flow.study.get()?;
                    Some(match flow.step.get() {
                        Step::Consent => view! {
                            <div class="participant-card" data-testid="participant-consent">
                                <h2>{study.title.clone()}</h2>
                                <p class="consent-text">{study.consent.clone().unwrap_or_default()}</p>
                                <button type="button" data-testid="consent-accept" on:click=accept_consent>"I agree"</button>
                            </div>
                        }.into_any(),
                        Step::Instructions => view! {
                            <div class="participant-card" data-testid="participant-instructions">
                                <h2>{study.title.clone()}</h2>
                                <p>{study.instructions.clone()}</p>
                                <button type="button" data-testid="participant-begin" on:click=move |_| flow.step.set(Step::Ready)>"Begin"</button>
                            </div>
                        }.into_any(),
                        Step::Resume => view! {
                            <div class="participant-card" data-testid="participant-resume">
                                <h2>"Welcome back"</h2>
                                <p>{move || progress().map(|(d, n)| format!("Your answers are saved: {d} of {n} done. Continue where you left off."))}</p>
                                <button type="button" data-testid="participant-continue" on:click=move |_| flow.step.set(Step::Ready)>"Continue"</button>
                            </div>
                        }.into_any(),
                        Step::Done => view! {
                            <div class="participant-card" data-testid="participant-done">
                                <h2>"Thank you!"</h2>
                                <p>"All done. Your answers are saved in this browser. If the researcher asked for them, download them here and send the file."</p>
                                <button type="button" data-testid="participant-download" on:click=move |_| {
                                    if let Some(s) = flow.session.get_untracked() {
                                        let name = format!("{}-{}.results.json", s.study_id, s.participant);
                                        if let Err(e) = download_text(&name, "application/json", &s.results().to_json()) {
                                            flow.error.set(Some(js_message(&e)));
                                        }
                                    }
                                }>"Download my answers"</button>
                                <button type="button" class="secondary" data-testid="participant-close" on:click=move |_| flow.close(lib)>"Close"</button>
                            </div>
                        }.into_any(),
                        Step::Ready | Step::Playing | Step::Answer(_) => ().into_any(),
                    })
                }}
                <div class="participant-trial" hidden=move || !matches!(flow.step.get(), Step::Ready | Step::Playing | Step::Answer(_))>
                    <p class="trial-title" data-testid="trial-title">{move || trial.get().map(|t| trial_title(&t))}</p>
                    <div class="trial-panes" data-panes=move || trial.get().map_or(1, |t| t.conditions.len())>
                        {(0..2).map(|i| view! {
                            <div class="trial-pane" hidden=move || trial.get().is_none_or(|t| t.conditions.len() <= i)>
                                <h3>{move || if trial.get().is_some_and(|t| t.block == Block::Choice) { ["A", "B"][i] } else { "" }}</h3>
                                <div class="stream-output markdown" data-testid=format!("trial-output-{i}") node_ref=outputs[i] aria-live="off"></div>
                            </div>
                        }).collect_view()}
                    </div>
                    <div class="trial-actions">
                        <button type="button" data-testid="trial-play" hidden=move || flow.step.get() != Step::Ready
                            on:click=move |_| play()>"Play"</button>
                        <p hidden=move || flow.step.get() != Step::Playing class="hint">"Watch until it is complete…"</p>
                    </div>
                    {move || {
                        let Step::Answer(_) = flow.step.get() else { return None };
                        let study = flow.study.get()?;
                        let t = trial.get()?;
                        let answered: Vec<String> = flow.session.with(|s| s.as_ref().map(|s| s.responses.iter().filter(|r| r.trial == t.index).map(|r| r.question.clone()).collect()))?;
                        Some(Session::questions(&study, &t).into_iter().filter(|q| !answered.contains(&q.id().to_string())).take(1).map(|q| question_view(q, answer)).collect_view())
                    }}
                </div>
            </div>
        </div>
    }
}

fn trial_title(t: &Trial) -> String {
    match t.block {
        Block::Rating => format!("Sample {}", t.index + 1),
        Block::Choice => format!("Pair {}: A and B", t.index + 1),
    }
}

fn question_view(q: &Question, answer: impl Fn(String, Answer) + Copy + 'static) -> AnyView {
    match q.clone() {
        Question::Rating { id, prompt, points, low, high } => view! {
            <fieldset class="question" data-testid="question-rating" data-question=id.clone()>
                <legend>{prompt}</legend>
                <div class="likert">
                    <span class="likert-end">{low}</span>
                    {(1..=points).map(|v| {
                        let id = id.clone();
                        view! {
                            <button type="button" class="likert-point" data-testid=format!("rate-{v}")
                                on:click=move |_| answer(id.clone(), Answer::Rating(v))>{v}</button>
                        }
                    }).collect_view()}
                    <span class="likert-end">{high}</span>
                </div>
            </fieldset>
        }
        .into_any(),
        Question::Choice { id, prompt } => {
            let (id2, id3) = (id.clone(), id.clone());
            view! {
                <fieldset class="question" data-testid="question-choice" data-question=id3>
                    <legend>{prompt}</legend>
                    <div class="choice">
                        <button type="button" data-testid="choose-a" on:click=move |_| answer(id.clone(), Answer::Choice(0))>"A"</button>
                        <button type="button" data-testid="choose-b" on:click=move |_| answer(id2.clone(), Answer::Choice(1))>"B"</button>
                    </div>
                </fieldset>
            }
            .into_any()
        }
    }
}

/// Adds the finished session's answers to the library (kind "study").
fn save_results(lib: Library, flow: ParticipantFlow) {
    let (Some(study), Some(session)) = (flow.study.get_untracked(), flow.session.get_untracked()) else {
        return;
    };
    let name = format!("{} · {} · {}", study.title, session.participant, today());
    lib.save_text(
        lab_core::share::library::EntryKind::Study,
        &name,
        &session.results().to_json(),
        session.responses.len(),
    );
    spawn_local(async move {
        let _ = study_store::set_active(&lib, None).await;
    });
}
