//! The three ways chunks get released: reports from the release-clock
//! workers, the page's own precise loop (when no worker runs), and the
//! naive chained-`setTimeout` scheduler kept for comparison.

use leptos::prelude::window;
use wasm_bindgen::JsCast;

use super::{PaneRt, ReplayEngine, SPIN_MS, SchedulerKind};
use crate::browser::clock::now_ms;
use lab_core::trace::stamps::ReleasePath;
use std::rc::Rc;

/// The due times still ahead, `(due_at, pane, index)` sorted, on the page clock.
fn remaining_due(panes: &[PaneRt]) -> Vec<(f64, usize, usize)> {
    let mut due: Vec<(f64, usize, usize)> = panes
        .iter()
        .enumerate()
        .flat_map(|(p, pane)| {
            (pane.replay.emitted()..pane.replay.len())
                .filter_map(move |i| Some((pane.replay.due_clock(i)?, p, i)))
        })
        .collect();
    due.sort_by(|a, b| a.0.total_cmp(&b.0));
    due
}

/// Releases every chunk of `p` due at `at`, by `path`; how many.
fn release_due(p: &mut PaneRt, at: f64, path: ReleasePath) -> usize {
    let due = p.replay.poll(at);
    let n = due.len();
    for i in due {
        let due = p.replay.due_clock(i).unwrap_or(at);
        p.rec.release(i, due, at);
        p.released_by.add(path);
    }
    n
}

impl ReplayEngine {
    /// (Re)arms the precise timer for the earliest due chunk.
    pub(super) fn arm(&self) {
        let Some(cb) = self.cb() else { return };
        let w = window();
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
            c.borrow_mut().refine();
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
            let mut n = 0;
            for p in &mut inner.panes {
                n += release_due(p, now, ReleasePath::MainThread);
            }
            if n > 0 && inner.fallback.is_none() {
                let why = match (&inner.clocks, &inner.clocks_error) {
                    (Some(c), _) => c.borrow().why_not(),
                    (None, Some(e)) => e.clone(),
                    (None, None) => "no release-clock workers".into(),
                };
                inner.fallback = Some(Rc::from(why));
            }
        }
        self.arm();
    }

    /// A release clock released chunks: `[pane, index, at, …]` on the page clock.
    pub(super) fn on_released(&self, data: &[f64]) {
        let rc = self.rc();
        let mut inner = rc.borrow_mut();
        if !inner.playing || inner.kind != SchedulerKind::Precise {
            return;
        }
        for triple in data.chunks_exact(3) {
            if let Some(p) = inner.panes.get_mut(triple[0] as usize) {
                release_due(p, triple[2], ReleasePath::Workers);
            }
        }
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
        p.naive_timer = window()
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
            p.naive_timer = None;
            let k = p.naive_next;
            if k < p.replay.len() {
                let due = p.replay.due_clock(k).unwrap_or(now);
                p.naive_next += 1;
                p.rec.release(k, due, now);
                p.released_by.add(ReleasePath::Naive);
            }
        }
        self.arm_naive(i);
    }
}
