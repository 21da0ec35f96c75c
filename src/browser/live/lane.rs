//! A probe's own pane: when probes overlap (probe while loaded, a slow
//! server), the one on screen keeps the main answer pane and each other
//! probe streams into a small pane of its own, added to
//! [`super::UseLiveRunOptions::lanes`] while it streams and removed when
//! its answer is shown. So every probe is drawn and has its paint times,
//! not only the ones that found the main pane free.

use lab_core::replay::cadence::Contrast;
use lab_core::stream::live::LiveStats;
use lab_core::trace::RequestTrace;

use crate::browser::render::el;

/// Where a lane's live figures go: nowhere (the panel shows the answer
/// pane's).
pub(super) struct Quiet {
    /// Live figures.
    pub stats: fn(LiveStats),
    /// Partial trace.
    pub checkpoint: fn(&RequestTrace),
    /// Displayed cadence.
    pub cadence: fn(Option<Contrast>),
}

/// The one [`Quiet`].
pub(super) const QUIET: Quiet = Quiet { stats: |_| {}, checkpoint: |_| {}, cadence: |_| {} };

/// One probe's pane, taken out of the page when dropped.
pub(super) struct Lane {
    pane: web_sys::Element,
    /// Answer text.
    pub content: web_sys::Element,
    /// Reasoning text (hidden unless the model sends some).
    pub reasoning: web_sys::Element,
    /// Tool calls.
    pub tools: web_sys::Element,
}

impl Lane {
    /// A new pane at the end of `lanes`, or `None` without a page.
    pub fn open(lanes: &web_sys::Element) -> Option<Self> {
        let (pane, content, reasoning, tools) = (el("div")?, el("div")?, el("pre")?, el("div")?);
        pane.set_class_name("probe-lane");
        let _ = pane.set_attribute("data-testid", "probe-lane");
        let _ = pane.set_attribute("role", "group");
        let _ = pane.set_attribute("aria-label", "A probe in flight");
        content.set_class_name("probe-lane-output");
        reasoning.set_class_name("probe-lane-reasoning");
        tools.set_class_name("tool-calls");
        for part in [&reasoning, &content, &tools] {
            let _ = pane.append_child(part);
        }
        let _ = lanes.append_child(&pane);
        Some(Self { pane, content, reasoning, tools })
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.pane.remove();
    }
}
