//! One animation frame of a replay: count it (late or not), put the text
//! released since the last frame on the page, stamp it painted, refresh the
//! live figures, and finish the panes that are done. The frame loop runs
//! while the replay plays, and once more after a pause, to show what was
//! released just before it.

use lab_core::measure::run::MeasuredRun;
use lab_core::replay::pane::PaneMeta;
use lab_core::trace::ReplayInfo;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use super::{ReplayEngine, STATS_INTERVAL_MS};
use crate::browser::clock::{client_info, now_ms};
use crate::browser::page;

/// Pause between the end of a looped replay and its next start (ms).
pub const LOOP_PAUSE_MS: i32 = 1500;

impl ReplayEngine {
    pub(super) fn on_frame(&self) {
        let now = now_ms();
        let mut stats = Vec::new();
        let mut results = Vec::new();
        let (all_done, looping) = {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            if inner.playing {
                let refresh = inner.refresh_ms;
                inner.frames.on_frame(now, refresh);
            }
            let refresh_stats = now - inner.last_stats >= STATS_INTERVAL_MS;
            if refresh_stats {
                inner.last_stats = now;
            }
            // Made only for a pane that ends: nothing allocated per frame.
            let (kind, speed, render) = (inner.kind.name(), inner.speed, inner.render.name());
            let (late_frames, frames, playback) =
                (inner.frames.late, inner.frames.frames, inner.playback.clone());
            let fallback = inner.fallback.clone();
            let clocks = inner.clocks.clone();
            let info = move |released_by, pane: usize| ReplayInfo {
                scheduler: kind.into(),
                released_by,
                fallback: fallback.as_deref().map(str::to_string),
                clock_sleep: clocks.as_ref().and_then(|c| c.borrow().sleep()),
                speed,
                late_frames,
                frames,
                render_us_per_token: None,
                render: render.into(),
                playback: Some(playback.to_string()),
                pane: u32::try_from(pane).ok(),
            };
            for (i, p) in inner.panes.iter_mut().enumerate() {
                if let Some(text) = p.rec.take_pending() {
                    let t0 = now_ms();
                    if let Some(s) = &mut p.sink {
                        s.append(&text);
                    }
                    p.rec.painted(now, now_ms() - t0);
                }
                let ended = p.rec.is_done() && !p.finalized;
                if refresh_stats || ended {
                    stats.push((i, p.rec.stats(now)));
                }
                if ended {
                    p.finalized = true;
                    if let Some(s) = &mut p.sink {
                        s.finish();
                    }
                    let meta = PaneMeta {
                        title: p.config.title.clone(),
                        source: p.config.source_name(),
                        created_at: Some(page::iso_now()),
                        tool: format!("latency-lab {}", env!("CARGO_PKG_VERSION")),
                        client: client_info(),
                    };
                    results.push((i, p.rec.finish(meta, &info(p.released_by, i), now)));
                }
            }
            let all_done = !inner.panes.is_empty() && inner.panes.iter().all(|p| p.rec.is_done());
            if all_done {
                inner.playing = false;
            }
            // Paused or done: this frame showed the last released text.
            if !inner.playing {
                self.frame_loop.pause();
            }
            (all_done, inner.looping)
        };
        for (i, s) in stats {
            self.panes[i].stats.set(s);
        }
        for (i, trace) in results {
            let run = MeasuredRun::of(trace, &[]);
            self.finished.update(|f| f.push(run.clone()));
            self.panes[i].result.set(Some(run));
        }
        if all_done {
            self.playing.set(false);
            if looping {
                self.again_after(LOOP_PAUSE_MS);
            }
        }
    }

    /// Plays everything again after `ms`, if still looping and stopped.
    fn again_after(&self, ms: i32) {
        let e = *self;
        let again = Closure::once_into_js(move || {
            if e.rc().borrow().looping && !e.playing.get_untracked() {
                e.restart();
            }
        });
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(again.unchecked_ref(), ms);
    }
}
