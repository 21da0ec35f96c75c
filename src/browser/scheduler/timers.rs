//! The three ways chunks get released: reports from the release-clock
//! workers, the page's own precise loop (when no worker runs), and the
//! naive chained-`setTimeout` scheduler kept for comparison.

use wasm_bindgen::JsCast;

use super::pane::{release, remaining_due};
use super::{ReplayEngine, SPIN_MS, SchedulerKind, window};
use crate::browser::clock::now_ms;

impl ReplayEngine {
    /// (Re)arms the precise timer for the earliest due chunk.
    pub(super) fn arm(&self) {
        let Some(cb) = self.cb() else { return };
        let Some(w) = window() else { return };
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        if let Some(t) = inner.timer.take() {
            w.clear_timeout_with_handle(t);
        }
        if !inner.playing || inner.kind != SchedulerKind::Precise {
            return;
        }
        if let Some(c) = inner.clocks.as_ref().filter(|c| c.borrow().usable()) {
            c.borrow().schedule(&remaining_due(&inner.panes));
            return;
        }
        let Some(wake) = inner.panes.iter().filter_map(|p| p.replay.next_wake()).reduce(f64::min) else {
            return;
        };
        let delay = wake - now_ms();
        if delay > SPIN_MS {
            let ms = (delay - SPIN_MS).floor() as i32;
            inner.timer = w
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    cb.timeout.as_ref().unchecked_ref(),
                    ms,
                )
                .ok();
        } else if !inner.spin {
            inner.spin = true;
            let _ = cb.port_out.post_message(&wasm_bindgen::JsValue::NULL);
        }
    }

    pub(super) fn on_spin(&self) {
        let now = now_ms();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            inner.spin = false;
            if !inner.playing {
                return;
            }
            for p in &mut inner.panes {
                let range = p.replay.poll(now);
                for i in range {
                    let due = p.replay.due_clock(i).unwrap_or(now);
                    release(p, i, due, now);
                }
            }
        }
        self.arm();
    }

    /// A release clock released chunks: `[pane, index, at, …]` on the page clock.
    pub(super) fn on_released(&self, data: &[f64]) {
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            if !inner.playing || inner.kind != SchedulerKind::Precise {
                return;
            }
            for triple in data.chunks_exact(3) {
                let (pane, at) = (triple[0] as usize, triple[2]);
                let Some(p) = inner.panes.get_mut(pane) else { continue };
                let range = p.replay.poll(at);
                for i in range {
                    let due = p.replay.due_clock(i).unwrap_or(at);
                    release(p, i, due, at);
                }
            }
        }
        self.ensure_frame();
    }

    pub(super) fn arm_naive_all(&self) {
        let n = self.rc().borrow().panes.len();
        for i in 0..n {
            self.arm_naive(i);
        }
    }

    /// Naive: one timer for the gap to this pane's next chunk.
    pub(super) fn arm_naive(&self, i: usize) {
        let Some(cb) = self.cb() else { return };
        let Some(w) = window() else { return };
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        if !inner.playing || inner.kind != SchedulerKind::Naive {
            return;
        }
        let Some(p) = inner.panes.get_mut(i) else { return };
        if p.naive_timer.is_some() || p.naive_next >= p.replay.len() {
            return;
        }
        // The gap from the previous chunk, as a relative delay (this is what drifts).
        let offset = |k: usize| p.replay.due_clock(k).unwrap_or(0.0);
        let gap = if p.naive_next == 0 {
            offset(0) - now_ms()
        } else {
            (offset(p.naive_next) - offset(p.naive_next - 1)).max(0.0)
        };
        p.naive_timer = w
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                cb.naive[i].as_ref().unchecked_ref(),
                gap.max(0.0).round() as i32,
            )
            .ok();
    }

    pub(super) fn naive_fire(&self, i: usize) {
        let now = now_ms();
        {
            let rc = self.rc();
            let mut inner = rc.borrow_mut();
            if !inner.playing {
                return;
            }
            let Some(p) = inner.panes.get_mut(i) else { return };
            let k = p.naive_next;
            if k < p.replay.len() {
                let due = p.replay.due_clock(k).unwrap_or(now);
                p.naive_next += 1;
                release(p, k, due, now);
            }
        }
        self.arm_naive(i);
    }
}
