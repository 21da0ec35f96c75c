//! The replay lab's hook: which panes play (a story, profiles, recorded
//! requests of this session or of a trace file, panes handed over by another
//! view), how they render and which scheduler plays them, and the finished
//! playbacks saved to the library and the session's runs. Share links of
//! the panes: [`super::replay_links`].

use lab_core::replay::pane::{PaneChoice, PaneConfig, PaneSource, ProfileDraft, story_panes};
use lab_core::replay::profile;
use lab_core::replay::story;
use lab_core::share::link::ShareError;
use leptos::html::Div;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::files;
use super::library::Library;
use super::paint::measure_refresh_hz;
use super::replay::{MAX_PANES, RenderMode, ReplayEngine, SchedulerKind, use_replay_engine};
use super::use_session_runs::SessionRuns;

/// Fewest panes side by side.
pub const MIN_PANES: usize = 2;

/// The lab's state and actions (provided as context by the app).
#[derive(Clone, Copy)]
pub struct UseReplayLab {
    /// The engine playing the panes.
    pub engine: ReplayEngine,
    /// The story shown (empty when the panes are no story).
    pub story_id: RwSignal<String>,
    /// The panes.
    pub panes: RwSignal<Vec<PaneConfig>>,
    /// Plain text or Markdown.
    pub render: RwSignal<RenderMode>,
    /// Precise or naive.
    pub scheduler: RwSignal<SchedulerKind>,
    /// Playback speed.
    pub speed: RwSignal<f64>,
    /// Start again at the end.
    pub looping: RwSignal<bool>,
    /// Why a trace file could not be played.
    pub file_error: RwSignal<Option<String>>,
    /// The last share link (or why there is none).
    pub share_link: RwSignal<Option<Result<String, ShareError>>>,
    /// Where each pane's text goes.
    pub outputs: [NodeRef<Div>; MAX_PANES],
    runs: SessionRuns,
}

/// Said when the playback was paused by leaving the view.
pub const LEFT_NOTICE: &str = "Paused when you left this view. Press Play to continue.";

/// What [`use_replay_lab`] works with.
#[derive(Clone, Copy)]
pub struct UseReplayLabOptions {
    /// Saves recordings and opens saved traces.
    pub lib: Library,
    /// This page's runs, offered as pane sources.
    pub runs: SessionRuns,
    /// The replay view is shown; playback pauses when it turns false.
    pub active: Signal<bool>,
    /// Plays the landing story as soon as its panes are on the page.
    pub autoplay: bool,
}

/// Creates the lab on the landing story.
pub fn use_replay_lab(options: UseReplayLabOptions) -> UseReplayLab {
    let UseReplayLabOptions { lib, runs, active, autoplay } = options;
    let first = story::stories().swap_remove(0);
    let lab = UseReplayLab {
        engine: use_replay_engine(),
        story_id: RwSignal::new(first.id.clone()),
        panes: RwSignal::new(story_panes(&first)),
        render: RwSignal::new(RenderMode::Text),
        scheduler: RwSignal::new(SchedulerKind::Precise),
        speed: RwSignal::new(1.0),
        looping: RwSignal::new(false),
        file_error: RwSignal::new(None),
        share_link: RwSignal::new(None),
        outputs: std::array::from_fn(|_| NodeRef::new()),
        runs,
    };
    spawn_local(async move {
        if let Some(hz) = measure_refresh_hz(20).await {
            lab.engine.set_refresh_hz(hz);
        }
    });
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        if lab.outputs[0].get().is_some() && !started.get_value() {
            started.set_value(true);
            lab.load(autoplay && active.get_untracked());
        }
    });
    // Leaving the view pauses a playback, and says so on return (Play
    // clears it).
    Effect::new(move |_| {
        if !active.get() && lab.engine.playing.get_untracked() {
            lab.engine.pause();
            lab.engine.notice.set(Some(LEFT_NOTICE.into()));
        }
    });
    // Every finished playback of the user's own panes joins the library and
    // the session's runs; a story as the lab tells it (the landing page's,
    // one chosen among the stories) is the lab's example, not a run of
    // theirs, so browsing the stories fills neither.
    let seen = StoredValue::new(0usize);
    Effect::new(move |_| {
        let done = lab.engine.finished.get();
        let story = !lab.story_id.with_untracked(String::is_empty);
        for run in done.iter().skip(seen.get_value()).filter(|_| !story) {
            lib.save_trace(&run.trace, true);
            runs.add(run.trace.clone());
        }
        seen.set_value(done.len());
    });
    lab
}

impl UseReplayLab {
    /// Loads the panes into the engine; plays them once the release clocks
    /// are ready when `play`.
    pub fn load(&self, play: bool) {
        let outputs = self
            .outputs
            .iter()
            .filter_map(|o| o.get_untracked().map(|e| -> web_sys::Element { (*e).clone().into() }));
        let loaded = self.panes.get_untracked().into_iter().zip(outputs).collect();
        self.engine.load(loaded, self.render.get_untracked(), self.scheduler.get_untracked());
        if play {
            let engine = self.engine;
            spawn_local(async move {
                engine.ready().await;
                if !engine.playing.get_untracked() {
                    engine.play();
                }
            });
        }
    }

    /// Plays a story.
    pub fn choose_story(&self, id: &str) {
        if let Some(s) = story::story(id) {
            self.story_id.set(s.id.clone());
            self.panes.set(story_panes(&s));
            self.load(true);
        }
    }

    /// Plays panes handed over by another view (an imported run's requests).
    pub fn show(&self, panes: Vec<PaneConfig>) {
        if panes.is_empty() {
            return;
        }
        self.story_id.set(String::new());
        self.panes.set(panes.into_iter().take(MAX_PANES).collect());
        self.load(true);
    }

    /// Applies an edited profile to pane `i`.
    pub fn edit_pane(&self, i: usize, draft: ProfileDraft) {
        self.set_pane(i, |c| c.source = PaneSource::Profile(draft));
    }

    /// Pane `i` paces its text onto the screen with `s`.
    pub fn set_smoothing(&self, i: usize, s: lab_core::replay::smooth::Smoothing) {
        self.set_pane(i, |c| c.smoothing = s);
    }

    /// Changes pane `i` (the panes are then no longer the story's).
    fn set_pane(&self, i: usize, f: impl FnOnce(&mut PaneConfig)) {
        self.story_id.set(String::new());
        self.panes.update(|p| {
            if let Some(c) = p.get_mut(i) {
                f(c);
            }
        });
        self.load(false);
    }

    /// Pane `i` plays what the source picker's `value` names (a preset, or a
    /// request of a session run).
    pub fn set_source(&self, i: usize, value: &str) {
        let cfg = match PaneChoice::parse(value) {
            Some(PaneChoice::Preset(name)) => profile::preset(name).map(PaneConfig::profile),
            Some(PaneChoice::Run { run, request }) => self.runs.runs.with_untracked(|runs| {
                let r = runs.iter().find(|r| r.id == run)?;
                let trace = &r.trace;
                let label = format!(
                    "{} #{}",
                    trace.meta.label.clone().unwrap_or_else(|| format!("run {run}")),
                    request + 1
                );
                Some(PaneConfig::recorded(label.clone(), label, trace.requests.get(request)?.clone()))
            }),
            None => None,
        };
        if let Some(c) = cfg {
            self.set_pane(i, |slot| *slot = c);
        }
    }

    /// Pane `i` plays the first request with tokens of a trace file.
    pub fn load_file(&self, i: usize, file: web_sys::File) {
        let lab = *self;
        spawn_local(async move {
            let name = file.name();
            let read = files::read_trace(&file).await;
            let trace = match read {
                Ok(t) => t,
                Err(e) => return lab.file_error.set(Some(e.to_string())),
            };
            let Some(r) = trace.requests.iter().find(|r| r.chunks.iter().any(|c| c.tokens > 0)) else {
                return lab
                    .file_error
                    .set(Some(format!("{name}: no request with generated tokens to replay")));
            };
            lab.file_error.set(None);
            let title = trace.meta.label.clone().unwrap_or_else(|| name.clone());
            let pane = PaneConfig::recorded(title, name, r.clone());
            lab.set_pane(i, |slot| *slot = pane);
        });
    }

    /// One more pane (a preset profile), up to [`MAX_PANES`].
    pub fn add_pane(&self) {
        self.story_id.set(String::new());
        self.panes.update(|p| {
            if p.len() < MAX_PANES {
                p.push(PaneConfig::profile(profile::presets()[2].clone()));
            }
        });
        self.load(false);
    }

    /// One pane fewer, down to [`MIN_PANES`].
    pub fn remove_pane(&self) {
        self.story_id.set(String::new());
        self.panes.update(|p| {
            if p.len() > MIN_PANES {
                p.pop();
            }
        });
        self.load(false);
    }

    /// Plays or pauses.
    pub fn toggle_play(&self) {
        if self.engine.playing.get_untracked() { self.engine.pause() } else { self.engine.play() }
    }

    /// Renders as plain text or Markdown (reloads the panes).
    pub fn set_render(&self, mode: RenderMode) {
        self.render.set(mode);
        self.load(false);
    }

    /// Plays with the precise or the naive scheduler (reloads the panes).
    pub fn set_scheduler(&self, kind: SchedulerKind) {
        self.scheduler.set(kind);
        self.load(false);
    }

    /// Changes the playback speed.
    pub fn set_speed(&self, speed: f64) {
        self.speed.set(speed);
        self.engine.set_speed(speed);
    }

    /// Loops at the end, or not.
    pub fn set_loop(&self, on: bool) {
        self.looping.set(on);
        self.engine.set_loop(on);
    }
}
