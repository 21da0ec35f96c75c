//! **Request-rate runs**: what an open-loop arrival process
//! ([`crate::load::arrivals`]) did to the server over time.
//!
//! Time runs from the first scheduled send to the last event and is cut
//! into windows of a whole number of seconds, at most [`WINDOWS`] of them.
//! Per window:
//! - **offered** requests/s = requests scheduled in it / its length;
//! - **system tokens/s** = output tokens whose chunk arrived in it / its
//!   length (what the server delivered to everyone);
//! - **user tokens/s** = the median over requests sent in it of output
//!   tokens / E2EL (what one person saw);
//! - **TTFT** = the median TTFT of the requests sent in it (queueing shows
//!   up here first);
//! - **in flight** = the mean number of requests between sent and end over
//!   the window (their time inside it / its length: Little's-law concurrency).
//!
//! **Client delay** = `sent_ms − scheduled_ms` per request: how late the
//! browser itself sent (timers, a busy page, connection limits), reported
//! as P50/P99/max so a late client is not mistaken for a slow server.
//!
//! **Saturation point**: the first window whose median TTFT is more than
//! [`TTFT_GROWTH`] × the first window's: the offered rate there is where
//! requests started to queue. None when TTFT held.

use serde::{Deserialize, Serialize};

use crate::measure::metrics::RunMetrics;
use crate::measure::stats::{Samples, Summary};
use crate::trace::Trace;

/// Windows a run is cut into.
pub const WINDOWS: usize = 10;
/// TTFT growth over the first window that counts as saturation (2×).
pub const TTFT_GROWTH: f64 = 2.0;

/// One window of a rate run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateWindow {
    /// Window start (s since the first scheduled send).
    pub start_s: f64,
    /// Requests/s scheduled.
    pub offered_per_s: f64,
    /// Output tokens/s delivered to all.
    pub system_tokens_per_s: f64,
    /// Median per-request output tokens/s of requests sent in it.
    pub user_tokens_per_s: Option<f64>,
    /// Median TTFT of requests sent in it (ms).
    pub ttft_ms: Option<f64>,
    /// Mean requests in flight over it.
    pub in_flight: f64,
}

/// A rate run's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateRun {
    /// Requests with a scheduled send.
    pub requests: usize,
    /// Window length (s).
    pub window_s: f64,
    /// The windows.
    pub windows: Vec<RateWindow>,
    /// sent − scheduled (ms).
    pub client_delay_ms: Option<Summary>,
    /// The window where TTFT passed [`TTFT_GROWTH`] × the first one's.
    pub saturation: Option<usize>,
}

/// The rate view of a trace (`None` when no request was scheduled).
pub fn rate_run(trace: &Trace, m: &RunMetrics) -> Option<RateRun> {
    let reqs: Vec<_> =
        trace.requests.iter().zip(&m.per_request).filter(|(r, _)| r.scheduled_ms.is_some()).collect();
    let t0 = reqs.iter().filter_map(|(r, _)| r.scheduled_ms).reduce(f64::min)?;
    let end = reqs.iter().map(|(_, rm)| rm.last_event_ms).fold(t0, f64::max);
    let window_s = ((end - t0) / 1000.0 / WINDOWS as f64).ceil().max(1.0);
    let count = (((end - t0) / 1000.0 / window_s).ceil() as usize).clamp(1, WINDOWS);
    let w_ms = window_s * 1000.0;
    let at = |t: f64| ((t - t0) / w_ms).floor().max(0.0) as usize;
    let median = |v: Vec<f64>| Samples::from_finite(v).summary().map(|s| s.median);
    let windows: Vec<RateWindow> = (0..count)
        .map(|k| {
            let sent_here: Vec<_> = reqs.iter().filter(|(r, _)| at(r.sent_ms) == k).collect();
            let tokens: u64 = reqs
                .iter()
                .filter(|(_, rm)| rm.completed)
                .flat_map(|(r, _)| {
                    r.chunks.iter().filter(|c| at(c.arrived_ms) == k).map(|c| u64::from(c.tokens))
                })
                .sum();
            let w_end = t0 + (k + 1) as f64 * w_ms;
            RateWindow {
                start_s: k as f64 * window_s,
                offered_per_s: reqs.iter().filter(|(r, _)| r.scheduled_ms.map(at) == Some(k)).count() as f64
                    / window_s,
                system_tokens_per_s: tokens as f64 / window_s,
                user_tokens_per_s: median(
                    sent_here.iter().filter_map(|(_, rm)| rm.output_tokens_per_s).collect(),
                ),
                ttft_ms: median(sent_here.iter().filter_map(|(_, rm)| rm.ttft_ms).collect()),
                in_flight: reqs
                    .iter()
                    .map(|(r, rm)| (rm.last_event_ms.min(w_end) - r.sent_ms.max(w_end - w_ms)).max(0.0))
                    .sum::<f64>()
                    / w_ms,
            }
        })
        .collect();
    let first = windows.iter().find_map(|w| w.ttft_ms);
    let saturation =
        first.and_then(|f| windows.iter().position(|w| w.ttft_ms.is_some_and(|t| t > TTFT_GROWTH * f)));
    let delays = reqs.iter().filter_map(|(r, _)| Some(r.sent_ms - r.scheduled_ms?));
    Some(RateRun {
        requests: reqs.len(),
        window_s,
        client_delay_ms: Samples::from_finite(delays).summary(),
        saturation,
        windows,
    })
}

impl RateRun {
    /// The windows as text rows.
    pub fn table(&self) -> String {
        let cell = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.1}"));
        let mut out = format!(
            "  {:>8} {:>10} {:>12} {:>12} {:>10} {:>10}\n",
            "from (s)", "offered/s", "system tok/s", "user tok/s", "TTFT (ms)", "in flight"
        );
        for w in &self.windows {
            out.push_str(&format!(
                "  {:>8.0} {:>10.2} {:>12.1} {:>12} {:>10} {:>10.1}\n",
                w.start_s,
                w.offered_per_s,
                w.system_tokens_per_s,
                cell(w.user_tokens_per_s),
                cell(w.ttft_ms),
                w.in_flight
            ));
        }
        out
    }

    /// The saturation point in words.
    pub fn describe(&self) -> String {
        let first = self.windows.iter().find_map(|w| w.ttft_ms).unwrap_or(0.0);
        let peak = self.windows.iter().map(|w| w.offered_per_s).fold(0.0, f64::max);
        let delay = self.client_delay_ms.map_or(String::new(), |d| {
            format!(" The browser sent {:.1} ms late at P99 (its own delay, not the server's).", d.p99)
        });
        match self.saturation.and_then(|k| self.windows.get(k)) {
            Some(w) => format!(
                "Requests started to queue at about {:.1} requests/s ({:.0} s in): median TTFT rose from {:.0} ms to {:.0} ms while the server delivered {:.0} tokens/s to everyone.{delay}",
                w.offered_per_s,
                w.start_s,
                first,
                w.ttft_ms.unwrap_or(0.0),
                w.system_tokens_per_s,
            ),
            None => format!(
                "The server kept up with every rate asked for (up to {peak:.1} requests/s): median TTFT stayed within {TTFT_GROWTH}× of the first {:.0} s ({first:.0} ms).{delay}",
                self.window_s
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metrics::MetricsConfig;
    use crate::trace::{Chunk, RequestTrace};

    /// A request scheduled at `at` s, sent 2 ms late, first token after `ttft` ms, 10 tokens 10 ms apart.
    fn req(at: f64, ttft: f64) -> RequestTrace {
        let sent = at * 1000.0 + 2.0;
        RequestTrace {
            scheduled_ms: Some(at * 1000.0),
            sent_ms: sent,
            chunks: (0..10).map(|i| Chunk::content(sent + ttft + 10.0 * i as f64, "a", 1)).collect(),
            end_ms: Some(sent + ttft + 90.0),
            ..RequestTrace::default()
        }
    }

    #[test]
    fn a_ramp_shows_where_ttft_starts_to_climb() {
        // 1 request/s for 10 s at 100 ms TTFT, then 4/s for 10 s with TTFT climbing.
        let mut reqs: Vec<RequestTrace> = (0..10).map(|i| req(i as f64, 100.0)).collect();
        reqs.extend((0..40).map(|i| req(10.0 + i as f64 * 0.25, 100.0 + 25.0 * i as f64)));
        let t = Trace { requests: reqs, ..Trace::default() };
        let r = rate_run(&t, &RunMetrics::of(&t, &MetricsConfig::default())).unwrap();
        assert_eq!(r.requests, 50);
        assert_eq!(r.window_s, 3.0, "21 s in whole seconds, at most 10 windows");
        assert_eq!(r.windows.len(), 7);
        assert_eq!(r.windows[0].offered_per_s, 1.0);
        assert_eq!(r.windows[4].offered_per_s, 4.0);
        assert_eq!(r.windows[0].system_tokens_per_s, 10.0, "three requests of 10 tokens in 3 s");
        let k = r.saturation.unwrap();
        assert!(r.windows[k].ttft_ms.unwrap() > 200.0 && r.windows[k - 1].ttft_ms.unwrap() <= 200.0);
        assert!((r.client_delay_ms.unwrap().p99 - 2.0).abs() < 1e-9);
        let text = r.describe();
        assert!(text.starts_with("Requests started to queue at about 4.0 requests/s"), "{text}");
        assert!(text.contains("2.0 ms late at P99"), "{text}");
    }

    #[test]
    fn a_steady_server_keeps_up() {
        let reqs: Vec<RequestTrace> = (0..20).map(|i| req(i as f64 * 0.5, 100.0)).collect();
        let t = Trace { requests: reqs, ..Trace::default() };
        let r = rate_run(&t, &RunMetrics::of(&t, &MetricsConfig::default())).unwrap();
        assert_eq!(r.saturation, None);
        // Two requests a second, 190 ms each: 0.38 in flight on average.
        assert!((r.windows[1].in_flight - 0.38).abs() < 1e-9, "{:?}", r.windows[1]);
        assert!(
            r.describe().starts_with("The server kept up with every rate asked for (up to 2.0 requests/s)")
        );
        assert_eq!(
            rate_run(&Trace::default(), &RunMetrics::of(&Trace::default(), &MetricsConfig::default())),
            None
        );
    }
}
