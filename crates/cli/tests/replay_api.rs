//! The replay endpoint over real sockets: model list, streamed and plain
//! completions, timing against the server's own ground truth, faults, CORS.

use std::io::Read;
use std::time::{Duration, Instant};

use lab_core::trace::FailureKind;
use serde_json::Value;

mod common;

use common::*;

#[test]
fn models_list_profiles_and_traces() {
    let srv = start(&[]);
    let (head, s, rest) = request(&srv.addr, "GET", "/v1/models", &[], "");
    assert!(head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"), "{head}");
    let body: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
    let ids: Vec<&str> = body["data"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"profile:fast-start") && ids.contains(&"trace:hand"), "{ids:?}");
}

#[test]
fn streams_a_profile_on_time_and_reports_ground_truth() {
    let srv = start(&[]);
    let (head, t) = stream(&srv.addr, "profile:ttft=100,tpot=20,tokens=30,jitter=constant", &[]);
    assert_eq!(t.failure, None);
    assert_eq!(t.chunks.len(), 30);
    assert_eq!(t.usage.unwrap().completion_tokens, Some(30));
    assert!(header(&head, "content-type").unwrap().starts_with("text/event-stream"));
    // Never before due (this clock starts before the server's), never far after.
    let arrived: Vec<f64> = t.chunks.iter().map(|c| c.arrived_ms - t.sent_ms).collect();
    for (k, a) in arrived.iter().enumerate() {
        let due = 100.0 + 20.0 * k as f64;
        assert!(*a >= due && *a < due + LATE_MS, "token {k} arrived at {a} ms, due {due}");
    }
    let id = header(&head, "x-latency-lab-request-id").unwrap().to_string();
    let (_, s, rest) = request(&srv.addr, "GET", &format!("/v1/lab/requests/{id}"), &[], "");
    let truth: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
    assert_eq!(truth["complete"], true);
    let chunks = truth["chunks"].as_array().unwrap();
    assert_eq!(chunks.len(), 30);
    for c in chunks {
        let (due, sent) = (c["due_ms"].as_f64().unwrap(), c["sent_ms"].as_f64().unwrap());
        assert!(sent >= due, "sent {sent} before due {due}");
        assert!(sent - due < LATE_MS, "sent {sent} for due {due}");
    }
}

#[test]
fn replays_a_recorded_request_and_answers_without_stream() {
    let srv = start(&[]);
    let (_, t) = stream(&srv.addr, "trace:hand#1", &[]);
    assert_eq!(t.text(), "A burst of four.");
    // Recorded at 200, 240 and 260 ms after the request was sent.
    for (c, due) in t.chunks.iter().zip([200.0, 240.0, 260.0]) {
        let at = c.arrived_ms - t.sent_ms;
        assert!(at >= due && at < due + LATE_MS, "recorded at {due} ms, replayed at {at} ms");
    }
    let t0 = Instant::now();
    let (head, s, rest) = request(
        &srv.addr,
        "POST",
        "/v1/chat/completions",
        &[],
        &chat("profile:ttft=50,tpot=5,tokens=10", false),
    );
    let body: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(90), "answered after the last token's due time");
    assert!(head.contains("200"));
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["usage"]["completion_tokens"], 10);
}

#[test]
fn errors_and_faults() {
    let srv = start(&[]);
    let (head, s, rest) = request(&srv.addr, "POST", "/v1/chat/completions", &[], &chat("gpt-9", true));
    assert!(head.contains(" 404 "), "{head}");
    let body: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("not served here"));
    let (head, _, _) = request(&srv.addr, "POST", "/v1/chat/completions", &[], "{not json");
    assert!(head.contains(" 400 "), "{head}");
    let (head, _) =
        stream(&srv.addr, "profile:fast-start", &[("X-Latency-Lab-Fault", "status=429,retry_after=3")]);
    assert!(head.contains(" 429 ") && header(&head, "retry-after") == Some("3"), "{head}");
    let (_, t) = stream(&srv.addr, "profile:ttft=10,tpot=2,tokens=20|drop_after=7", &[]);
    assert_eq!((t.chunks.len(), t.failure.unwrap().kind), (7, FailureKind::Truncated));
    let (_, t) = stream(&srv.addr, "profile:ttft=10,tpot=2,tokens=20|garbage_after=3", &[]);
    assert_eq!(t.failure.unwrap().kind, FailureKind::Malformed);
}

#[test]
fn fallback_profile_and_default_fault_apply_to_any_model() {
    let srv = start(&["--profile", "ttft=10,tpot=1,tokens=5", "--fault", "drop_after=2"]);
    let (_, t) = stream(&srv.addr, "gpt-4o", &[]);
    assert_eq!(t.chunks.len(), 2);
    assert_eq!(t.failure.unwrap().kind, FailureKind::Truncated);
}

#[test]
fn cors_preflight_allows_any_origin_and_the_auth_header() {
    let srv = start(&[]);
    let (head, _, _) = request(
        &srv.addr,
        "OPTIONS",
        "/v1/chat/completions",
        &[
            ("Origin", "http://chat.example"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization,content-type"),
        ],
        "",
    );
    assert_eq!(header(&head, "access-control-allow-origin"), Some("*"));
    assert!(header(&head, "access-control-allow-headers").unwrap().contains("authorization"), "{head}");
}

#[test]
fn a_client_leaving_mid_stream_is_recorded_and_the_server_goes_on() {
    let srv = start(&[]);
    let (head, mut s, _) = request(
        &srv.addr,
        "POST",
        "/v1/chat/completions",
        &[],
        &chat("profile:ttft=10,tpot=20,tokens=200,jitter=constant", true),
    );
    let id = header(&head, "x-latency-lab-request-id").unwrap().to_string();
    let mut chunk = [0u8; 4096];
    let _ = s.read(&mut chunk).unwrap();
    drop(s);
    // The server notices at its next write (every 20 ms); give it several.
    let truth = (0..50)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(40));
            let (_, s, rest) = request(&srv.addr, "GET", &format!("/v1/lab/requests/{id}"), &[], "");
            let truth: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
            (truth["client_disconnected"] == true).then_some(truth)
        })
        .expect("the server never recorded the client leaving");
    assert_eq!(truth["complete"], false);
    assert!(truth["chunks"].as_array().unwrap().len() < 200);
    // Still serving.
    let (_, t) = stream(&srv.addr, "profile:ttft=10,tpot=2,tokens=5,jitter=constant", &[]);
    assert_eq!(t.failure, None);
    assert_eq!(t.chunks.len(), 5);
}

#[test]
fn concurrent_streams_each_keep_their_own_schedule() {
    let srv = start(&[]);
    // Different paces at once on the single serving thread.
    let handles: Vec<_> = [5.0, 10.0, 20.0, 40.0]
        .into_iter()
        .flat_map(|tpot| std::iter::repeat_n(tpot, 8))
        .map(|tpot| {
            let addr = srv.addr.clone();
            std::thread::spawn(move || {
                let model = format!("profile:ttft=50,tpot={tpot},tokens=25,jitter=constant");
                (tpot, stream(&addr, &model, &[]))
            })
        })
        .collect();
    for h in handles {
        let (tpot, (head, t)) = h.join().unwrap();
        assert_eq!(t.failure, None);
        assert_eq!(t.chunks.len(), 25);
        let id = header(&head, "x-latency-lab-request-id").unwrap().to_string();
        let (_, s, rest) = request(&srv.addr, "GET", &format!("/v1/lab/requests/{id}"), &[], "");
        let truth: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
        let chunks = truth["chunks"].as_array().unwrap();
        for (k, c) in chunks.iter().enumerate() {
            let (due, sent) = (c["due_ms"].as_f64().unwrap(), c["sent_ms"].as_f64().unwrap());
            assert!((due - (50.0 + k as f64 * tpot)).abs() < 1e-6, "due {due} for token {k} at {tpot} ms");
            assert!(
                sent >= due && sent - due < LATE_MS,
                "token {k} at {tpot} ms/token: sent {sent}, due {due}"
            );
        }
    }
}
