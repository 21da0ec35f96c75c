//! The runner's counters and its progress line on a terminal (`indicatif`;
//! nothing is drawn when stderr is not a terminal or with `--quiet`):
//! requests sent, finished and failed, those in flight, the rate of the
//! last second, and TTFT P50/P99 of the last [`RECENT`] answers (a run of a
//! million requests is not re-sorted four times a second).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lab_core::measure::stats::Samples;

/// TTFTs the progress line's percentiles are taken over.
pub const RECENT: usize = 10_000;

/// Counters every request task updates.
#[derive(Default)]
pub struct Counters {
    /// Requests sent.
    pub sent: AtomicU64,
    /// Requests ended well.
    pub finished: AtomicU64,
    /// Requests ended in a failure.
    pub failed: AtomicU64,
    /// The last [`RECENT`] TTFTs (ms).
    pub ttft: Mutex<std::collections::VecDeque<f64>>,
}

impl Counters {
    /// Records an ended request.
    pub fn ended(&self, ttft_ms: Option<f64>, failed: bool) {
        if failed {
            self.failed.fetch_add(1, Ordering::Relaxed);
        } else {
            self.finished.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(t) = ttft_ms {
            let mut recent = self.ttft.lock().unwrap_or_else(PoisonError::into_inner);
            if recent.len() == RECENT {
                recent.pop_front();
            }
            recent.push_back(t);
        }
    }

    /// TTFT P50 and P99 of the last [`RECENT`] answers (ms).
    pub fn ttft(&self) -> Option<(f64, f64)> {
        let recent: Vec<f64> =
            self.ttft.lock().unwrap_or_else(PoisonError::into_inner).iter().copied().collect();
        let s = Samples::from_finite(recent);
        Some((s.percentile(50.0)?, s.percentile(99.0)?))
    }
}

/// Draws the line every 250 ms until the returned bar is finished.
pub fn start(counters: Arc<Counters>, quiet: bool) -> ProgressBar {
    let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
    let bar = ProgressBar::with_draw_target(None, target);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let b = bar.clone();
    tokio::spawn(async move {
        let mut last = 0;
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        let mut rates = std::collections::VecDeque::from([0u64; 4]);
        while !b.is_finished() {
            tick.tick().await;
            let sent = counters.sent.load(Ordering::Relaxed);
            let (ok, bad) =
                (counters.finished.load(Ordering::Relaxed), counters.failed.load(Ordering::Relaxed));
            rates.push_back(sent - last);
            rates.pop_front();
            last = sent;
            let rate: u64 = rates.iter().sum();
            let ttft = counters
                .ttft()
                .map_or(String::new(), |(p50, p99)| format!(" · TTFT P50 {p50:.0} ms, P99 {p99:.0} ms"));
            b.set_message(format!(
                "sent {sent} · finished {ok} · failed {bad} · in flight {} · {rate} req/s{ttft}",
                sent.saturating_sub(ok + bad)
            ));
            b.tick();
        }
    });
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_percentiles_keep_only_the_recent_answers() {
        let c = Counters::default();
        for i in 0..(RECENT + 500) {
            c.ended(Some(if i < 500 { 10_000.0 } else { 100.0 }), i % 10 == 0);
        }
        assert_eq!(c.ttft(), Some((100.0, 100.0)), "the 500 slow ones are older than the last {RECENT}");
        assert_eq!(c.failed.load(Ordering::Relaxed) as usize, (RECENT + 500) / 10);
    }
}
