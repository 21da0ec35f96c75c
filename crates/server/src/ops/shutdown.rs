//! Graceful shutdown on SIGTERM (what systemd, Docker and Kubernetes send)
//! or Ctrl-C:
//!
//! 1. every serving thread stops accepting connections;
//! 2. requests in flight finish: a participant's answer being written is
//!    committed and acknowledged; idle keep-alive connections close;
//! 3. replay streams end at once with a final event saying the server is
//!    stopping ([`FINAL_EVENT`]), so clients see why, not a cut;
//! 4. after [`GRACE`], whatever is still open is closed;
//! 5. the study database is closed (SQLite checkpoints its log).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Longest wait for requests in flight after the signal.
pub const GRACE: Duration = Duration::from_secs(10);

/// The last event of a replay stream cut by shutdown: an OpenAI-style
/// error, as servers send mid-stream.
pub const FINAL_EVENT: &str = "data: {\"error\":{\"message\":\"latency-lab serve is shutting down; this stream ends here\",\"type\":\"server_error\",\"code\":503}}\n\n";

/// Resolves on SIGTERM or Ctrl-C (SIGINT), then cancels `token`.
pub async fn on_signal(token: CancellationToken) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    tracing::warn!(
        "stopping: no new connections; finishing requests in flight (at most {} s)",
        GRACE.as_secs()
    );
    token.cancel();
}
