//! The built-in load (`POST /v1/lab/load`) and the traffic read beside it
//! (`GET /v1/lab/traffic`), against a real `latency-lab serve`: the load
//! sends what it says it offers, its requests share the probes' slots and
//! queue for them, every admission is read back after a cursor, a new load
//! replaces the running one, DELETE ends it; bad values, foreign pages and
//! public instances are refused.

mod common;

use std::time::Duration;

use common::{call, start};
use serde_json::{Value, json};

const MODEL: &str = "profile:ttft=20,tpot=1,prefill=0.01,tokens=30,slots=2,cache=on";

fn load(addr: &str, body: &Value) -> (u16, Value) {
    let (status, text) = call(
        addr,
        "POST",
        "/v1/lab/load",
        &[("content-type", "application/json")],
        body.to_string().as_bytes(),
    );
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn get(addr: &str, path: &str) -> Value {
    let (status, text) = call(addr, "GET", path, &[], b"");
    assert_eq!(status, 200, "{path}: {text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_load_sends_what_it_offers_and_its_requests_queue_for_the_shared_slots() {
    let srv = start(&[]);
    let cursor = get(&srv.addr, "/v1/lab/traffic")["next"].as_u64().unwrap();
    let (status, started) = load(&srv.addr, &json!({"model": MODEL, "speed": 2.0, "duration_s": 3.0}));
    assert_eq!(status, 200, "{started}");
    let requests = started["requests"].as_u64().unwrap();
    assert!((started["offered_per_s"].as_f64().unwrap() - requests as f64 / 3.0).abs() < 1e-9);
    assert!(requests >= 10, "{started}");
    std::thread::sleep(Duration::from_millis(3500));
    let status = get(&srv.addr, "/v1/lab/load");
    assert_eq!(status["running"], false, "sending ended after its duration: {status}");
    assert_eq!(status["sent"].as_u64(), Some(requests), "{status}");
    let traffic = get(&srv.addr, &format!("/v1/lab/traffic?after={cursor}"));
    let queued: Vec<f64> =
        traffic["queued_ms"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(queued.len() >= 2, "admissions {queued:?}");
    assert!(
        queued.iter().filter(|q| **q > 50.0).count() >= 2,
        "two slots against {requests} requests: {queued:?}"
    );
    assert_eq!(traffic["next"].as_u64(), Some(cursor + queued.len() as u64));
    let (s, _) = call(&srv.addr, "DELETE", "/v1/lab/load", &[], b"");
    assert_eq!(s, 200);
    assert_eq!(get(&srv.addr, "/v1/lab/load")["running"], false);
}

#[test]
fn a_new_load_replaces_the_running_one_and_the_sweep_plays_on_through_the_trace() {
    let srv = start(&[]);
    let (_, first) = load(&srv.addr, &json!({"model": MODEL, "speed": 1.0, "duration_s": 60.0}));
    let (_, second) =
        load(&srv.addr, &json!({"model": MODEL, "speed": 1.0, "duration_s": 4.0, "from_s": 4.0}));
    assert!(first["requests"].as_u64() > second["requests"].as_u64());
    // The sample's first 4 s are its burst; the next 4 s are calmer.
    let (_, head) = load(&srv.addr, &json!({"model": MODEL, "speed": 1.0, "duration_s": 4.0}));
    assert!(head["requests"].as_u64() > second["requests"].as_u64(), "{head} vs {second}");
    let status = get(&srv.addr, "/v1/lab/load");
    assert_eq!(status["running"], true);
    assert_eq!(status["offered_per_s"], head["offered_per_s"], "the newest load is the one running");
    let (_, stopped) = call(&srv.addr, "DELETE", "/v1/lab/load", &[], b"");
    assert!(stopped.contains("true"), "{stopped}");
}

#[test]
fn bad_loads_foreign_pages_and_public_instances_are_refused() {
    let srv = start(&[]);
    for (body, says) in [
        (json!({"model": MODEL, "speed": 0, "duration_s": 3}), "speed 0"),
        (json!({"model": MODEL, "speed": 2, "duration_s": 9999}), "duration_s 9999"),
        (json!({"model": "", "speed": 2, "duration_s": 3}), "model"),
        (json!({"model": MODEL, "speed": 2, "duration_s": 3, "from_s": -1}), "from_s -1"),
        (json!({"speed": 2}), "expected"),
    ] {
        let (status, reply) = load(&srv.addr, &body);
        assert_eq!(status, 400, "{body}: {reply}");
        assert!(reply["error"]["message"].as_str().unwrap().contains(says), "{reply}");
    }
    let body = json!({"model": MODEL, "speed": 1, "duration_s": 3}).to_string();
    for h in [("origin", "https://evil.example"), ("sec-fetch-site", "cross-site")] {
        let (status, reply) = call(&srv.addr, "POST", "/v1/lab/load", &[h], body.as_bytes());
        assert_eq!(status, 403, "{h:?}: {reply}");
    }
    let (status, _) = call(&srv.addr, "GET", "/v1/lab/traffic", &[("origin", "https://evil.example")], b"");
    assert_eq!(status, 403);
    assert_eq!(get(&srv.addr, "/v1/lab/load")["running"], false, "nothing started");
    let public = start(&["--public-url", "https://lab.example.org/"]);
    for (method, path) in [("POST", "/v1/lab/load"), ("GET", "/v1/lab/traffic"), ("DELETE", "/v1/lab/load")] {
        let (status, reply) = call(&public.addr, method, path, &[], body.as_bytes());
        assert_eq!(status, 403, "{method} {path}: {reply}");
        assert!(reply.contains("latency-lab run"), "{reply}");
    }
}
