//! Ctrl-C during a run. The first stops sending: no request due after it
//! leaves, those in flight finish, the server is asked for its records and
//! the trace is written. The second ends everything still going: each
//! request in flight is kept as far as it arrived (failed as aborted),
//! the server's records are no longer asked for, and the trace is written
//! with what the run has. Both say so on stderr and in the trace's notes,
//! so a stopped run is not read as the whole workload.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

/// What the first Ctrl-C says.
pub const FIRST: &str = "latency-lab run: stopped sending; waiting for the requests in flight and the \
                         server's records (Ctrl-C again ends them and writes the trace)";

/// What the second Ctrl-C says.
pub const SECOND: &str = "latency-lab run: ending the requests in flight now; the trace keeps what \
                          arrived";

/// The run's two stops, cancelled by Ctrl-C.
#[derive(Clone)]
pub struct Stops {
    /// The first Ctrl-C: send nothing more.
    pub sending: CancellationToken,
    /// The second: end what is in flight and write the trace.
    pub abort: CancellationToken,
    /// The schedule was cut short by the first.
    cut: Arc<AtomicBool>,
}

impl Stops {
    /// Listens for Ctrl-C on the current runtime.
    pub fn on_ctrl_c() -> Stops {
        let stops =
            Stops { sending: CancellationToken::new(), abort: CancellationToken::new(), cut: Arc::default() };
        let s = stops.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            s.sending.cancel();
            eprintln!("{FIRST}");
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            s.abort.cancel();
            eprintln!("{SECOND}");
        });
        stops
    }

    /// The schedule ended: was it because of Ctrl-C (rows left unsent)?
    pub fn schedule_ended(&self, all_sent: bool) {
        self.cut.store(!all_sent && self.sending.is_cancelled(), Ordering::Relaxed);
    }

    /// What the trace's notes say about the stops, `sent` requests sent.
    pub fn notes(&self, sent: usize) -> Vec<String> {
        let mut notes = Vec::new();
        if self.cut.load(Ordering::Relaxed) {
            notes.push(format!(
                "stopped by Ctrl-C after {sent} requests: the rest of the workload was not sent"
            ));
        }
        if self.abort.is_cancelled() {
            notes.push(
                "a second Ctrl-C ended the run: the requests in flight were kept as far as they had \
                 arrived (failed as aborted), and the server's records not yet asked for are missing"
                    .to_string(),
            );
        }
        notes
    }
}
