//! The **displayed cadence**: the rhythm people see once text is on the
//! screen, against the rhythm the network delivered it in.
//!
//! For display times s_0 ≤ … ≤ s_{m−1} of the pieces shown (a word, a
//! frame's characters, or a whole chunk when nothing smooths) and arrival
//! times of the non-empty chunks a_0 ≤ … ≤ a_{n−1}:
//! - **display gaps** s_{j+1} − s_j, reported at P50 and P99 (numpy's
//!   linear percentiles, [`crate::measure::stats`]);
//! - **stalls streamed** = arrival gaps longer than the stall threshold;
//!   **stalls on screen** = display gaps longer than it; a stall the
//!   network had and the screen did not is **hidden by smoothing** (the
//!   backlog covered it);
//! - **end delay** = s_{m−1} − a_{n−1}: how long after the last token
//!   arrived the text finished appearing (what smoothing adds at the end).

use serde::{Deserialize, Serialize};

use super::smooth::Shown;
use crate::measure::stats::Samples;
use crate::replay::chunk::PaneChunk;

/// The displayed cadence of a pane's `shown` chunks against its `network`
/// ones.
pub fn chunk_contrast(network: &[PaneChunk], shown: &[PaneChunk], stall_ms: f64) -> Option<Contrast> {
    let arrivals: Vec<(f64, String)> = network.iter().map(|c| (c.due_ms, c.text.clone())).collect();
    let shown: Vec<Shown> = shown.iter().map(|c| Shown { at_ms: c.due_ms, text: c.text.clone() }).collect();
    contrast(&arrivals, &shown, stall_ms)
}

/// What people see of a stream's rhythm, against what the network did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cadence {
    /// Display gaps P50 (ms).
    pub gap_p50_ms: f64,
    /// Display gaps P99 (ms).
    pub gap_p99_ms: f64,
    /// Gaps over the stall threshold in the network's arrivals.
    pub network_stalls: usize,
    /// Gaps over the stall threshold on screen.
    pub shown_stalls: usize,
    /// Last display − last arrival (ms): the wait smoothing adds at the end.
    pub end_delay_ms: f64,
}

/// The displayed cadence of `shown` against `arrivals` (`None` with fewer
/// than two display times).
pub fn cadence(arrivals: &[(f64, String)], shown: &[Shown], stall_ms: f64) -> Option<Cadence> {
    let gaps = |ts: &[f64]| -> Vec<f64> { ts.windows(2).map(|w| w[1] - w[0]).collect() };
    let shown_t: Vec<f64> = shown.iter().map(|s| s.at_ms).collect();
    let net_t: Vec<f64> = arrivals.iter().filter(|a| !a.1.is_empty()).map(|a| a.0).collect();
    let (sg, ng) = (gaps(&shown_t), gaps(&net_t));
    let summary = Samples::from_finite(sg.iter().copied()).summary()?;
    Some(Cadence {
        gap_p50_ms: summary.p50,
        gap_p99_ms: summary.p99,
        network_stalls: ng.iter().filter(|g| **g > stall_ms).count(),
        shown_stalls: sg.iter().filter(|g| **g > stall_ms).count(),
        end_delay_ms: shown_t.last()? - net_t.last()?,
    })
}

/// A stream's cadence as streamed and as shown.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Contrast {
    /// The arrivals themselves, as if each chunk were shown when it came.
    pub streamed: Cadence,
    /// What the screen showed.
    pub shown: Cadence,
    /// The stall threshold both were counted with (ms).
    pub stall_ms: f64,
}

/// The cadence of `shown` beside that of `arrivals` (`None` unless both
/// have two or more times).
pub fn contrast(arrivals: &[(f64, String)], shown: &[Shown], stall_ms: f64) -> Option<Contrast> {
    let as_arrived: Vec<Shown> = arrivals
        .iter()
        .filter(|a| !a.1.is_empty())
        .map(|(t, s)| Shown { at_ms: *t, text: s.clone() })
        .collect();
    Some(Contrast {
        streamed: cadence(arrivals, &as_arrived, stall_ms)?,
        shown: cadence(arrivals, shown, stall_ms)?,
        stall_ms,
    })
}

impl Contrast {
    /// Stalls of the stream that the screen did not show.
    pub fn hidden_stalls(&self) -> usize {
        self.streamed.network_stalls.saturating_sub(self.shown.shown_stalls)
    }

    /// The contrast in one sentence.
    pub fn describe(&self) -> String {
        let (s, r) = (&self.shown, &self.streamed);
        let hidden = self.hidden_stalls();
        format!(
            "Shown every {:.1} ms at P50 ({:.1} ms at P99) against {:.1} ms ({:.1} ms) as streamed; stalls over {:.0} ms: {} streamed, {} on screen{}; the text ends {:.0} ms after the last token arrived.",
            s.gap_p50_ms,
            s.gap_p99_ms,
            r.gap_p50_ms,
            r.gap_p99_ms,
            self.stall_ms,
            r.network_stalls,
            s.shown_stalls,
            if hidden > 0 { format!(" ({hidden} hidden by smoothing)") } else { String::new() },
            s.end_delay_ms,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::smooth::tests::{arr, joined};
    use crate::replay::smooth::{Smoothing, schedule};

    /// A word every 20 ms from 120 ms, with one 400 ms stall after the tenth.
    fn stalled() -> Vec<(f64, String)> {
        let mut items = Vec::new();
        let mut t = 100.0;
        for i in 0..20 {
            t += if i == 10 { 400.0 } else { 20.0 };
            items.push((t, "w "));
        }
        arr(&items)
    }

    #[test]
    fn smoothing_hides_a_stall_or_adds_delay_and_says_so() {
        let a = stalled();
        let off = cadence(&a, &schedule(&a, Smoothing::Off), 250.0).unwrap();
        assert_eq!((off.network_stalls, off.shown_stalls, off.end_delay_ms), (1, 1, 0.0));
        // Slow word pacing (50 ms) lags behind the stream and covers the stall.
        let slow = schedule(&a, Smoothing::Words { delay_ms: 50.0 });
        let c = cadence(&a, &slow, 250.0).unwrap();
        assert_eq!(c.network_stalls, 1);
        assert_eq!(c.shown_stalls, 0, "the backlog covered the stall: {c:?}");
        assert!(c.end_delay_ms > 0.0, "{c:?}");
        assert!(c.gap_p50_ms >= 50.0 - 1e-9);
        assert_eq!(joined(&slow), "w ".repeat(20));
    }

    #[test]
    fn the_contrast_says_what_smoothing_hid_and_added() {
        // Word pacing at 50 ms covers the stall.
        let a = stalled();
        let c = contrast(&a, &schedule(&a, Smoothing::Words { delay_ms: 50.0 }), 250.0).unwrap();
        assert_eq!(c.streamed.gap_p50_ms, 20.0);
        assert_eq!(
            (c.streamed.network_stalls, c.streamed.shown_stalls, c.streamed.end_delay_ms),
            (1, 1, 0.0)
        );
        assert_eq!(c.hidden_stalls(), 1);
        let text = c.describe();
        assert!(text.starts_with("Shown every 50.0 ms at P50"), "{text}");
        assert!(text.contains("against 20.0 ms"), "{text}");
        assert!(
            text.contains("stalls over 250 ms: 1 streamed, 0 on screen (1 hidden by smoothing)"),
            "{text}"
        );
        // Nothing shown twice: no contrast.
        assert_eq!(contrast(&a[..1], &schedule(&a[..1], Smoothing::Off), 250.0), None);
    }
}
