//! Getting a participant's answers to a study server: what a reply means
//! for an answer waiting in the browser's outbox, and when to try again.
//!
//! - **Delivered**: 200 (kept before: a retry) or 201 (kept now). The
//!   answer leaves the outbox.
//! - **Retry**: no reply (offline, the server down or restarting), 408,
//!   425, 429 or any 5xx. The answer stays queued and is sent again after
//!   [`backoff_ms`] (or the server's `Retry-After`, if longer), and at once
//!   when the browser comes back online.
//! - **Refused**: any other 4xx (the study closed, an answer the design
//!   does not ask for). Sending it again cannot help: it leaves the outbox
//!   and the participant is told why; the answer stays in their session in
//!   this browser, so it can still be downloaded as a file.
//!
//! Answers are idempotent (one per participant, trial and question, see
//! [`super::submit`]), so sending one twice is always safe.

/// First wait before a retry (ms).
pub const FIRST_RETRY_MS: f64 = 1_000.0;
/// Longest wait between retries (ms).
pub const MAX_RETRY_MS: f64 = 30_000.0;

/// What a reply means for a queued answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// Kept by the server.
    Delivered,
    /// Try again later (after at least this many ms, if the server said).
    Retry(Option<f64>),
    /// Refused for good, with the server's reason.
    Refused(String),
}

/// The meaning of `status` (`None`: no reply) with the `Retry-After`
/// header (seconds) and the body's message.
pub fn classify(status: Option<u16>, retry_after: Option<&str>, message: &str) -> Delivery {
    let after = retry_after.and_then(|s| s.trim().parse::<f64>().ok()).filter(|s| s.is_finite() && *s >= 0.0);
    match status {
        Some(200 | 201) => Delivery::Delivered,
        None | Some(408 | 425 | 429 | 500..=599) => Delivery::Retry(after.map(|s| s * 1000.0)),
        Some(code) => {
            Delivery::Refused(if message.is_empty() { format!("HTTP {code}") } else { message.to_string() })
        }
    }
}

/// Wait before retry number `attempt` (0-based): doubling from
/// [`FIRST_RETRY_MS`] up to [`MAX_RETRY_MS`], or the server's wait if
/// longer.
pub fn backoff_ms(attempt: u32, server_ms: Option<f64>) -> f64 {
    let doubled = FIRST_RETRY_MS * 2f64.powi(attempt.min(16) as i32);
    doubled.min(MAX_RETRY_MS).max(server_ms.unwrap_or(0.0).min(10.0 * MAX_RETRY_MS))
}

/// Why answers wait in a participant's outbox, or one was refused: what the
/// participant's bar says beside the count.
#[derive(Debug, Clone, PartialEq)]
pub enum OutboxProblem {
    /// Not kept by the server yet: `waiting` answers, tried again in
    /// `retry_in_ms`. Cleared once the outbox empties.
    Waiting {
        /// Answers waiting.
        waiting: usize,
        /// Wait before the next try (ms).
        retry_in_ms: f64,
    },
    /// The server refused an answer for good (its reason). Stays on screen.
    Refused(String),
    /// This browser could not queue an answer (its storage's reason).
    /// Stays on screen.
    NotQueued(String),
}

impl OutboxProblem {
    /// True when an emptied outbox ends it (a refusal stays said).
    pub fn ends_when_delivered(&self) -> bool {
        matches!(self, Self::Waiting { .. })
    }
}

impl std::fmt::Display for OutboxProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Waiting { waiting, retry_in_ms } => write!(
                f,
                "Not saved to the study server yet ({waiting} waiting: offline or the server is unreachable); trying again in {:.0} s. They are kept in this browser meanwhile.",
                retry_in_ms / 1000.0
            ),
            Self::Refused(why) => write!(
                f,
                "The study server refused an answer: {why}. Your answers stay in this browser; download them at the end."
            ),
            Self::NotQueued(why) => write!(f, "This answer could not be queued for the study server: {why}"),
        }
    }
}

/// Puts queued answers in the order they are sent: by server, participant
/// and trial as a number (`key` gives those of an item). Their storage keys'
/// text would put trial 10 before trial 2, and a threshold study's server
/// takes a participant's trials in order only.
pub fn sort_for_sending<T>(items: &mut [T], key: impl Fn(&T) -> (&str, &str, usize)) {
    items.sort_by(|a, b| key(a).cmp(&key(b)));
}

/// Where a participant's answers are, in the participant's bar: `answered`
/// answers given in this session, `waiting` of them not yet kept by the
/// server. Nothing is called saved before an answer exists.
pub fn status(answered: usize, waiting: usize) -> String {
    match (answered, waiting) {
        (0, 0) => "answers go to the study server as you give them".into(),
        (n, 0) => format!("{n} answer(s) saved to the study server"),
        (_, w) => format!("{w} answer(s) waiting for the study server"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_says_saved_only_once_there_is_an_answer() {
        assert_eq!(status(0, 0), "answers go to the study server as you give them");
        assert_eq!(status(3, 0), "3 answer(s) saved to the study server");
        assert_eq!(status(3, 2), "2 answer(s) waiting for the study server");
    }

    #[test]
    fn replies_mean_delivered_retry_or_refused() {
        assert_eq!(classify(Some(201), None, ""), Delivery::Delivered);
        assert_eq!(classify(Some(200), None, ""), Delivery::Delivered);
        assert_eq!(classify(None, None, ""), Delivery::Retry(None));
        assert_eq!(classify(Some(503), None, ""), Delivery::Retry(None));
        assert_eq!(classify(Some(429), Some("3"), ""), Delivery::Retry(Some(3000.0)));
        assert_eq!(classify(Some(429), Some("soon"), ""), Delivery::Retry(None));
        assert_eq!(classify(Some(410), None, "closed"), Delivery::Refused("closed".into()));
        assert_eq!(classify(Some(400), None, ""), Delivery::Refused("HTTP 400".into()));
    }

    #[test]
    fn a_waiting_outbox_clears_when_delivered_and_a_refusal_stays() {
        let w = OutboxProblem::Waiting { waiting: 3, retry_in_ms: 4000.0 };
        assert!(w.ends_when_delivered());
        assert!(w.to_string().starts_with("Not saved to the study server yet (3 waiting"), "{w}");
        assert!(w.to_string().contains("trying again in 4 s"));
        let r = OutboxProblem::Refused("the study is closed".into());
        assert!(!r.ends_when_delivered());
        assert!(r.to_string().contains("refused an answer: the study is closed."));
    }

    #[test]
    fn answers_go_in_the_order_they_were_given() {
        let mut q = [("s", "p1", 10), ("s", "p1", 2), ("s", "p0", 5), ("a", "p9", 1)];
        sort_for_sending(&mut q, |x| (x.0, x.1, x.2));
        assert_eq!(q, [("a", "p9", 1), ("s", "p0", 5), ("s", "p1", 2), ("s", "p1", 10)]);
    }

    #[test]
    fn waits_double_up_to_a_cap_or_what_the_server_asks() {
        let waits: Vec<f64> = (0..7).map(|a| backoff_ms(a, None)).collect();
        assert_eq!(waits, [1000.0, 2000.0, 4000.0, 8000.0, 16000.0, 30000.0, 30000.0]);
        assert_eq!(backoff_ms(100, None), MAX_RETRY_MS);
        assert_eq!(backoff_ms(0, Some(5000.0)), 5000.0);
        assert_eq!(backoff_ms(3, Some(5000.0)), 8000.0);
        assert_eq!(backoff_ms(0, Some(1e12)), 300_000.0, "a huge Retry-After is capped");
    }
}
