//! [`use_replay_engine`]: the replay engine hook (panes, the scheduler, frames and visibility).

use super::*;

/// Creates the engine; it stops and releases its callbacks and workers when
/// the owner is cleaned up.
pub fn use_replay_engine() -> ReplayEngine {
    let slot = || PaneSignals { stats: RwSignal::new(LiveStats::default()), result: RwSignal::new(None) };
    let inner = Inner {
        panes: Vec::new(),
        kind: SchedulerKind::Precise,
        render: RenderMode::Text,
        speed: 1.0,
        looping: false,
        playing: false,
        timer: None,
        spin: false,
        frames: FrameCounter::default(),
        refresh_ms: 1000.0 / 60.0,
        last_stats: f64::NEG_INFINITY,
        clocks: None,
        clocks_error: None,
        fallback: None,
        playback: Rc::from(""),
    };
    let holder = StoredValue::new_local(None::<ReplayEngine>);
    let frame_loop = use_frame_loop(move |_| {
        if let Some(e) = holder.get_value() {
            e.on_frame();
        }
    });
    let engine = ReplayEngine {
        inner: StoredValue::new_local(Rc::new(RefCell::new(inner))),
        callbacks: StoredValue::new_local(None),
        frame_loop,
        playing: RwSignal::new(false),
        notice: RwSignal::new(None),
        panes: [slot(), slot(), slot(), slot()],
        finished: RwSignal::new(Vec::new()),
    };
    holder.set_value(Some(engine));
    engine.install();
    let hidden = use_visibility();
    Effect::new(move |_| {
        if hidden.get() && engine.rc().borrow().playing {
            engine.pause();
            engine.notice.set(Some(HIDDEN_NOTICE.into()));
        }
    });
    on_cleanup(move || {
        engine.pause();
        if let Some(rc) = engine.inner.try_get_value()
            && let Some(c) = rc.borrow_mut().clocks.take()
        {
            c.borrow().terminate();
        }
        engine.callbacks.set_value(None);
    });
    engine
}
