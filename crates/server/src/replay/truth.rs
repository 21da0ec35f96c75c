//! Ground truth: what the replay endpoint actually sent, and when, so the
//! lab can compare its client-side measurements with the server's own clock
//! (`GET /v1/lab/requests/{id}`; the id comes in the
//! `X-Latency-Lab-Request-Id` response header).
//!
//! Times are ms after the request arrived at the server. A chunk's `sent_ms`
//! is taken right after its bytes were handed to the HTTP writer.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Serialize;

/// Requests remembered (oldest forgotten first).
pub const CAPACITY: usize = 4096;

/// One text chunk as sent.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SentChunk {
    /// When the plan wanted it out.
    pub due_ms: f64,
    /// When it went out.
    pub sent_ms: f64,
    /// Tokens it carried.
    pub tokens: u32,
}

/// The record of one replayed request.
#[derive(Debug, Clone, Serialize)]
pub struct GroundTruth {
    /// Request id.
    pub id: String,
    /// Model name asked for.
    pub model: String,
    /// What was played (profile spec or recorded request).
    pub source: String,
    /// Prompt tokens counted by the server.
    pub prompt_tokens: u64,
    /// Of those, found in the prefix cache (no prefill).
    pub cached_tokens: u64,
    /// Time spent waiting for a decode slot (ms), when the profile has
    /// `slots` and they were all taken.
    pub queued_ms: f64,
    /// Requests decoding when this one took its slot (itself included).
    pub active_at_admission: u32,
    /// Tokens planned.
    pub completion_tokens: u64,
    /// When headers were due / went out.
    pub headers_due_ms: f64,
    /// When headers went out.
    pub headers_sent_ms: Option<f64>,
    /// Text chunks as sent.
    pub chunks: Vec<SentChunk>,
    /// All events were sent.
    pub complete: bool,
    /// The client went away before the end.
    pub client_disconnected: bool,
    /// The server stopped (SIGTERM) before the end: the stream ended with
    /// a final error event.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut_by_shutdown: bool,
}

/// A live record: the emitter writes to it without touching the store's map.
pub type Record = Arc<Mutex<GroundTruth>>;

/// Locks a record (a poisoned lock still holds a usable record).
pub fn lock(record: &Record) -> MutexGuard<'_, GroundTruth> {
    record.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The store: records by id, oldest forgotten first. Each record has its own
/// lock, so streams recording their chunks never contend with each other.
#[derive(Default)]
pub struct TruthStore {
    inner: Mutex<(HashMap<String, Record>, VecDeque<String>)>,
}

impl TruthStore {
    /// Starts a record and returns its handle.
    pub fn insert(&self, t: GroundTruth) -> Record {
        let id = t.id.clone();
        let record = Arc::new(Mutex::new(t));
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (map, order) = &mut *g;
        order.push_back(id.clone());
        map.insert(id, Arc::clone(&record));
        while order.len() > CAPACITY {
            if let Some(old) = order.pop_front() {
                map.remove(&old);
            }
        }
        record
    }

    /// A copy of a record.
    pub fn get(&self, id: &str) -> Option<GroundTruth> {
        let record = self.inner.lock().unwrap_or_else(PoisonError::into_inner).0.get(id).cloned()?;
        Some(lock(&record).clone())
    }
}
