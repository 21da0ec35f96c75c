//! What the replay endpoint admitted, in order: each request's wait for a
//! decode slot, numbered, so a probe run can read the server's side of any
//! window (`GET /v1/lab/traffic?after=N`) whoever sent the load — the app's
//! built-in load, `latency-lab run` or another tool.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

/// Admissions remembered (oldest forgotten first): minutes of load at
/// hundreds of requests a second.
pub const CAPACITY: usize = 200_000;

/// The admissions log.
#[derive(Default)]
pub struct Traffic {
    /// (number of the first kept, each kept request's wait in ms).
    inner: Mutex<(u64, VecDeque<f64>)>,
}

/// The admissions after a point, as `GET /v1/lab/traffic` answers.
#[derive(Debug, Serialize, PartialEq)]
pub struct Since {
    /// The number to ask after next time.
    pub next: u64,
    /// Each request's wait for a slot (ms), in order of admission.
    pub queued_ms: Vec<f64>,
    /// Admissions forgotten before they could be read (the window asked
    /// for reaches further back than [`CAPACITY`]).
    pub forgotten: u64,
}

impl Traffic {
    /// Notes one admitted request and its wait.
    pub fn admit(&self, queued_ms: f64) {
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (first, kept) = &mut *g;
        kept.push_back(queued_ms);
        if kept.len() > CAPACITY {
            kept.pop_front();
            *first += 1;
        }
    }

    /// The admissions after number `after` (none asked: only the number
    /// to ask after, as a cursor).
    pub fn since(&self, after: Option<u64>) -> Since {
        let g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (first, kept) = &*g;
        let next = first + kept.len() as u64;
        let Some(after) = after else { return Since { next, queued_ms: Vec::new(), forgotten: 0 } };
        let after = after.min(next);
        let skip = after.saturating_sub(*first) as usize;
        Since {
            next,
            queued_ms: kept.iter().skip(skip).copied().collect(),
            forgotten: first.saturating_sub(after),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_what_came_after_it_and_says_what_was_forgotten() {
        let t = Traffic::default();
        t.admit(0.0);
        let cursor = t.since(None).next;
        assert_eq!(cursor, 1);
        t.admit(5.0);
        t.admit(7.5);
        assert_eq!(t.since(Some(cursor)), Since { next: 3, queued_ms: vec![5.0, 7.5], forgotten: 0 });
        assert_eq!(t.since(Some(99)).queued_ms, Vec::<f64>::new(), "a cursor from the future reads nothing");
        for _ in 0..CAPACITY {
            t.admit(1.0);
        }
        let s = t.since(Some(cursor));
        assert_eq!((s.forgotten, s.queued_ms.len()), (2, CAPACITY));
    }
}
