//! The replay engine ([`use_replay_engine`]): plays 1–4 panes together so
//! that every chunk is released at its due time, renders once per animation
//! frame, and records when each chunk was due, released and painted
//! (`lab_core::replay::pane::PaneRecording`, whose live figures are the
//! same `LiveStats` live requests show).
//!
//! Precise scheduler: due times come from `lab_core::replay::player::Replay`.
//! They are handed, as absolute times on the page's clock, to the release
//! clocks ([`release_clock`]): workers whose event loops are not held up by
//! the page's rendering, which release each chunk the moment it is due and
//! report that instant. The page asks the state machine which chunks are
//! due at that instant (never early, in order) and records it as their
//! release time. Without workers, a timer that wakes [`SPIN_MS`] early and a
//! `MessageChannel` polling loop do the same on the page itself (less
//! precise: a frame being drawn delays them). Schedules are absolute, so
//! nothing drifts.
//!
//! Each pane counts which path released its chunks (workers, main thread,
//! naive) and the playback notes why it fell back to the main thread; both
//! go into the trace (`lab_core::trace::stamps`).
//!
//! Naive scheduler (for comparison): each chunk arms a `setTimeout` for the
//! gap to the next one, as a quick implementation would; its lateness adds
//! up and nested timers are clamped to 4 ms.
//!
//! Released text waits and is put on the page in the next animation frame
//! (a frame loop running only while something plays; one DOM
//! update per pane per frame); that frame's clock is the chunk's paint
//! time. Frames later than 1.5 refresh intervals count as late. A hidden tab
//! pauses the replay (and says so): browsers throttle background timers, so
//! it would play wrong.

mod controls;
mod frame;
pub mod release_clock;
pub mod sink;
mod timers;
mod use_replay_engine;

use std::cell::RefCell;
use std::rc::Rc;

use super::use_frame_loop::{FrameLoop, use_frame_loop};
use super::use_visibility::use_visibility;
use lab_core::measure::run::MeasuredRun;
use lab_core::replay::pane::{FrameCounter, PaneConfig, PaneRecording};
use lab_core::replay::player::Replay;
use lab_core::stream::live::LiveStats;
use lab_core::trace::Released;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use release_clock::ReleaseClocks;
pub use sink::RenderMode;
use sink::Sink;
pub use use_replay_engine::use_replay_engine;

/// Before a due time, the precise scheduler stops sleeping and polls (ms).
pub const SPIN_MS: f64 = 2.5;
/// Most panes played together.
pub const MAX_PANES: usize = 4;
/// Live figures refresh at most this often (ms).
const STATS_INTERVAL_MS: f64 = 100.0;
/// What the hidden-tab pause says.
pub const HIDDEN_NOTICE: &str = "Paused because the tab was hidden: browsers slow down timers in background tabs, so the replay would play wrong. Press Play to continue.";

/// Which scheduler plays the chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchedulerKind {
    /// Absolute due times, release clocks or timer + polling.
    #[default]
    Precise,
    /// Chained `setTimeout` per gap.
    Naive,
}

impl SchedulerKind {
    /// Name used in traces and in the scheduler picker.
    pub fn name(self) -> &'static str {
        match self {
            Self::Precise => "precise",
            Self::Naive => "naive",
        }
    }
}

/// Signals of one pane slot.
#[derive(Clone, Copy)]
pub struct PaneSignals {
    /// Live figures.
    pub stats: RwSignal<LiveStats>,
    /// The last finished playback, measured.
    pub result: RwSignal<Option<MeasuredRun>>,
}

/// A pane being played.
struct PaneRt {
    config: PaneConfig,
    output: web_sys::Element,
    replay: Replay,
    rec: PaneRecording,
    sink: Option<Sink>,
    naive_next: usize,
    naive_timer: Option<i32>,
    finalized: bool,
    /// Which path released its chunks.
    released_by: Released,
}

impl PaneRt {
    fn new(config: PaneConfig, output: web_sys::Element, speed: f64, render: RenderMode) -> Self {
        let chunks = config.chunks();
        let mut replay = Replay::new(chunks.iter().map(|c| c.due_ms).collect());
        replay.set_speed(0.0, speed);
        let sink = Sink::new(output.clone(), render);
        Self {
            config,
            output,
            replay,
            rec: PaneRecording::new(chunks),
            sink,
            naive_next: 0,
            naive_timer: None,
            finalized: false,
            released_by: Released::default(),
        }
    }
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
    frames: FrameCounter,
    refresh_ms: f64,
    last_stats: f64,
    clocks: Option<Rc<RefCell<ReleaseClocks>>>,
    /// Why the release clocks could not start, when they could not.
    clocks_error: Option<String>,
    /// Why this playback released on the main thread, when it did.
    fallback: Option<Rc<str>>,
    /// Id of the playback from its start (its panes' traces share it;
    /// shared, so a frame copies no text).
    playback: Rc<str>,
}

/// JS callbacks, kept alive as long as the engine.
struct Callbacks {
    timeout: Closure<dyn FnMut()>,
    _message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _port_in: web_sys::MessagePort,
    port_out: web_sys::MessagePort,
    naive: Vec<Closure<dyn FnMut()>>,
}

/// The engine (cheap to copy; owned by the reactive owner that made it).
#[derive(Clone, Copy)]
pub struct ReplayEngine {
    inner: StoredValue<Rc<RefCell<Inner>>, LocalStorage>,
    callbacks: StoredValue<Option<Rc<Callbacks>>, LocalStorage>,
    frame_loop: FrameLoop,
    /// Playing or not.
    pub playing: RwSignal<bool>,
    /// A message for the user (hidden-tab pause).
    pub notice: RwSignal<Option<String>>,
    /// Per-pane signals (always [`MAX_PANES`] slots).
    pub panes: [PaneSignals; MAX_PANES],
    /// Finished playbacks, in order, for the library and the session's runs.
    pub finished: RwSignal<Vec<MeasuredRun>>,
}

impl ReplayEngine {
    fn rc(&self) -> Rc<RefCell<Inner>> {
        self.inner.get_value()
    }

    fn cb(&self) -> Option<Rc<Callbacks>> {
        self.callbacks.try_get_value().flatten()
    }

    fn install(&self) {
        let e = *self;
        let timeout = Closure::<dyn FnMut()>::new(move || {
            e.rc().borrow_mut().timer = None;
            e.arm();
        });
        let message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |_| e.on_spin());
        match ReleaseClocks::start(Rc::new(move |batch: &[f64]| e.on_released(batch))) {
            Ok(clocks) => self.rc().borrow_mut().clocks = Some(clocks),
            Err(why) => self.rc().borrow_mut().clocks_error = Some(why),
        }
        let Ok(channel) = web_sys::MessageChannel::new() else { return };
        channel.port1().set_onmessage(Some(message.as_ref().unchecked_ref()));
        let naive = (0..MAX_PANES).map(|i| Closure::<dyn FnMut()>::new(move || e.naive_fire(i))).collect();
        self.callbacks.set_value(Some(Rc::new(Callbacks {
            timeout,
            _message: message,
            _port_in: channel.port1(),
            port_out: channel.port2(),
            naive,
        })));
    }
}
