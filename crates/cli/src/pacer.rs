//! A precise timer for emissions. Tokio's timer wheel has 1 ms granularity
//! and rounds up, so a chunk due at 20.0 ms would go out at 20–21 ms. The
//! pacer is one dedicated thread holding every pending deadline in a heap:
//! it sleeps on a condition variable until [`SPIN_WINDOW`] before the next
//! deadline, then spins on the monotonic clock and fires the deadline the
//! moment it passes, handing the waiting task the instant it fired.
//!
//! Deadlines are never fired early. Lateness is the OS wake-up of the
//! spinning thread plus the task wake-up (tens of µs on an idle machine).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How long before a deadline the pacer stops sleeping and starts spinning.
pub const SPIN_WINDOW: Duration = Duration::from_micros(400);

struct Entry {
    due: Instant,
    seq: u64,
    tx: oneshot::Sender<Instant>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.due, self.seq) == (other.due, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: the heap's top is the earliest deadline.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.due, other.seq).cmp(&(self.due, self.seq))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// Handle to the pacer thread (cheap to clone).
#[derive(Clone)]
pub struct Pacer {
    shared: Arc<Shared>,
}

impl Pacer {
    /// Starts the pacer thread.
    pub fn start() -> std::io::Result<Self> {
        let shared = Arc::new(Shared::default());
        let worker = Arc::clone(&shared);
        std::thread::Builder::new().name("lab-pacer".into()).spawn(move || run(&worker))?;
        Ok(Self { shared })
    }

    /// Waits until `due`; returns the instant the pacer fired (≥ `due`).
    pub async fn until(&self, due: Instant) -> Instant {
        if due <= Instant::now() {
            return Instant::now();
        }
        let (tx, rx) = oneshot::channel();
        let earliest = {
            let mut q = self.shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
            q.seq += 1;
            let seq = q.seq;
            // Only a new earliest deadline needs the pacer to re-plan its
            // sleep; at thousands of deadlines per second, waking it for
            // every one would cost more than the waits.
            let earliest = q.heap.peek().is_none_or(|e| due < e.due);
            q.heap.push(Entry { due, seq, tx });
            earliest
        };
        if earliest {
            self.shared.wake.notify_one();
        }
        // The pacer never drops a sender without firing it; fall back to now.
        rx.await.unwrap_or_else(|_| Instant::now())
    }
}

fn run(shared: &Shared) {
    let mut q = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let Some(next) = q.heap.peek().map(|e| e.due) else {
            q = shared.wake.wait(q).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        let now = Instant::now();
        if next <= now {
            while q.heap.peek().is_some_and(|e| e.due <= now) {
                if let Some(e) = q.heap.pop() {
                    let _ = e.tx.send(now);
                }
            }
            continue;
        }
        let left = next - now;
        if left > SPIN_WINDOW {
            q = shared.wake.wait_timeout(q, left - SPIN_WINDOW).unwrap_or_else(PoisonError::into_inner).0;
            continue;
        }
        drop(q);
        while Instant::now() < next {
            // Give the core to a runnable thread (the tasks writing the
            // chunks just fired) if there is one; returns at once if not.
            std::thread::yield_now();
        }
        q = shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn never_early_and_ordered() {
        let pacer = Pacer::start().unwrap();
        let start = Instant::now();
        let mut handles = Vec::new();
        for i in (0..40u64).rev() {
            let p = pacer.clone();
            let due = start + Duration::from_millis(5 + i * 3);
            handles.push(tokio::spawn(async move { (due, p.until(due).await) }));
        }
        for h in handles {
            let (due, fired) = h.await.unwrap();
            assert!(fired >= due, "fired {:?} early", due - fired);
            // Generous bound: CI machines are busy; precision is measured in benchmarks.
            assert!(fired - due < Duration::from_millis(50), "fired {:?} late", fired - due);
        }
    }
}
