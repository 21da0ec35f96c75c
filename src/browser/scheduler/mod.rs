//! The replay scheduler: plays 1–4 panes together so that every chunk is
//! released at its due time, renders once per animation frame, and records
//! when each chunk was due, released and painted.
//!
//! Precise scheduler: due times come from `lab_core::replay::player::Replay`. They
//! are handed, as absolute times on the page's clock, to the release clocks
//! ([`super::release_clock`]): workers whose event loops are not held up by
//! the page's rendering, which release each chunk the moment it is due and
//! report that instant. The page then asks the state machine which chunks
//! are due at that instant (never early, in order) and records it as their
//! release time. Without workers, a timer that wakes [`SPIN_MS`] early and a
//! `MessageChannel` polling loop do the same on the page itself (less
//! precise: a frame being drawn delays them). Schedules are absolute, so
//! nothing drifts.
//!
//! Naive scheduler (for comparison): each chunk arms a `setTimeout` for the
//! gap to the next one, as a quick implementation would; its lateness adds
//! up and nested timers are clamped to 4 ms.
//!
//! Released text waits in a buffer and is put on the page in the next
//! `requestAnimationFrame` callback (one DOM update per pane per frame); that
//! callback's clock is the chunk's paint time. Frames arriving later than
//! 1.5 refresh intervals count as late. A hidden tab pauses the replay (and
//! says so): browsers throttle background timers, so it would play wrong.

use std::cell::RefCell;
use std::rc::Rc;

use lab_core::stream::live::LiveStats;
use lab_core::trace::{ReplayInfo, Trace};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

mod pane;
mod timers;

use pane::{PaneRt, finish_trace, new_pane};

use super::clock::now_ms;
use super::release_clock::ReleaseClocks;
use super::sink::{RenderMode, Sink};

/// Before a due time, the precise scheduler stops sleeping and polls (ms).
pub const SPIN_MS: f64 = 2.5;
/// Most panes played together.
pub const MAX_PANES: usize = 4;
/// A frame later than this many refresh intervals is late.
pub const LATE_FRAME_FACTOR: f64 = 1.5;
/// Live figures refresh at most this often (ms).
const STATS_INTERVAL_MS: f64 = 100.0;

/// Which scheduler plays the chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchedulerKind {
    /// Absolute due times, timer + MessageChannel polling.
    #[default]
    Precise,
    /// Chained `setTimeout` per gap.
    Naive,
}

impl SchedulerKind {
    /// Name used in traces.
    pub fn name(self) -> &'static str {
        match self {
            Self::Precise => "precise",
            Self::Naive => "naive",
        }
    }
}

/// What a pane plays.
#[derive(Debug, Clone)]
pub struct PaneInput {
    /// Caption (trace label).
    pub title: String,
    /// Source description (trace model field), e.g. `profile:fast-start`.
    pub source: String,
    /// Chunks: due offset (ms), text, tokens.
    pub chunks: Vec<(f64, String, u32)>,
    /// Where the text goes.
    pub output: web_sys::Element,
}

/// A pane's finished replay.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneResult {
    /// The recorded trace (due, released, painted per chunk).
    pub trace: Trace,
}

/// Signals of one pane slot.
#[derive(Clone, Copy)]
pub struct PaneSignals {
    /// Live figures.
    pub stats: RwSignal<LiveStats>,
    /// The last finished replay.
    pub result: RwSignal<Option<PaneResult>>,
}

struct Inner {
    panes: Vec<PaneRt>,
    kind: SchedulerKind,
    render: RenderMode,
    speed: f64,
    looping: bool,
    playing: bool,
    timer: Option<i32>,
    spin: bool,
    raf: bool,
    frames: u32,
    late: u32,
    last_frame: Option<f64>,
    refresh_ms: f64,
    last_stats: f64,
    clocks: Option<Rc<RefCell<ReleaseClocks>>>,
}

/// The engine (cheap to copy; owned by the reactive owner that made it).
#[derive(Clone, Copy)]
pub struct ReplayEngine {
    inner: StoredValue<Rc<RefCell<Inner>>, LocalStorage>,
    callbacks: StoredValue<Option<Rc<Callbacks>>, LocalStorage>,
    /// Playing or not.
    pub playing: RwSignal<bool>,
    /// A message for the user (hidden-tab pause).
    pub notice: RwSignal<Option<String>>,
    /// Per-pane signals (always [`MAX_PANES`] slots).
    pub panes: [PaneSignals; MAX_PANES],
    /// Finished replays, for the session's run list.
    pub finished: RwSignal<Vec<Trace>>,
}

/// JS callbacks, kept alive as long as the engine.
struct Callbacks {
    timeout: Closure<dyn FnMut()>,
    _message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    frame: Closure<dyn FnMut(f64)>,
    visibility: Closure<dyn FnMut()>,
    _port_in: web_sys::MessagePort,
    port_out: web_sys::MessagePort,
    naive: Vec<Closure<dyn FnMut()>>,
}

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// Creates the engine; it stops and releases its callbacks when the owner
/// is cleaned up.
pub fn use_replay_engine(refresh_hz: Option<f64>) -> ReplayEngine {
    let slot = || PaneSignals { stats: RwSignal::new(LiveStats::default()), result: RwSignal::new(None) };
    let engine = ReplayEngine {
        inner: StoredValue::new_local(Rc::new(RefCell::new(Inner {
            panes: Vec::new(),
            kind: SchedulerKind::Precise,
            render: RenderMode::Text,
            speed: 1.0,
            looping: false,
            playing: false,
            timer: None,
            spin: false,
            raf: false,
            frames: 0,
            late: 0,
            last_frame: None,
            refresh_ms: refresh_hz.filter(|h| *h > 1.0).map_or(1000.0 / 60.0, |h| 1000.0 / h),
            last_stats: f64::NEG_INFINITY,
            clocks: None,
        }))),
        callbacks: StoredValue::new_local(None),
        playing: RwSignal::new(false),
        notice: RwSignal::new(None),
        panes: [slot(), slot(), slot(), slot()],
        finished: RwSignal::new(Vec::new()),
    };
    engine.install();
    on_cleanup(move || {
        engine.pause();
        if let Some(rc) = engine.inner.try_get_value()
            && let Some(c) = rc.borrow_mut().clocks.take()
        {
            c.borrow().terminate();
        }
        if let Some(Some(cb)) = engine.callbacks.try_get_value()
            && let Some(doc) = window().and_then(|w| w.document())
        {
            let _ = doc.remove_event_listener_with_callback(
                "visibilitychange",
                cb.visibility.as_ref().unchecked_ref(),
            );
        }
        engine.callbacks.set_value(None);
    });
    engine
}

impl ReplayEngine {
    fn rc(&self) -> Rc<RefCell<Inner>> {
        self.inner.get_value()
    }

    fn install(&self) {
        let e = *self;
        let timeout = Closure::<dyn FnMut()>::new(move || {
            e.rc().borrow_mut().timer = None;
            e.arm();
        });
        let message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |_| e.on_spin());
        let frame = Closure::<dyn FnMut(f64)>::new(move |_ts: f64| e.on_frame());
        let visibility = Closure::<dyn FnMut()>::new(move || {
            let hidden = window().and_then(|w| w.document()).is_some_and(|d| d.hidden());
            if hidden && e.rc().borrow().playing {
                e.pause();
                e.notice.set(Some(
                    "Paused because the tab was hidden: browsers slow down timers in background tabs, so the replay would play wrong. Press Play to continue."
                        .into(),
                ));
            }
        });
        let clocks = ReleaseClocks::start(Rc::new(move |batch: &[f64]| e.on_released(batch)));
        self.rc().borrow_mut().clocks = clocks;
        let Ok(channel) = web_sys::MessageChannel::new() else { return };
        channel.port1().set_onmessage(Some(message.as_ref().unchecked_ref()));
        if let Some(doc) = window().and_then(|w| w.document()) {
            let _ =
                doc.add_event_listener_with_callback("visibilitychange", visibility.as_ref().unchecked_ref());
        }
        let naive = (0..MAX_PANES)
            .map(|i| {
                Closure::<dyn FnMut()>::new(move || {
                    if let Some(p) = e.rc().borrow_mut().panes.get_mut(i) {
                        p.naive_timer = None;
                    }
                    e.naive_fire(i);
                })
            })
            .collect();
        self.callbacks.set_value(Some(Rc::new(Callbacks {
            timeout,
            _message: message,
            frame,
            visibility,
            _port_in: channel.port1(),
            port_out: channel.port2(),
            naive,
        })));
    }

    fn cb(&self) -> Option<Rc<Callbacks>> {
        self.callbacks.try_get_value().flatten()
    }

    /// Loads panes (stopping whatever plays) and empties their outputs.
    pub fn load(&self, inputs: Vec<PaneInput>, render: RenderMode, kind: SchedulerKind) {
        self.pause();
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        inner.render = render;
        inner.kind = kind;
        inner.panes = inputs.into_iter().take(MAX_PANES).map(|input| new_pane(input, inner.speed)).collect();
        inner.frames = 0;
        inner.late = 0;
        for p in &mut inner.panes {
            p.sink = Sink::new(p.input.output.clone(), render);
        }
        drop(inner);
        for s in &self.panes {
            s.stats.set(LiveStats::default());
            s.result.set(None);
        }
        self.notice.set(None);
    }

    /// Starts or resumes every pane together.
    pub fn play(&self) {
        let now = now_ms();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            if inner.panes.is_empty() || inner.playing {
                return;
            }
            if inner.panes.iter().all(PaneRt::finished_and_flushed) {
                drop(inner);
                self.restart();
                return;
            }
            inner.playing = true;
            for p in &mut inner.panes {
                p.replay.play(now);
                p.start_clock.get_or_insert(now);
            }
        }
        self.playing.set(true);
        self.notice.set(None);
        self.arm();
        self.arm_naive_all();
        self.ensure_frame();
    }

    /// Pauses every pane.
    pub fn pause(&self) {
        let now = now_ms();
        let Some(cb) = self.cb() else { return };
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        inner.playing = false;
        if let (Some(t), Some(w)) = (inner.timer.take(), window()) {
            w.clear_timeout_with_handle(t);
        }
        if let Some(c) = &inner.clocks {
            c.borrow().stop();
        }
        for p in &mut inner.panes {
            p.replay.pause(now);
            if let (Some(t), Some(w)) = (p.naive_timer.take(), window()) {
                w.clear_timeout_with_handle(t);
            }
        }
        inner.last_frame = None;
        drop(inner);
        drop(cb);
        self.playing.set(false);
    }

    /// Back to the start of every pane, playing.
    pub fn restart(&self) {
        self.pause();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            let (render, speed) = (inner.render, inner.speed);
            inner.panes = inner.panes.drain(..).map(|p| new_pane(p.input, speed)).collect();
            for p in &mut inner.panes {
                p.sink = Sink::new(p.input.output.clone(), render);
            }
            inner.frames = 0;
            inner.late = 0;
        }
        for s in &self.panes {
            s.stats.set(LiveStats::default());
            s.result.set(None);
        }
        self.play();
    }

    /// Changes the speed of every pane, keeping positions continuous.
    pub fn set_speed(&self, speed: f64) {
        let now = now_ms();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            for p in &mut inner.panes {
                p.replay.set_speed(now, speed);
            }
            inner.speed = inner.panes.first().map_or(speed, |p| p.replay.speed());
        }
        self.arm();
        self.arm_naive_all();
    }

    /// Waits (a few frames at most) until the release clock is calibrated,
    /// so that a replay started right after page load is precise too.
    pub async fn ready(&self) {
        for _ in 0..30 {
            let done = {
                let rc = self.rc();
                let inner = rc.borrow();
                inner.clocks.as_ref().is_none_or(|c| c.borrow().ready())
            };
            if done {
                return;
            }
            let _ = super::paint::next_frame(50).await;
        }
    }

    /// Loop at the end or not.
    pub fn set_loop(&self, on: bool) {
        self.rc().borrow_mut().looping = on;
    }

    /// Sets the display refresh rate used to count late frames.
    pub fn set_refresh_hz(&self, hz: f64) {
        if hz.is_finite() && hz > 1.0 {
            self.rc().borrow_mut().refresh_ms = 1000.0 / hz;
        }
    }

    fn ensure_frame(&self) {
        let Some(cb) = self.cb() else { return };
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        if inner.raf {
            return;
        }
        inner.raf = true;
        if let Some(w) = window() {
            let _ = w.request_animation_frame(cb.frame.as_ref().unchecked_ref());
        }
    }

    fn on_frame(&self) {
        let now = now_ms();
        let mut stats_updates = Vec::new();
        let mut results = Vec::new();
        let (keep_going, all_done, looping) = {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            inner.raf = false;
            if inner.playing {
                if let Some(last) = inner.last_frame {
                    inner.frames += 1;
                    if now - last > LATE_FRAME_FACTOR * inner.refresh_ms {
                        inner.late += 1;
                    }
                }
                inner.last_frame = Some(now);
            }
            let refresh_stats = now - inner.last_stats >= STATS_INTERVAL_MS;
            if refresh_stats {
                inner.last_stats = now;
            }
            let info = ReplayInfo {
                scheduler: inner.kind.name().into(),
                speed: inner.speed,
                late_frames: inner.late,
                frames: inner.frames,
                render_us_per_token: None,
                render: inner.render.name().into(),
            };
            for (i, p) in inner.panes.iter_mut().enumerate() {
                if !p.pending.is_empty() {
                    let t0 = now_ms();
                    let text = std::mem::take(&mut p.pending);
                    if let Some(s) = &mut p.sink {
                        s.append(&text);
                    }
                    p.render_ms += now_ms() - t0;
                    for k in p.painted_upto..p.emitted.len() {
                        p.painted[k] = Some(now.max(p.emitted[k]));
                    }
                    p.painted_upto = p.emitted.len();
                    if p.stats.ttfp_ms.is_none() {
                        p.stats.ttfp_ms = p.start_clock.map(|s| now - s);
                    }
                }
                if refresh_stats || (p.replay.is_finished() && !p.finalized) {
                    p.stats.elapsed_ms = p.start_clock.map_or(0.0, |s| now - s);
                    stats_updates.push((i, p.stats.clone()));
                }
                if p.finished_and_flushed() && !p.finalized {
                    p.finalized = true;
                    if let Some(s) = &mut p.sink {
                        s.finish();
                    }
                    results.push((i, finish_trace(p, &info, now)));
                }
            }
            let any_pending = inner.panes.iter().any(|p| !p.finished_and_flushed());
            let all_done = !inner.panes.is_empty() && !any_pending;
            if all_done {
                inner.playing = false;
            }
            (inner.playing || any_pending, all_done, inner.looping)
        };
        for (i, s) in stats_updates {
            self.panes[i].stats.set(s);
        }
        for (i, trace) in results {
            self.finished.update(|f| f.push(trace.clone()));
            self.panes[i].result.set(Some(PaneResult { trace }));
        }
        if all_done {
            self.playing.set(false);
            if looping {
                let e = *self;
                let again = Closure::once_into_js(move || {
                    if e.rc().borrow().looping && !e.playing.get_untracked() {
                        e.restart();
                    }
                });
                if let Some(w) = window() {
                    let _ =
                        w.set_timeout_with_callback_and_timeout_and_arguments_0(again.unchecked_ref(), 1500);
                }
            }
        } else if keep_going {
            self.ensure_frame();
        }
    }
}
