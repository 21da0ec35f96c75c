//! The request on screen: where its text goes, who hears about it, its
//! view made ready for an answer before the request is sent, and its frames
//! while it waits for the response.

use std::future::Future;

use futures_util::{FutureExt, pin_mut, select_biased};
use lab_core::replay::cadence::Contrast;
use lab_core::replay::smooth::Smoothing;
use lab_core::stream::live::LiveStats;
use lab_core::stream::record::Recorder;
use lab_core::trace::RequestTrace;

use super::answer::Answer;
use crate::browser::clock::now_ms;
use crate::browser::paint::next_frame;
use crate::browser::render::clear;

/// Shortest interval between two refreshes of the live figures (ms).
pub const STATS_INTERVAL_MS: f64 = 100.0;

/// The request shown on the page: where its text goes and who hears about it.
pub struct OnScreen<'a> {
    /// Answer text.
    pub content: web_sys::Element,
    /// Renders the answer as Markdown (else as text).
    pub markdown: bool,
    /// Paces the answer onto the screen as a chat front end would.
    pub smoothing: Smoothing,
    /// Reasoning text.
    pub reasoning: web_sys::Element,
    /// Tool calls, one block per call (name and arguments as text).
    pub tools: web_sys::Element,
    /// Receives the live figures (at most every [`STATS_INTERVAL_MS`]).
    pub on_stats: &'a dyn Fn(LiveStats),
    /// Receives the partial request (every [`CHECKPOINT_MS`]).
    pub on_checkpoint: &'a dyn Fn(&RequestTrace),
    /// Receives the displayed cadence against the streamed one when the
    /// request starts (`None`) and once a smoothed answer is all shown.
    pub on_cadence: &'a dyn Fn(Option<Contrast>),
}

impl OnScreen<'_> {
    /// Refreshes the figures at `now` when [`STATS_INTERVAL_MS`] has passed
    /// since `last` (which it moves on).
    pub fn stats_at(&self, rec: &Recorder, last: &mut f64, now: f64) {
        if now - *last >= STATS_INTERVAL_MS {
            *last = now;
            (self.on_stats)(LiveStats::of(rec.request(), now));
        }
    }
}

/// The view of the request on screen, emptied for its answer.
pub fn prepare(s: &OnScreen<'_>) -> Answer {
    clear(&s.content);
    clear(&s.reasoning);
    clear(&s.tools);
    (s.on_stats)(LiveStats::default());
    (s.on_cadence)(None);
    Answer::new(s.content.clone(), s.markdown, s.smoothing)
}

/// Waits for `response` with the request's frames running, its figures
/// refreshed every [`STATS_INTERVAL_MS`]; returns it and when the figures
/// were last refreshed (the frames that read the body go on from there).
///
/// Why frames before the response: Firefox resolves `fetch` only with the
/// first body bytes of a wire that sends nothing before its first token
/// (Gemini, Ollama, plain text). A page that asks for its first frame
/// then wakes Firefox's idle refresh driver, which draws at once, before
/// the read holding that token is handed over: 2.2–2.9 ms measured
/// between the token's arrival and its read (BENCHMARKS.md, "Firefox's
/// late first read").
/// With frames already running, the next one comes on its own beat.
pub async fn waiting<T>(response: impl Future<Output = T>, rec: &Recorder, s: &OnScreen<'_>) -> (T, f64) {
    let mut last_stats = f64::NEG_INFINITY;
    let response = response.fuse();
    let frame = next_frame(1000).fuse();
    pin_mut!(response, frame);
    loop {
        select_biased! {
            r = response => return (r, last_stats),
            _ = frame => {
                s.stats_at(rec, &mut last_stats, now_ms());
                frame.set(next_frame(1000).fuse());
            },
        }
    }
}
