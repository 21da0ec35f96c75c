//! Shaping a workload before it is sent, one request at a time (so a
//! 1,000,000-row file is shaped as it is read):
//!
//! 1. **window** `A..B` (s from the workload's first send): only requests
//!    sent in `[A, B)`, timed from `A`;
//! 2. **speed** ×k: every time divided by k, so the rate is k times the
//!    trace's with the same shape (bursts stay bursts, k times denser);
//! 3. **resample** to a target rate, keeping the burstiness, with a seed:
//!    with m = target rate ÷ the window's own mean rate, each request is
//!    sent ⌊m⌋ times, plus once more with probability m − ⌊m⌋ (m < 1:
//!    each is kept with probability m). An extra copy goes at a uniformly
//!    drawn time between the previous request and this one, so the rate
//!    over time keeps its curve, scaled by m; the time span is unchanged.
//!    A copy is the same request sent again (the same prompt blocks: as
//!    another user asking the same), in a session of its own;
//! 4. **cap**: at most N requests.
//!
//! Times out are ms from the window's start, in send order.

use super::Request;
use crate::replay::rng::Rng;

/// How to shape a workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Only requests sent in `[A, B)` s from the first send.
    pub window: Option<(f64, f64)>,
    /// Rate factor (times divided by it), > 0.
    pub speed: f64,
    /// Copies per request (target rate ÷ the window's mean rate) and seed.
    pub resample: Option<(f64, u64)>,
    /// At most this many requests.
    pub cap: Option<u64>,
}

impl Default for Shape {
    fn default() -> Self {
        Self { window: None, speed: 1.0, resample: None, cap: None }
    }
}

/// Why a shape is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// Speed not a positive number.
    #[error("the speed is a number above 0 (×1 plays the trace as recorded), not {0}")]
    Speed(f64),
    /// A window that is empty or backwards.
    #[error("the window is A..B seconds with 0 ≤ A < B, not {0}..{1}")]
    Window(f64, f64),
    /// A resample factor that is not a positive number.
    #[error("the target rate must be above 0 (the factor was {0})")]
    Resample(f64),
    /// The trace has no rate to resample from.
    #[error("the workload has no send times to resample (give --speed, or a rate for untimed files)")]
    Untimed,
}

impl Shape {
    /// Checks the numbers.
    pub fn validate(&self) -> Result<(), ShapeError> {
        if !(self.speed > 0.0 && self.speed.is_finite()) {
            return Err(ShapeError::Speed(self.speed));
        }
        if let Some((a, b)) = self.window
            && !(a >= 0.0 && b > a)
        {
            return Err(ShapeError::Window(a, b));
        }
        if let Some((m, _)) = self.resample
            && !(m > 0.0 && m.is_finite())
        {
            return Err(ShapeError::Resample(m));
        }
        Ok(())
    }

    /// The resample factor to reach `target` requests/s from a window whose
    /// mean rate (before speed) is `window_rate`.
    pub fn factor_for(&self, target: f64, window_rate: Option<f64>) -> Result<f64, ShapeError> {
        let rate = window_rate.filter(|r| *r > 0.0).ok_or(ShapeError::Untimed)?;
        let m = target / (rate * self.speed);
        if !(m > 0.0 && m.is_finite()) {
            return Err(ShapeError::Resample(m));
        }
        Ok(m)
    }
}

/// Applies a [`Shape`] to requests in send order.
#[derive(Debug)]
pub struct Shaper {
    shape: Shape,
    start_ms: Option<f64>,
    prev_out_ms: f64,
    sent: u64,
    rng: Rng,
    copies: u64,
}

/// Sessions of resampled copies start here (far above any file's own).
pub const COPY_SESSIONS: u64 = 1 << 48;

impl Shaper {
    /// A shaper of `shape` (validated with [`Shape::validate`]).
    pub fn new(shape: Shape) -> Self {
        let seed = shape.resample.map_or(0, |(_, s)| s);
        Self { shape, start_ms: None, prev_out_ms: 0.0, sent: 0, rng: Rng::new(seed), copies: 0 }
    }

    /// Requests sent so far.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Whether the cap is reached (nothing more will be sent).
    pub fn done(&self) -> bool {
        self.shape.cap.is_some_and(|c| self.sent >= c)
    }

    /// The shaped requests of `r` (none, one or several), appended to `out`.
    pub fn push(&mut self, mut r: Request, out: &mut Vec<Request>) {
        let start = *self.start_ms.get_or_insert(r.at_ms);
        let mut t = (r.at_ms - start) / 1000.0;
        if let Some((a, b)) = self.shape.window {
            if t < a || t >= b {
                return;
            }
            t -= a;
        }
        let at = t * 1000.0 / self.shape.speed;
        let n = match self.shape.resample {
            None => 1,
            Some((m, _)) => {
                let whole = m.floor();
                whole as u64 + u64::from(self.rng.uniform() < m - whole)
            }
        };
        let prev = self.prev_out_ms.min(at);
        let mut extra: Vec<f64> = (1..n).map(|_| prev + self.rng.uniform() * (at - prev)).collect();
        extra.sort_by(f64::total_cmp);
        for when in extra {
            if self.done() {
                return;
            }
            self.copies += 1;
            out.push(Request { at_ms: when, session: Some(COPY_SESSIONS + self.copies), ..r.clone() });
            self.sent += 1;
        }
        if n > 0 && !self.done() {
            r.at_ms = at;
            out.push(r);
            self.sent += 1;
        }
        self.prev_out_ms = self.prev_out_ms.max(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Format;
    use crate::workload::summary::Summary;

    fn trace() -> Vec<Request> {
        // Bursts of 20 requests within 100 ms every 10 s, for 100 s.
        (0..10)
            .flat_map(|b| {
                (0..20).map(move |i| Request {
                    at_ms: 5_000.0 + f64::from(b) * 10_000.0 + f64::from(i) * 5.0,
                    input_tokens: 10,
                    ..Request::default()
                })
            })
            .collect()
    }

    fn shaped(shape: Shape) -> Vec<Request> {
        let mut s = Shaper::new(shape);
        let mut out = Vec::new();
        for r in trace() {
            s.push(r, &mut out);
        }
        out
    }

    #[test]
    fn window_speed_and_cap() {
        let all = shaped(Shape::default());
        assert_eq!(all.len(), 200);
        assert_eq!((all[0].at_ms, all[20].at_ms), (0.0, 10_000.0), "timed from the first send");
        let w = shaped(Shape { window: Some((20.0, 40.0)), ..Shape::default() });
        assert_eq!(w.len(), 40);
        assert_eq!(w[0].at_ms, 0.0);
        let fast = shaped(Shape { speed: 2.0, ..Shape::default() });
        assert_eq!((fast.len(), fast[20].at_ms, fast[1].at_ms), (200, 5_000.0, 2.5));
        assert_eq!(shaped(Shape { cap: Some(7), ..Shape::default() }).len(), 7);
        assert!(Shape { speed: 0.0, ..Shape::default() }.validate().is_err());
        assert!(Shape { window: Some((5.0, 5.0)), ..Shape::default() }.validate().is_err());
        assert!(Shape { resample: Some((f64::NAN, 1)), ..Shape::default() }.validate().is_err());
    }

    #[test]
    fn resampling_reaches_the_rate_and_keeps_the_bursts() {
        let summary = |rs: &[Request]| {
            let mut s = Summary::new(Format::Mooncake);
            rs.iter().for_each(|r| s.add(r));
            s
        };
        let base = summary(&shaped(Shape::default()));
        for (m, seed) in [(2.5, 7u64), (0.4, 9)] {
            let out = shaped(Shape { resample: Some((m, seed)), ..Shape::default() });
            assert!(out.windows(2).all(|w| w[0].at_ms <= w[1].at_ms), "in send order");
            let s = summary(&out);
            let want = 200.0 * m;
            assert!((s.requests as f64 - want).abs() < 4.0 * want.sqrt(), "{} for ×{m}", s.requests);
            // The bursts are still there: most requests in the bursts'
            // seconds, and a gap CV far above Poisson's 1.
            let in_bursts: f64 = s
                .rate_series(1000)
                .iter()
                .filter(|(t, _)| (*t as u64).is_multiple_of(10))
                .map(|(_, r)| r)
                .sum();
            assert!(in_bursts / s.requests as f64 > 0.9, "×{m}: {in_bursts} of {}", s.requests);
            assert!(
                s.burstiness().unwrap() > 2.0 && base.burstiness().unwrap() > 2.0,
                "×{m}: {:?}",
                s.burstiness()
            );
            assert_eq!(out, shaped(Shape { resample: Some((m, seed)), ..Shape::default() }), "seeded");
        }
        let f = Shape::default().factor_for(10.0, Some(2.0)).unwrap();
        assert_eq!(f, 5.0);
        assert_eq!(Shape { speed: 2.0, ..Shape::default() }.factor_for(10.0, Some(2.0)), Ok(2.5));
        assert_eq!(Shape::default().factor_for(10.0, None), Err(ShapeError::Untimed));
    }
}
