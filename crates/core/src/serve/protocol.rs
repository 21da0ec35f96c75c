//! The replay endpoint's own additions to the OpenAI API, named once for
//! the server and the app:
//!
//! - Every response of `latency-lab serve` carries [`REQUEST_ID_HEADER`];
//!   `GET /v1/lab/requests/{id}` ([`ground_truth_url`]) then returns the
//!   server's record of when it sent each chunk (read by
//!   [`crate::measure::groundtruth::parse_server_timing`]).
//! - A refusal of the lab's own routes (study server, field collector,
//!   built-in load) is `{"error": "…"}`; [`refusal_message`] reads it.
//! - [`PROFILE_HEADER`] names the source to play, overriding the model
//!   name; [`FAULT_HEADER`] adds faults ([`super::fault`]).

/// Response header carrying the ground-truth id.
pub const REQUEST_ID_HEADER: &str = "x-latency-lab-request-id";
/// Request header naming the source to play, overriding the model name.
pub const PROFILE_HEADER: &str = "x-latency-lab-profile";
/// Request header adding faults to a request.
pub const FAULT_HEADER: &str = "x-latency-lab-fault";
/// Path of the ground-truth records, before the id.
pub const GROUND_TRUTH_PATH: &str = "/v1/lab/requests/";

/// The root of the server answering at `completion_url`: what comes before
/// its wire's route (`/v1/…`, Gemini's `/v1beta/…`, Ollama's `/api/…`).
fn server_root(completion_url: &str) -> &str {
    ["/v1/", "/v1beta/", "/api/chat", "/api/generate"]
        .iter()
        .find_map(|m| completion_url.rsplit_once(m).map(|(b, _)| b))
        .unwrap_or(completion_url)
}

/// The ground-truth record of request `id` answered at `completion_url`
/// (`…/v1/chat/completions`, or any wire's route): same origin and prefix,
/// the id percent-encoded.
pub fn ground_truth_url(completion_url: &str, id: &str) -> String {
    let base = server_root(completion_url);
    let mut out = format!("{}{GROUND_TRUTH_PATH}", base.trim_end_matches('/'));
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The built-in load of `latency-lab serve` (POST starts, GET reads, DELETE stops).
pub const LOAD_PATH: &str = "/v1/lab/load";
/// The built-in load's own requests since its sweep began, as a trace.
pub const LOAD_REQUESTS_PATH: &str = "/v1/lab/load/requests";
/// What `latency-lab serve`'s replay endpoint admitted (`?after=N`).
pub const TRAFFIC_PATH: &str = "/v1/lab/traffic";

/// Route `path` (one of this module's) of the server answering at
/// `completion_url`: same origin and prefix.
pub fn lab_url(completion_url: &str, path: &str) -> String {
    let base = server_root(completion_url);
    format!("{}{path}", base.trim_end_matches('/'))
}

/// The sentence of a refusal body `{"error": "…"}`, or the start of a body
/// that is not one (a proxy's page, a crash).
pub fn refusal_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| crate::stream::openai::snippet(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_and_traffic_live_beside_the_completions() {
        assert_eq!(
            lab_url("http://127.0.0.1:8000/v1/chat/completions", LOAD_PATH),
            "http://127.0.0.1:8000/v1/lab/load"
        );
        assert_eq!(
            lab_url("https://h.example/p/v1/completions", TRAFFIC_PATH),
            "https://h.example/p/v1/lab/traffic"
        );
    }

    #[test]
    fn ground_truth_lives_beside_the_completions() {
        assert_eq!(
            ground_truth_url("http://127.0.0.1:8000/v1/chat/completions", "lab-7"),
            "http://127.0.0.1:8000/v1/lab/requests/lab-7"
        );
        assert_eq!(
            ground_truth_url("https://h.example/proxy/v1/completions", "a b/c"),
            "https://h.example/proxy/v1/lab/requests/a%20b%2Fc"
        );
        // Every wire's route, Gemini's and Ollama's included.
        for url in [
            "http://h:1/v1/messages",
            "http://h:1/v1beta/models/profile%3Afast-start:streamGenerateContent?alt=sse",
            "http://h:1/api/chat",
            "http://h:1/v1/lab/ui-stream?model=x",
        ] {
            assert_eq!(ground_truth_url(url, "lab-1"), "http://h:1/v1/lab/requests/lab-1", "{url}");
        }
    }

    #[test]
    fn a_refusal_says_its_sentence_and_anything_else_its_start() {
        assert_eq!(refusal_message(r#"{"error": "unknown ingest key"}"#), "unknown ingest key");
        assert_eq!(refusal_message("<html>502 Bad Gateway</html>"), "<html>502 Bad Gateway</html>");
        assert_eq!(refusal_message(r#"{"error": {"message": "x"}}"#), r#"{"error": {"message": "x"}}"#);
        assert!(refusal_message(&"x".repeat(500)).ends_with('…'));
    }
}
