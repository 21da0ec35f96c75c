//! What the importer shows: each file given to it and where it stands, and
//! each run the worker holds (its digest).

use lab_core::import::digest::RunDigest;
use lab_core::import::service::RunKey;

/// Where a file is.
#[derive(Debug, Clone, PartialEq)]
pub enum FileStatus {
    /// Queued or being worked on: phase and 0–1 progress.
    Working(String, f64),
    /// Imported: runs found and the worker's time (ms).
    Done(usize, f64),
    /// A workload summarised: its requests, the worker's time (ms) and
    /// memory when done (bytes).
    Summarized(u64, f64, f64),
    /// A summary waiting for its per-request file.
    Waiting(String),
    /// Could not be imported.
    Failed(String),
}

/// One file given to the importer.
#[derive(Debug, Clone, PartialEq)]
pub struct FileJob {
    /// Number of this file in the session.
    pub job: u32,
    /// File name.
    pub name: String,
    /// Size in bytes.
    pub size: f64,
    /// Status.
    pub status: FileStatus,
    /// When the page handed it over (ms, page clock).
    pub started_ms: f64,
    /// When the digest reached the page (ms, page clock).
    pub finished_ms: Option<f64>,
}

/// One run the worker holds.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedRun {
    /// The worker's key.
    pub key: RunKey,
    /// File it came from.
    pub file: String,
    /// What the page shows.
    pub digest: RunDigest,
}

/// One workload file summarised by the worker.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedWorkload {
    /// File name.
    pub file: String,
    /// What it holds.
    pub digest: lab_core::workload::summary::Digest,
}
