//! Release clocks: dedicated workers (`public/replay-clock.js`) that release
//! replay chunks at their due times, away from the page's main thread, which
//! is held up every frame by style, layout and paint.
//!
//! - **Clock offset**: page and worker clocks differ by an offset, measured
//!   with [`PINGS`] ping–pong round trips; the fastest round trip's midpoint
//!   gives it (`performance.timeOrigin` cannot be used: in Chromium it is off
//!   by up to a few ms between page and worker).
//! - **Redundancy**: [`CLOCKS`] workers run the same schedule. On a busy
//!   machine the OS now and then runs a thread a few ms late; two threads are
//!   rarely late together, and the page takes whichever release report comes
//!   first (the state machine ignores the second).
//! - **Failure is said**: a worker that cannot start or that fails (its
//!   script missing, a CSP refusing it) leaves the page's own loop to
//!   release, and [`ReleaseClocks::why_not`] says why, for the trace.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use crate::browser::clock::now_ms;

/// Path of the worker script (copied from `public/` by Trunk).
pub const WORKER_URL: &str = "/public/replay-clock.js";
/// Workers running the same schedule.
pub const CLOCKS: usize = 2;
/// Ping round trips per worker to measure its clock offset.
pub const PINGS: u32 = 12;
/// Most round trips per worker: each playback adds one ([`ReleaseClocks::refine`]),
/// since the first ones, taken while the page is still loading, may all be
/// slow (an offset is only as good as half its round trip: WebKit's took
/// 0.04 ms on an idle page and over 1 ms during start-up).
pub const MAX_PINGS: u32 = 200;

struct Clock {
    worker: web_sys::Worker,
    /// page clock − worker clock, and the round trip it was measured with.
    offset: Option<(f64, f64)>,
    pings: u32,
    ping_sent: f64,
    /// Why it stopped, when it failed.
    failed: Option<String>,
    /// How it sleeps until a due time: `atomics` or `timers`.
    sleep: Option<String>,
}

/// Receives each release batch `[pane, index, released_at, …]`.
pub type OnRelease = Rc<dyn Fn(&[f64])>;

/// The workers and their message handlers.
pub struct ReleaseClocks {
    clocks: Vec<Clock>,
    _handlers: Vec<Closure<dyn FnMut(web_sys::MessageEvent)>>,
    _errors: Vec<Closure<dyn FnMut(web_sys::Event)>>,
}

fn message(kind: &str) -> js_sys::Object {
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"type".into(), &kind.into());
    msg
}

impl ReleaseClocks {
    /// Starts the workers and their calibration; `on_release` receives each
    /// batch `[pane, index, released_at, …]` on the page clock. An error
    /// says why the browser could not start them.
    pub fn start(on_release: OnRelease) -> Result<Rc<RefCell<Self>>, String> {
        let this =
            Rc::new(RefCell::new(Self { clocks: Vec::new(), _handlers: Vec::new(), _errors: Vec::new() }));
        for i in 0..CLOCKS {
            let worker = web_sys::Worker::new(WORKER_URL).map_err(|e| {
                let why = e
                    .as_string()
                    .or_else(|| js_sys::Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()));
                format!("the browser could not start the release-clock workers ({})", why.unwrap_or_default())
            })?;
            let weak: Weak<RefCell<Self>> = Rc::downgrade(&this);
            let release = on_release.clone();
            let handler =
                Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
                    let data = ev.data();
                    match data.dyn_ref::<js_sys::Float64Array>() {
                        Some(batch) => release(&batch.to_vec()),
                        None => {
                            let t = js_sys::Reflect::get(&data, &"t".into()).ok().and_then(|v| v.as_f64());
                            let sleep =
                                js_sys::Reflect::get(&data, &"sleep".into()).ok().and_then(|v| v.as_string());
                            if let (Some(t), Some(clocks)) = (t, weak.upgrade()) {
                                let mut clocks = clocks.borrow_mut();
                                clocks.on_pong(i, t);
                                if let Some(c) = clocks.clocks.get_mut(i) {
                                    c.sleep = sleep;
                                }
                            }
                        }
                    }
                });
            worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
            let weak: Weak<RefCell<Self>> = Rc::downgrade(&this);
            // A script that does not load fires a plain `Event`, an error in
            // it an `ErrorEvent` with a message.
            let error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
                if let Some(clocks) = weak.upgrade()
                    && let Some(c) = clocks.borrow_mut().clocks.get_mut(i)
                {
                    let what = js_sys::Reflect::get(&ev, &"message".into()).ok().and_then(|m| m.as_string());
                    c.failed = Some(
                        what.filter(|m| !m.is_empty())
                            .unwrap_or_else(|| format!("{WORKER_URL} did not load")),
                    );
                }
            });
            worker.set_onerror(Some(error.as_ref().unchecked_ref()));
            let mut me = this.borrow_mut();
            me.clocks.push(Clock {
                worker,
                offset: None,
                pings: 0,
                ping_sent: 0.0,
                failed: None,
                sleep: None,
            });
            me._handlers.push(handler);
            me._errors.push(error);
        }
        for i in 0..CLOCKS {
            this.borrow_mut().ping(i);
        }
        Ok(this)
    }

    fn ping(&mut self, i: usize) {
        if let Some(c) = self.clocks.get_mut(i) {
            c.ping_sent = now_ms();
            let _ = c.worker.post_message(&message("ping"));
        }
    }

    fn on_pong(&mut self, i: usize, worker_t: f64) {
        let Some(c) = self.clocks.get_mut(i) else { return };
        let now = now_ms();
        let rtt = now - c.ping_sent;
        let offset = (c.ping_sent + now) / 2.0 - worker_t;
        if c.offset.is_none_or(|(_, best)| rtt < best) {
            c.offset = Some((offset, rtt));
        }
        c.pings += 1;
        if c.pings < PINGS {
            self.ping(i);
        }
    }

    /// One more round trip per clock (up to [`MAX_PINGS`]): a faster one
    /// improves the offset for the next schedule.
    pub fn refine(&mut self) {
        for i in 0..self.clocks.len() {
            if self.clocks[i].pings >= PINGS
                && self.clocks[i].pings < MAX_PINGS
                && self.clocks[i].failed.is_none()
            {
                self.ping(i);
            }
        }
    }

    /// True once every clock is calibrated.
    pub fn ready(&self) -> bool {
        self.clocks.iter().all(|c| c.failed.is_some() || (c.offset.is_some() && c.pings >= PINGS))
    }

    /// True when at least one clock can release precisely.
    pub fn usable(&self) -> bool {
        self.clocks.iter().any(|c| c.offset.is_some() && c.failed.is_none())
    }

    /// How the workers sleep until a due time, as they say (`atomics`:
    /// `Atomics.wait`, sub-millisecond; `timers`: `setTimeout` and polling,
    /// late by whatever the browser's worker timers are).
    pub fn sleep(&self) -> Option<String> {
        self.clocks.iter().find_map(|c| c.sleep.clone())
    }

    /// Why no clock can release now (for the trace's fallback note).
    pub fn why_not(&self) -> String {
        match self.clocks.iter().find_map(|c| c.failed.as_deref()) {
            Some(f) if self.clocks.iter().all(|c| c.failed.is_some()) => {
                format!("the release-clock workers failed ({f})")
            }
            _ => "the release-clock workers were still measuring their clock offset".into(),
        }
    }

    /// Replaces the schedule of every calibrated clock: `(due_at, pane, index)`
    /// sorted by due time, on the page clock.
    pub fn schedule(&self, due: &[(f64, usize, usize)]) {
        let flat: Vec<f64> = due.iter().flat_map(|&(at, p, i)| [p as f64, i as f64, at]).collect();
        let array = js_sys::Float64Array::from(flat.as_slice());
        for c in &self.clocks {
            let Some((offset, _)) = c.offset else { continue };
            let msg = message("schedule");
            let _ = js_sys::Reflect::set(&msg, &"offset".into(), &offset.into());
            let _ = js_sys::Reflect::set(&msg, &"due".into(), &array);
            let _ = c.worker.post_message(&msg);
        }
    }

    /// Clears every schedule.
    pub fn stop(&self) {
        for c in &self.clocks {
            let _ = c.worker.post_message(&message("stop"));
        }
    }

    /// Ends the workers.
    pub fn terminate(&self) {
        for c in &self.clocks {
            c.worker.terminate();
        }
    }
}
