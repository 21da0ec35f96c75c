//! The body of a streamed replay: a `Stream` the HTTP connection polls
//! itself. Each event waits for its deadline on the [`Pacer`], whose firing
//! wakes the connection task directly; the event's bytes are then handed to
//! the HTTP writer and its send time recorded as ground truth.
//!
//! There is no task or channel between the pacer and the socket: at 1,000
//! concurrent streams (50,000 chunks/s) every task wake-up per chunk costs
//! CPU time that shows up as lateness.
//!
//! Injected raw bytes (`lab_core::serve::fault`) go out in the same write, just
//! before the event they precede; an aborted plan ends with a connection
//! reset instead of a clean end. A body dropped before its end (the client
//! went away) marks the record `client_disconnected`.

use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use lab_core::serve::fault::FaultyPlan;
use lab_core::serve::plan::PlannedEvent;
use prometheus_client::metrics::histogram::Histogram;
use tokio_stream::Stream;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::ops::shutdown::FINAL_EVENT;
use crate::ops::streams::StreamGuard;
use crate::replay::pacer::{Pacer, Wait};
use crate::replay::truth::{Record, SentChunk, lock};

/// Pause before an injected connection reset, so the last bytes leave first.
pub const ABORT_GRACE: Duration = Duration::from_millis(20);

/// Where the emission is.
enum Phase {
    /// Sending the plan's events.
    Events,
    /// Events done: send raw bytes planned after the last event.
    Trailing,
    /// Waiting to reset the connection.
    Abort(Pin<Box<tokio::time::Sleep>>),
    /// Ended (completely, or by the injected reset).
    Finished,
}

/// The body stream of one streamed request.
pub struct Emission {
    pacer: Pacer,
    record: Record,
    arrival: Instant,
    events: std::vec::IntoIter<PlannedEvent>,
    count: usize,
    next_index: usize,
    raw: Vec<(usize, Vec<u8>)>,
    abort: bool,
    waiting: Option<(Wait, PlannedEvent)>,
    phase: Phase,
    /// A decode slot ([`lab_core::serve::capacity`]), freed after the last
    /// event or when the client goes away.
    slot: Option<tokio::sync::OwnedSemaphorePermit>,
    /// The client's share of open responses ([`crate::ops::streams`]).
    guard: Option<StreamGuard>,
    /// Where each chunk's lateness goes.
    lateness: Option<Histogram>,
    /// Resolves on shutdown: the stream then ends with [`FINAL_EVENT`].
    stop: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
}

impl Emission {
    /// The emission of `faulty`, timed from `arrival`, recorded in `record`.
    pub fn new(pacer: Pacer, record: Record, arrival: Instant, faulty: FaultyPlan) -> Self {
        let FaultyPlan { plan, raw, abort_connection } = faulty;
        Self {
            pacer,
            record,
            arrival,
            count: plan.events.len(),
            events: plan.events.into_iter(),
            next_index: 0,
            raw,
            abort: abort_connection,
            waiting: None,
            phase: Phase::Events,
            slot: None,
            guard: None,
            lateness: None,
            stop: None,
        }
    }

    /// Holds `slot` until the last event is out, and `guard` until the end.
    pub fn holding(mut self, slot: Option<tokio::sync::OwnedSemaphorePermit>, guard: StreamGuard) -> Self {
        self.slot = slot;
        self.guard = Some(guard);
        self
    }

    /// Records each chunk's lateness in `lateness`.
    pub fn measured(mut self, lateness: Option<Histogram>) -> Self {
        self.lateness = lateness;
        self
    }

    /// Ends with [`FINAL_EVENT`] once `token` is cancelled.
    pub fn stopping_on(mut self, token: &CancellationToken) -> Self {
        self.stop = Some(Box::pin(token.clone().cancelled_owned()));
        self
    }

    /// Raw bytes planned before event `i` (or after the last one), then `data`.
    fn with_raw(&self, at: impl Fn(usize) -> bool, data: String) -> Bytes {
        let mut before = self.raw.iter().filter(|(i, _)| at(*i)).peekable();
        if before.peek().is_none() {
            return Bytes::from(data);
        }
        let mut out: Vec<u8> = before.flat_map(|(_, b)| b.iter().copied()).collect();
        out.extend_from_slice(data.as_bytes());
        Bytes::from(out)
    }
}

impl Stream for Emission {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(stop) = this.stop.as_mut()
            && !matches!(this.phase, Phase::Finished)
            && stop.as_mut().poll(cx).is_ready()
        {
            this.stop = None;
            this.waiting = None;
            this.slot = None;
            this.phase = Phase::Finished;
            lock(&this.record).cut_by_shutdown = true;
            return Poll::Ready(Some(Ok(Bytes::from_static(FINAL_EVENT.as_bytes()))));
        }
        loop {
            match &mut this.phase {
                Phase::Events => {
                    if this.waiting.is_none() {
                        let Some(e) = this.events.next() else {
                            this.slot = None;
                            this.phase = Phase::Trailing;
                            continue;
                        };
                        let due = this.arrival + Duration::from_secs_f64(e.at_ms / 1000.0);
                        this.waiting = Some((this.pacer.wait(due), e));
                    }
                    if let Some((wait, _)) = this.waiting.as_mut() {
                        ready!(Pin::new(wait).poll(cx));
                    }
                    let Some((_, e)) = this.waiting.take() else { continue };
                    let i = this.next_index;
                    this.next_index += 1;
                    let bytes = this.with_raw(|at| at == i, e.data);
                    if e.tokens > 0 {
                        let sent_ms = this.arrival.elapsed().as_secs_f64() * 1000.0;
                        if let Some(h) = &this.lateness {
                            h.observe(((sent_ms - e.at_ms) / 1000.0).max(0.0));
                        }
                        lock(&this.record).chunks.push(SentChunk {
                            due_ms: e.at_ms,
                            sent_ms,
                            tokens: e.tokens,
                        });
                    }
                    return Poll::Ready(Some(Ok(bytes)));
                }
                Phase::Trailing => {
                    let count = this.count;
                    let rest = this.with_raw(|at| at >= count, String::new());
                    if this.abort {
                        this.phase = Phase::Abort(Box::pin(tokio::time::sleep(ABORT_GRACE)));
                    } else {
                        lock(&this.record).complete = true;
                        this.phase = Phase::Finished;
                    }
                    if !rest.is_empty() {
                        return Poll::Ready(Some(Ok(rest)));
                    }
                }
                Phase::Abort(sleep) => {
                    ready!(sleep.as_mut().poll(cx));
                    this.phase = Phase::Finished;
                    let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "injected drop");
                    return Poll::Ready(Some(Err(reset)));
                }
                Phase::Finished => return Poll::Ready(None),
            }
        }
    }
}

impl Drop for Emission {
    fn drop(&mut self) {
        if !matches!(self.phase, Phase::Finished) {
            lock(&self.record).client_disconnected = true;
        }
    }
}
