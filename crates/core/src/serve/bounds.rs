//! What the replay endpoint promises to wait for, at most.
//!
//! A profile or a fault can ask for any wait: `profile:ttft=1e12` would hold
//! a connection for as long as the client waits, and a public instance
//! would be held open by anyone. So every request's plan is checked before
//! it plays, against two bounds:
//!
//! - **one wait** ([`Bounds::max_wait_ms`]): the time before the response
//!   headers (TTFT's server side, prefill, `headers_delay_ms`), and every
//!   gap between two writes (a stall, a slow token);
//! - **the whole response** ([`Bounds::max_response_ms`]): from the request's
//!   arrival to its last write.
//!
//! A plan over either is refused at once with what it asked for and the
//! bound ([`BoundsError`]); nothing is played. Waiting for a decode slot is
//! not counted: other requests' bounded plans bound it.

use crate::serve::fault::Fault;
use crate::serve::plan::Plan;

/// The bounds a request's plan must keep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// Longest single wait (ms).
    pub max_wait_ms: f64,
    /// Longest response, arrival to last write (ms).
    pub max_response_ms: f64,
}

/// The server's default: a minute of silence at most (a very slow prefill
/// or a long stall still plays), ten minutes of response (8,000 tokens at
/// 13 tokens/s).
pub const DEFAULT: Bounds = Bounds { max_wait_ms: 60_000.0, max_response_ms: 600_000.0 };

/// Why a plan is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BoundsError {
    /// One wait is over [`Bounds::max_wait_ms`].
    #[error(
        "this request asks the server to wait {asked_ms:.0} ms {what}; this server waits at most {max_ms:.0} ms at a time (serve --max-wait-ms)"
    )]
    Wait {
        /// Which wait.
        what: &'static str,
        /// What the plan asks for.
        asked_ms: f64,
        /// The bound.
        max_ms: f64,
    },
    /// The response is longer than [`Bounds::max_response_ms`].
    #[error(
        "this request's response would last {asked_ms:.0} ms; this server streams for at most {max_ms:.0} ms (serve --max-response-ms)"
    )]
    Response {
        /// What the plan asks for.
        asked_ms: f64,
        /// The bound.
        max_ms: f64,
    },
}

/// `ms ≤ max`, and a number (NaN is refused).
fn within(ms: f64, max: f64) -> bool {
    matches!(ms.partial_cmp(&max), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal))
}

impl Bounds {
    /// Checks `plan` as `fault` will change it (header delay, stall).
    pub fn check(&self, plan: &Plan, fault: &Fault) -> Result<(), BoundsError> {
        let wait = |what, asked_ms: f64| {
            if !within(asked_ms, self.max_wait_ms) {
                return Err(BoundsError::Wait { what, asked_ms, max_ms: self.max_wait_ms });
            }
            Ok(())
        };
        wait("before its response headers", plan.headers_at_ms + fault.headers_delay_ms)?;
        let stall = fault.stall.map_or(0.0, |(_, ms)| ms);
        wait("in a stall", stall)?;
        let mut last = plan.headers_at_ms;
        for e in &plan.events {
            wait("between two chunks", e.at_ms - last)?;
            last = last.max(e.at_ms);
        }
        let total = last + fault.headers_delay_ms + stall;
        if !within(total, self.max_response_ms) {
            return Err(BoundsError::Response { asked_ms: total, max_ms: self.max_response_ms });
        }
        Ok(())
    }

    /// Checks the wait before an injected HTTP error.
    pub fn check_fault(&self, fault: &Fault) -> Result<(), BoundsError> {
        if !within(fault.headers_delay_ms, self.max_wait_ms) {
            return Err(BoundsError::Wait {
                what: "before its response headers",
                asked_ms: fault.headers_delay_ms,
                max_ms: self.max_wait_ms,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::plan::PlannedEvent;

    fn plan(headers: f64, at: &[f64]) -> Plan {
        Plan {
            headers_at_ms: headers,
            events: at.iter().map(|&at_ms| PlannedEvent { at_ms, data: "x".into(), tokens: 1 }).collect(),
            text: String::new(),
            completion_tokens: at.len() as u64,
            finish_reason: "stop",
        }
    }

    const B: Bounds = Bounds { max_wait_ms: 1_000.0, max_response_ms: 5_000.0 };

    #[test]
    fn plans_inside_the_bounds_play() {
        let ok = Fault::default();
        assert_eq!(B.check(&plan(1_000.0, &[1_000.0, 2_000.0, 3_000.0, 4_000.0, 5_000.0]), &ok), Ok(()));
        assert_eq!(B.check(&plan(0.0, &[]), &ok), Ok(()));
    }

    #[test]
    fn a_long_first_wait_is_refused_with_what_it_asked() {
        let e = B.check(&plan(1e12, &[1e12]), &Fault::default()).unwrap_err();
        assert_eq!(
            e,
            BoundsError::Wait { what: "before its response headers", asked_ms: 1e12, max_ms: 1_000.0 }
        );
        let text = e.to_string();
        assert!(text.contains("1000000000000 ms") && text.contains("at most 1000 ms"), "{text}");
        let nan = B.check(&plan(f64::NAN, &[]), &Fault::default());
        assert!(matches!(nan, Err(BoundsError::Wait { .. })));
    }

    #[test]
    fn gaps_stalls_and_header_delays_count() {
        let gap = B.check(&plan(10.0, &[10.0, 1_500.0]), &Fault::default());
        assert!(matches!(gap, Err(BoundsError::Wait { what: "between two chunks", .. })), "{gap:?}");
        let stall = Fault { stall: Some((1, 2_000.0)), ..Fault::default() };
        assert!(matches!(B.check(&plan(10.0, &[10.0, 20.0]), &stall), Err(BoundsError::Wait { .. })));
        let delayed = Fault { headers_delay_ms: 995.0, ..Fault::default() };
        assert!(B.check(&plan(10.0, &[10.0]), &delayed).is_err());
        assert!(B.check_fault(&Fault { headers_delay_ms: 2_000.0, ..Fault::default() }).is_err());
        assert_eq!(B.check_fault(&Fault { headers_delay_ms: 999.0, ..Fault::default() }), Ok(()));
    }

    #[test]
    fn a_long_response_of_short_gaps_is_refused() {
        let at: Vec<f64> = (1..=60).map(|i| f64::from(i) * 100.0).collect();
        let e = B.check(&plan(100.0, &at), &Fault::default()).unwrap_err();
        assert_eq!(e, BoundsError::Response { asked_ms: 6_000.0, max_ms: 5_000.0 });
        let stalled = Fault { stall: Some((0, 900.0)), ..Fault::default() };
        assert!(B.check(&plan(100.0, &at[..45]), &stalled).is_err(), "4,500 + 900 ms");
        assert!(B.check(&plan(100.0, &at[..40]), &stalled).is_ok(), "4,000 + 900 ms");
    }
}
