//! Where a live run stands ([`RunPhase`]).

/// Where a run stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RunPhase {
    /// Nothing running.
    Idle,
    /// Requests in flight.
    Running {
        /// Requests finished.
        done: usize,
        /// Requests planned.
        total: usize,
        /// Current concurrency.
        concurrency: u32,
    },
    /// Ended normally.
    Finished,
    /// Stopped by the user.
    Stopped,
}
