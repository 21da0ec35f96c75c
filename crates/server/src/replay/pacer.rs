//! A precise timer for emissions, driven on the same thread as the
//! connections it paces.
//!
//! Tokio's timer wheel has 1 ms granularity and rounds up, so a chunk due at
//! 20.0 ms would go out at 20–21 ms. The pacer holds every pending deadline
//! in a heap and is driven by one task ([`Pacer::drive`]) on the server's
//! single-threaded runtime. Each round it fires the deadlines that have
//! passed (handing each waiting task the instant it fired) and yields once,
//! so the woken connections write their chunks and the sockets are polled.
//! Then, far from the next deadline, it sleeps on Tokio's timer until
//! [`FINE_LEAD`] before it; nearer, it blocks the thread in OS sleeps of at
//! most [`MAX_BLOCK`] until the deadline (with a [`TIMER_SLACK_NS`] timer
//! slack, so the kernel does not add its default 50 µs). Nothing else on the
//! thread is due before.
//!
//! Why one thread: with a separate timer thread, every chunk crossed threads
//! (timer thread → worker wake-up through the kernel), and at 1,000 streams
//! (50,000 chunks/s) on a 2-core machine those wake-ups and the scheduler's
//! time slices made the P99 error several ms. Here a firing is a local queue
//! push and the woken connection writes its chunk in the same turn.
//!
//! Why not spin: a busy loop before each deadline kept a core at 100% at
//! 1,000 streams and was no more precise on a shared VM, where the host's
//! own stalls (ms) dominate either way (see BENCHMARKS.md).
//!
//! Deadlines are never fired early. Lateness is the OS wake-up (tens of µs
//! on an idle machine) plus the chunks written before it in the same turn.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, oneshot};

/// How long before a deadline the driver stops sleeping on Tokio's timer
/// (which may wake up to about 1 ms late) and sleeps on the OS clock.
pub const FINE_LEAD: Duration = Duration::from_millis(2);

/// Longest OS sleep in one go: sockets and new requests wait at most this
/// long for the thread.
pub const MAX_BLOCK: Duration = Duration::from_micros(250);

/// Timer slack asked for the driving thread (ns; Linux's default is 50,000).
pub const TIMER_SLACK_NS: u32 = 1_000;

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
    /// A new earliest deadline (the driver may be sleeping past it).
    earlier: Notify,
}

/// Handle to the pacer (cheap to clone).
#[derive(Clone, Default)]
pub struct Pacer {
    shared: Arc<Shared>,
}

impl Pacer {
    /// A pacer; it fires nothing until [`Pacer::drive`] runs.
    pub fn new() -> Self {
        Self::default()
    }

    /// Waits until `due`; returns the instant the pacer fired (≥ `due`).
    pub async fn until(&self, due: Instant) -> Instant {
        self.wait(due).await
    }

    /// Registers `due` and returns the future of its firing: a plain value
    /// a hand-written `Stream` can hold and poll without boxing.
    pub fn wait(&self, due: Instant) -> Wait {
        if due <= Instant::now() {
            return Wait::Ready(Instant::now());
        }
        let (tx, rx) = oneshot::channel();
        let earliest = {
            let mut q = self.shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
            q.seq += 1;
            let seq = q.seq;
            let earliest = q.heap.peek().is_none_or(|e| due < e.due);
            q.heap.push(Entry { due, seq, tx });
            earliest
        };
        if earliest {
            self.shared.earlier.notify_one();
        }
        Wait::Pending(rx)
    }

    /// Fires every deadline that has passed; returns the next one.
    fn fire_due(&self, fired: &mut Vec<Entry>) -> Option<Instant> {
        let now = Instant::now();
        let next = {
            let mut q = self.shared.queue.lock().unwrap_or_else(PoisonError::into_inner);
            while q.heap.peek().is_some_and(|e| e.due <= now) {
                if let Some(e) = q.heap.pop() {
                    fired.push(e);
                }
            }
            q.heap.peek().map(|e| e.due)
        };
        for e in fired.drain(..) {
            let _ = e.tx.send(now);
        }
        next
    }

    /// The task that fires deadlines; spawn it once on the (single-threaded)
    /// runtime that runs the connections. It never ends.
    pub async fn drive(self) {
        precise_sleeps();
        let mut fired = Vec::new();
        loop {
            let next = self.fire_due(&mut fired);
            // One runtime turn: the tasks just woken write their chunks,
            // sockets are polled, new requests are read.
            tokio::task::yield_now().await;
            let Some(next) = next else {
                self.shared.earlier.notified().await;
                continue;
            };
            let left = next.saturating_duration_since(Instant::now());
            if left > FINE_LEAD {
                tokio::select! {
                    () = tokio::time::sleep(left - FINE_LEAD) => {}
                    () = self.shared.earlier.notified() => {}
                }
            } else if !left.is_zero() {
                // Blocks the thread, on purpose: nothing on it is due before
                // `next` (every deadline is in the heap), and an OS sleep
                // leaves the core to other processes where spinning would
                // look CPU-bound to the scheduler and be preempted. At most
                // MAX_BLOCK, so a request arriving meanwhile (whose first
                // deadline may come sooner) waits little.
                std::thread::sleep(left.min(MAX_BLOCK));
            }
        }
    }
}

/// Asks the kernel for [`TIMER_SLACK_NS`] on the calling thread, through
/// `/proc/<tid>/timerslack_ns` (no `unsafe` call; the thread id is read from
/// the `/proc/thread-self` link). Returns whether it was set: without it
/// (older kernels, other systems) sleeps may end up to the default slack
/// (50 µs on Linux) late.
pub fn precise_sleeps() -> bool {
    let Ok(link) = std::fs::read_link("/proc/thread-self") else { return false };
    let Some(tid) = link.file_name() else { return false };
    let path = std::path::Path::new("/proc").join(tid).join("timerslack_ns");
    std::fs::write(path, TIMER_SLACK_NS.to_string()).is_ok()
}

/// A registered deadline; resolves to the instant the pacer fired it.
pub enum Wait {
    /// Already due when registered.
    Ready(Instant),
    /// Waiting for the pacer.
    Pending(oneshot::Receiver<Instant>),
}

impl Future for Wait {
    type Output = Instant;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Instant> {
        match self.get_mut() {
            Wait::Ready(at) => Poll::Ready(*at),
            // The pacer never drops a sender without firing it; fall back to now.
            Wait::Pending(rx) => Pin::new(rx).poll(cx).map(|r| r.unwrap_or_else(|_| Instant::now())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How late a timer may fire and still pass: the suite runs on shared
    /// machines beside other work; precision is measured by `./lab bench`.
    const LATE: Duration = Duration::from_millis(250);

    #[tokio::test(flavor = "current_thread")]
    async fn never_early_and_ordered() {
        let pacer = Pacer::new();
        tokio::spawn(pacer.clone().drive());
        let start = Instant::now();
        let mut handles = Vec::new();
        for i in (0..40u64).rev() {
            let p = pacer.clone();
            let due = start + Duration::from_millis(5 + i * 3);
            handles.push(tokio::spawn(async move { (due, p.until(due).await) }));
        }
        let mut fired = Vec::new();
        for h in handles {
            let (due, at) = h.await.unwrap();
            assert!(at >= due, "fired {:?} early", due - at);
            assert!(at - due < LATE, "fired {:?} late", at - due);
            fired.push((due, at));
        }
        // Ordered: waits armed in reverse fire in due order.
        fired.sort_by_key(|&(due, _)| due);
        for w in fired.windows(2) {
            assert!(
                w[1].1 >= w[0].1,
                "a wait due {:?} later fired {:?} earlier",
                w[1].0 - w[0].0,
                w[0].1 - w[1].1
            );
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_driving_thread_gets_a_small_timer_slack() {
        std::thread::spawn(|| {
            assert!(precise_sleeps(), "could not write /proc/<tid>/timerslack_ns");
            let tid = std::fs::read_link("/proc/thread-self").unwrap();
            let path = std::path::Path::new("/proc").join(tid.file_name().unwrap()).join("timerslack_ns");
            assert_eq!(std::fs::read_to_string(path).unwrap().trim(), TIMER_SLACK_NS.to_string());
        })
        .join()
        .unwrap();
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_new_earlier_deadline_interrupts_a_long_sleep() {
        let pacer = Pacer::new();
        tokio::spawn(pacer.clone().drive());
        let start = Instant::now();
        let far = pacer.wait(start + Duration::from_secs(30));
        tokio::task::yield_now().await; // the driver now sleeps towards `far`
        let near = start + Duration::from_millis(20);
        let fired = pacer.until(near).await;
        assert!(fired >= near && fired - near < LATE, "fired {:?}", fired - start);
        drop(far);
    }
}
