//! The replay state machine: which chunks of a schedule are due at a given
//! clock time, under play, pause, speed changes and restarts. Pure (the
//! clock is passed in), so the browser scheduler only sleeps and asks.
//!
//! Definitions:
//! - `due[i]` are offsets (ms) from the start of the replay, non-decreasing.
//! - While playing, the **position** at clock time `t` is
//!   `(t − origin) · speed`; chunk `i` is **due** once `due[i] ≤ position`.
//!   Its due *clock* time is `origin + due[i] / speed`.
//! - Pausing freezes the position; resuming or changing speed moves the
//!   origin so that the position stays continuous (no jump, no burst).
//! - [`Replay::poll`] returns each chunk exactly once, in order, and never
//!   before it is due.

use std::ops::Range;

use serde::Serialize;

use crate::measure::stats::{Samples, Summary};
use crate::trace::{EarlyStamps, ReplayInfo, RequestTrace};

/// Slowest and fastest playback speeds.
pub const SPEED_RANGE: (f64, f64) = (0.25, 8.0);

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Idle,
    Playing { origin: f64, speed: f64 },
    Paused { position: f64, speed: f64 },
}

/// One replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    due: Vec<f64>,
    next: usize,
    state: State,
    speed: f64,
}

impl Replay {
    /// A replay of `due` offsets (sorted here, so a bad schedule cannot
    /// make it emit out of order).
    pub fn new(mut due: Vec<f64>) -> Self {
        for d in &mut due {
            if !d.is_finite() || *d < 0.0 {
                *d = 0.0;
            }
        }
        due.sort_by(f64::total_cmp);
        Self { due, next: 0, state: State::Idle, speed: 1.0 }
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.due.len()
    }

    /// True when there are no chunks.
    pub fn is_empty(&self) -> bool {
        self.due.is_empty()
    }

    /// Chunks already emitted.
    pub fn emitted(&self) -> usize {
        self.next
    }

    /// True while playing.
    pub fn is_playing(&self) -> bool {
        matches!(self.state, State::Playing { .. })
    }

    /// True once every chunk was emitted.
    pub fn is_finished(&self) -> bool {
        self.next == self.due.len()
    }

    /// The playback speed.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Position (ms into the schedule) at clock time `now`.
    pub fn position(&self, now: f64) -> f64 {
        match self.state {
            State::Idle => 0.0,
            State::Playing { origin, speed } => ((now - origin) * speed).max(0.0),
            State::Paused { position, .. } => position,
        }
    }

    /// Starts or resumes at clock time `now`.
    pub fn play(&mut self, now: f64) {
        let (position, speed) = match self.state {
            State::Idle => (0.0, self.speed),
            State::Paused { position, speed } => (position, speed),
            State::Playing { .. } => return,
        };
        self.state = State::Playing { origin: now - position / speed, speed };
    }

    /// Pauses at clock time `now`.
    pub fn pause(&mut self, now: f64) {
        if let State::Playing { speed, .. } = self.state {
            self.state = State::Paused { position: self.position(now), speed };
        }
    }

    /// Changes the speed at `now`, keeping the position continuous.
    pub fn set_speed(&mut self, now: f64, speed: f64) {
        let speed = if speed.is_finite() { speed.clamp(SPEED_RANGE.0, SPEED_RANGE.1) } else { 1.0 };
        let position = self.position(now);
        self.speed = speed;
        self.state = match self.state {
            State::Idle => State::Idle,
            State::Playing { .. } => State::Playing { origin: now - position / speed, speed },
            State::Paused { position, .. } => State::Paused { position, speed },
        };
    }

    /// Back to the start, idle (call [`Replay::play`] to go).
    pub fn restart(&mut self) {
        self.next = 0;
        self.state = State::Idle;
    }

    /// The chunks that became due by `now` (possibly empty), in order.
    pub fn poll(&mut self, now: f64) -> Range<usize> {
        if !self.is_playing() {
            return self.next..self.next;
        }
        let position = self.position(now);
        let start = self.next;
        while self.next < self.due.len() && self.due[self.next] <= position {
            self.next += 1;
        }
        start..self.next
    }

    /// Clock time at which chunk `i` is due under the current origin and
    /// speed (`None` unless playing).
    pub fn due_clock(&self, i: usize) -> Option<f64> {
        match self.state {
            State::Playing { origin, speed } => self.due.get(i).map(|d| origin + d / speed),
            _ => None,
        }
    }

    /// Clock time of the next due chunk (`None` when paused or finished).
    pub fn next_wake(&self) -> Option<f64> {
        self.due_clock(self.next)
    }
}

/// The precise scheduler's target: release − due at P99 (ms). Chromium and
/// Firefox meet it on a busy 2-core machine (BENCHMARKS.md); a pane that
/// misses it says why ([`Fidelity::shortfall`]).
pub const TARGET_P99_MS: f64 = 1.0;

/// How faithfully a replay was played (from its recorded chunks).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fidelity {
    /// |emitted − due| per chunk (ms).
    pub emit_error_ms: Summary,
    /// painted − emitted per painted chunk (ms), as measured (an early
    /// paint makes it negative).
    pub paint_lag_ms: Option<Summary>,
    /// Stamps out of order ([`EarlyStamps`]): chunks emitted before their
    /// due time (must be 0) and paints before their release.
    pub early_stamps: EarlyStamps,
}

impl Fidelity {
    /// Fidelity of a replayed request (`None` without due times).
    pub fn of(r: &RequestTrace) -> Option<Self> {
        let pairs: Vec<(f64, f64)> =
            r.chunks.iter().filter_map(|c| c.due_ms.map(|d| (d, c.arrived_ms))).collect();
        let emit = Samples::from_finite(pairs.iter().map(|(d, e)| (e - d).abs())).summary()?;
        Some(Self {
            emit_error_ms: emit,
            paint_lag_ms: Samples::from_finite(
                r.chunks.iter().filter_map(|c| c.painted_ms.map(|p| p - c.arrived_ms)),
            )
            .summary(),
            early_stamps: EarlyStamps::of_request(r),
        })
    }

    /// Where a precise playback fell short of the lab's targets
    /// ([`TARGET_P99_MS`], no late frame), and why, as measured: releases
    /// late at P99 with the workers releasing everything means the workers
    /// woke late (the browser's thread wake-ups, or no free core); late
    /// frames mean the page could not draw every frame in time (text
    /// released then showed a frame later). `None` when both were met, and
    /// for the naive scheduler (its lateness is the point of it).
    pub fn shortfall(&self, info: &ReplayInfo) -> Option<String> {
        if info.released_by.naive > 0 || info.scheduler == "naive" {
            return None;
        }
        let mut out = Vec::new();
        let only_workers = info.released_by.workers > 0 && info.released_by.main_thread == 0;
        if self.emit_error_ms.p99 > TARGET_P99_MS && only_workers {
            out.push(format!(
                "Releases missed the lab's {TARGET_P99_MS} ms target at P99: the release-clock workers woke up late (this browser's thread wake-ups, or no free core on this machine)."
            ));
        }
        if info.late_frames > 0 {
            out.push(format!(
                "{} of {} frames came late: the page could not draw every frame in time, so text released then was shown a frame later.",
                info.late_frames, info.frames
            ));
        }
        (!out.is_empty()).then(|| out.join(" "))
    }

    /// The fidelity in words, with the scheduler and the path that released
    /// the chunks (`info`): what a finished pane says under its figures.
    pub fn sentence(&self, info: &ReplayInfo) -> String {
        let path = if info.released_by.total() > 0 {
            format!(" via {}", info.released_by.describe())
        } else {
            String::new()
        };
        let fallback = info.fallback.as_deref().map(|f| format!(" Fallback: {f}")).unwrap_or_default();
        let on_timers = info.released_by.workers > 0
            && info.clock_sleep.as_deref() == Some(crate::trace::stamps::CLOCK_TIMERS);
        let timers = if on_timers {
            " The workers slept on timers: this browser gives them no shared memory to wait on, so releases can be several ms late here."
        } else {
            ""
        };
        let early = self.early_stamps.sentence().map(|s| format!(" {s}")).unwrap_or_default();
        let why = self.shortfall(info).map(|s| format!(" {s}")).unwrap_or_default();
        format!(
            "Scheduler ({}{path}): released {:.2} ms from due at P50, {:.2} ms at P99; painted {} after release; {} late frame(s) of {}; {} per token to render.{fallback}{timers}{why}{early}",
            info.scheduler,
            self.emit_error_ms.p50,
            self.emit_error_ms.p99,
            self.paint_lag_ms
                .map(|p| format!("{:.1} ms (P50), {:.1} ms (P99)", p.p50, p.p99))
                .unwrap_or_else(|| "—".into()),
            info.late_frames,
            info.frames,
            info.render_us_per_token.map(|u| format!("{u:.1} µs")).unwrap_or_else(|| "—".into()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fidelity_of_a_recorded_replay() {
        let t = crate::trace::Trace::from_json(
            r#"{"schema_version":1,"requests":[{"sent_ms":0,"chunks":[
              {"arrived_ms":100.4,"due_ms":100,"painted_ms":110},
              {"arrived_ms":120.1,"due_ms":120,"painted_ms":126},
              {"arrived_ms":140.0,"due_ms":140.5}]}]}"#,
        )
        .unwrap();
        let f = Fidelity::of(&t.requests[0]).unwrap();
        assert!((f.emit_error_ms.max - 0.5).abs() < 1e-9);
        assert_eq!(f.early_stamps.releases, 1);
        assert_eq!(f.paint_lag_ms.unwrap().count, 2);
        let mut info = ReplayInfo { scheduler: "precise".into(), ..ReplayInfo::default() };
        info.released_by.workers = 2;
        info.released_by.main_thread = 1;
        info.fallback = Some("the workers were still calibrating".into());
        let s = f.sentence(&info);
        assert!(
            s.starts_with("Scheduler (precise via release-clock workers (2), the page's main thread (1))"),
            "{s}"
        );
        assert!(
            s.contains("Fallback: the workers were still calibrating")
                && s.contains("1 release(s) earlier than due"),
            "{s}"
        );
        assert!(Fidelity::of(&crate::trace::RequestTrace::default()).is_none());
    }

    #[test]
    fn a_playback_short_of_the_targets_says_why() {
        let t = crate::trace::Trace::from_json(
            r#"{"schema_version":1,"requests":[{"sent_ms":0,"chunks":[
              {"arrived_ms":100.1,"due_ms":100,"painted_ms":110},
              {"arrived_ms":123.0,"due_ms":120,"painted_ms":126}]}]}"#,
        )
        .unwrap();
        let f = Fidelity::of(&t.requests[0]).unwrap();
        let mut info = ReplayInfo { scheduler: "precise".into(), frames: 100, ..ReplayInfo::default() };
        info.released_by.workers = 2;
        let s = f.sentence(&info);
        assert!(
            s.contains("missed the lab's 1 ms target at P99: the release-clock workers woke up late"),
            "{s}"
        );
        assert!(!s.contains("frames came late"), "{s}");
        info.late_frames = 7;
        assert!(f.sentence(&info).contains("7 of 100 frames came late"));
        let on_time = Fidelity { emit_error_ms: Samples::from_finite([0.1, 0.2]).summary().unwrap(), ..f };
        info.late_frames = 0;
        assert_eq!(on_time.shortfall(&info), None, "both targets met");
        info.released_by = crate::trace::Released { main_thread: 2, ..Default::default() };
        assert_eq!(f.shortfall(&info), None, "the fallback says its own reason");
        info.scheduler = "naive".into();
        info.late_frames = 3;
        assert_eq!(f.shortfall(&info), None, "the naive scheduler is late on purpose");
    }

    #[test]
    fn plays_pauses_and_changes_speed_continuously() {
        let mut r = Replay::new(vec![100.0, 200.0, 300.0, 400.0]);
        assert_eq!(r.poll(0.0), 0..0, "idle emits nothing");
        r.play(1000.0);
        assert_eq!(r.next_wake(), Some(1100.0));
        assert_eq!(r.poll(1099.9), 0..0);
        assert_eq!(r.poll(1100.0), 0..1);
        r.pause(1150.0);
        assert_eq!(r.poll(5000.0), 1..1, "paused emits nothing");
        r.play(6000.0); // position 150 → chunk 1 (200) due 50 ms later
        assert_eq!(r.next_wake(), Some(6050.0));
        r.set_speed(6000.0, 2.0); // now 50 ms of schedule take 25 ms
        assert_eq!(r.next_wake(), Some(6025.0));
        assert_eq!(r.poll(6075.0), 1..3); // position 150 + 75·2 = 300
        assert_eq!(r.due_clock(3), Some(6125.0));
        assert_eq!(r.poll(7000.0), 3..4);
        assert!(r.is_finished());
        assert_eq!(r.next_wake(), None);
        r.restart();
        assert_eq!((r.emitted(), r.is_playing()), (0, false));
        r.set_speed(0.0, 100.0);
        assert_eq!(r.speed(), SPEED_RANGE.1);
    }

    #[test]
    fn bad_schedules_are_sorted_and_clamped() {
        let mut r = Replay::new(vec![30.0, f64::NAN, 10.0, -5.0]);
        r.play(0.0);
        assert_eq!(r.poll(0.0), 0..2);
        assert_eq!(r.poll(30.0), 2..4);
    }
}
