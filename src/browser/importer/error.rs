//! Why the import worker could not do what the page asked, in the words
//! people read (one place for the importer's sentences).

/// An importer failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImporterError {
    /// The browser would not start the worker.
    #[error("The import worker could not start ({0}); imports are unavailable in this browser.")]
    NoWorker(String),
    /// A part of the import module (its script or its wasm) did not load:
    /// offline, the server gone, or the request blocked. Retry loads it again.
    #[error("The import module could not be loaded ({0}). Check the connection, then press Retry.")]
    NotLoaded(String),
    /// The worker stopped with an uncaught error.
    #[error("The import worker failed: {0}")]
    Crashed(String),
    /// A message from the worker the page cannot read.
    #[error("The import worker sent a message the page does not understand.")]
    Garbled,
    /// A message could not be posted to the worker.
    #[error("Could not reach the import worker: {0}")]
    Unreachable(String),
    /// The worker could not send a request (its reason, e.g. the run was removed).
    #[error("{0}")]
    Request(String),
    /// SLOs typed by a person that do not parse.
    #[error("SLOs: {0}")]
    Slos(String),
}
