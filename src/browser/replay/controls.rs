//! What a person does to a replay: load panes, play, pause, restart,
//! change the speed, loop; and what the page tells the engine (the display's
//! refresh rate).

use leptos::prelude::*;

use super::{FrameCounter, MAX_PANES, PaneConfig, PaneRt, RenderMode, ReplayEngine, SchedulerKind};
use crate::browser::clock::now_ms;
use lab_core::stream::live::LiveStats;

/// A fresh playback id: when it started, and a random suffix.
fn new_playback() -> std::rc::Rc<str> {
    format!("{}-{:06}", crate::browser::page::iso_now(), (crate::browser::page::random() * 1e6) as u32).into()
}

impl ReplayEngine {
    /// Loads panes (stopping whatever plays) into their output elements,
    /// emptied.
    pub fn load(&self, panes: Vec<(PaneConfig, web_sys::Element)>, render: RenderMode, kind: SchedulerKind) {
        self.pause();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            inner.render = render;
            inner.kind = kind;
            let speed = inner.speed;
            inner.panes = panes
                .into_iter()
                .take(MAX_PANES)
                .map(|(c, out)| PaneRt::new(c, out, speed, render))
                .collect();
            inner.frames = FrameCounter::default();
            inner.playback = new_playback();
            inner.fallback = None;
        }
        self.clear_signals();
        self.notice.set(None);
    }

    fn clear_signals(&self) {
        for s in &self.panes {
            s.stats.set(LiveStats::default());
            s.result.set(None);
        }
    }

    /// Starts or resumes every pane together (from the start when all ended).
    pub fn play(&self) {
        let now = now_ms();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            if inner.panes.is_empty() || inner.playing {
                return;
            }
            if inner.panes.iter().all(|p| p.rec.is_done()) {
                drop(inner);
                return self.restart();
            }
            inner.playing = true;
            for p in &mut inner.panes {
                p.replay.play(now);
                p.rec.start(now);
            }
        }
        self.playing.set(true);
        self.notice.set(None);
        self.arm();
        self.arm_naive_all();
        self.frame_loop.resume();
    }

    /// Pauses every pane.
    pub fn pause(&self) {
        let now = now_ms();
        let Some(rc) = self.inner.try_get_value() else { return };
        {
            let mut inner = rc.borrow_mut();
            inner.playing = false;
            let w = window();
            if let Some(t) = inner.timer.take() {
                w.clear_timeout_with_handle(t);
            }
            if let Some(c) = &inner.clocks {
                c.borrow().stop();
            }
            for p in &mut inner.panes {
                p.replay.pause(now);
                if let Some(t) = p.naive_timer.take() {
                    w.clear_timeout_with_handle(t);
                }
            }
            inner.frames.pause();
        }
        let _ = self.playing.try_set(false);
    }

    /// Back to the start of every pane, playing.
    pub fn restart(&self) {
        self.pause();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            let (render, speed) = (inner.render, inner.speed);
            inner.panes =
                inner.panes.drain(..).map(|p| PaneRt::new(p.config, p.output, speed, render)).collect();
            inner.frames = FrameCounter::default();
            inner.playback = new_playback();
            inner.fallback = None;
        }
        self.clear_signals();
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

    /// Waits (a few frames at most) until the release clocks are
    /// calibrated, so a replay started right after page load is precise too.
    pub async fn ready(&self) {
        for _ in 0..30 {
            let done = self.rc().borrow().clocks.as_ref().is_none_or(|c| c.borrow().ready());
            if done {
                return;
            }
            let _ = crate::browser::paint::next_frame(50).await;
        }
    }

    /// The path the next precise playback will release on (call after
    /// [`Self::ready`]): the workers when at least one is calibrated, the
    /// page's main thread otherwise.
    pub fn clock_path(&self) -> lab_core::study::timing::SchedulerPath {
        use lab_core::study::timing::SchedulerPath;
        let usable = self.rc().borrow().clocks.as_ref().is_some_and(|c| c.borrow().usable());
        if usable { SchedulerPath::Workers } else { SchedulerPath::MainThread }
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
}
