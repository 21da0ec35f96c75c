//! The request on screen: where its text goes, who hears about it, and
//! its view made ready for an answer before the request is sent.

use lab_core::replay::cadence::Contrast;
use lab_core::replay::smooth::Smoothing;
use lab_core::stream::live::LiveStats;
use lab_core::trace::RequestTrace;

use super::answer::Answer;
use crate::browser::render::clear;

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

/// The view of the request on screen, emptied for its answer.
pub fn prepare(s: &OnScreen<'_>) -> Answer {
    clear(&s.content);
    clear(&s.reasoning);
    clear(&s.tools);
    (s.on_stats)(LiveStats::default());
    (s.on_cadence)(None);
    Answer::new(s.content.clone(), s.markdown, s.smoothing)
}
