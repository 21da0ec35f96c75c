//! The built-in load (`POST /v1/lab/load`) and the traffic read beside it
//! (`GET /v1/lab/traffic`), against a real `latency-lab serve`: the load
//! sends what it says it offers, its requests share the probes' slots and
//! queue for them, every admission is read back after a cursor, a new load
//! replaces the running one, DELETE ends it (every request in flight of the
//! sweep, answering once they ended) and the sweep's requests come back as
//! a trace with their failures; bad values, foreign pages and
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

/// Issue 44: the speed sweep played on through the sample, so 1.5× offered
/// 4.1 requests/s against 1×'s 5.8. Each window from the sample's start,
/// continuing the sweep: offered grows with speed, one sweep of three loads.
#[test]
fn a_sweep_from_the_samples_start_offers_more_at_each_speed() {
    let srv = start(&[]);
    let mut offered = Vec::new();
    for (k, speed) in [1.0, 1.5, 2.0].into_iter().enumerate() {
        let body =
            json!({"model": MODEL, "speed": speed, "duration_s": 4.0, "from_s": 0.0, "continues": k > 0});
        let (status, started) = load(&srv.addr, &body);
        assert_eq!(status, 200, "{started}");
        assert_eq!(started["load"].as_u64(), Some(k as u64 + 1), "the same sweep: {started}");
        offered.push(started["offered_per_s"].as_f64().unwrap());
    }
    assert!(offered.windows(2).all(|w| w[1] >= w[0]) && offered[2] > offered[0], "offered {offered:?}");
    let (_, stopped) = call(&srv.addr, "DELETE", "/v1/lab/load", &[], b"");
    let loads: Value = serde_json::from_str(&stopped).unwrap();
    assert_eq!(loads["loads"].as_array().map(Vec::len), Some(3), "{stopped}");
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

#[test]
fn the_sweeps_requests_come_back_as_a_trace_and_delete_ends_every_one_in_flight() {
    let srv = start(&[]);
    // A load that fails: no such model. Each request is kept with why.
    let (status, started) =
        load(&srv.addr, &json!({"model": "no-such-model", "speed": 2.0, "duration_s": 1.0}));
    assert_eq!(status, 200, "{started}");
    std::thread::sleep(Duration::from_millis(1500));
    let failed = get(&srv.addr, "/v1/lab/load/requests");
    let reqs = failed["requests"].as_array().unwrap();
    assert_eq!(reqs.len() as u64, started["requests"].as_u64().unwrap(), "{failed}");
    assert!(failed["meta"]["clock_epoch_ms"].as_f64().unwrap() > 1.7e12);
    for r in reqs {
        assert_eq!(r["failure"]["kind"], "http", "{r}");
        assert!(r["failure"]["message"].as_str().unwrap().contains("no-such-model"), "{r}");
        assert!(r["scheduled_ms"].as_f64().unwrap() <= r["sent_ms"].as_f64().unwrap() + 1.0, "{r}");
    }
    // DELETE says what each load of the sweep did, by core's definitions.
    let (_, ended) = call(&srv.addr, "DELETE", "/v1/lab/load", &[], b"");
    let ended: Value = serde_json::from_str(&ended).unwrap();
    let own = &ended["loads"][0];
    assert_eq!(
        (own["label"].as_str(), own["failed"].as_u64()),
        (Some("load 1"), Some(reqs.len() as u64)),
        "{ended}"
    );
    let why = own["load_failures"][0].as_str().unwrap();
    assert!(why.starts_with(&format!("{}× HTTP 4", reqs.len())) && why.contains("no-such-model"), "{why}");
    assert!(own["load_ttft_ms"].is_null(), "no TTFT: {own}");
    // A sweep from the sample's start begins a new record: two windows,
    // long answers, then DELETE ends the requests of both at once.
    // Each answer has its row's length (tens of tokens), 200 ms apart.
    let slow = "profile:ttft=20,tpot=200";
    let (_, first) = load(&srv.addr, &json!({"model": slow, "speed": 1.0, "duration_s": 1.0}));
    std::thread::sleep(Duration::from_millis(1000));
    let (_, second) =
        load(&srv.addr, &json!({"model": slow, "speed": 1.0, "duration_s": 1.0, "from_s": 1.0}));
    std::thread::sleep(Duration::from_millis(1200));
    let t = std::time::Instant::now();
    let (s, stopped) = call(&srv.addr, "DELETE", "/v1/lab/load", &[], b"");
    assert_eq!(s, 200);
    assert!(t.elapsed() < Duration::from_millis(1900), "DELETE took {:?}", t.elapsed());
    assert!(stopped.contains("\"in_flight\":0"), "{stopped}");
    let stopped: Value = serde_json::from_str(&stopped).unwrap();
    assert_eq!(second["load"], 2, "{second}");
    for (k, started) in [(1, &first), (2, &second)] {
        let own = &stopped["loads"][k - 1];
        assert_eq!(own["label"], format!("load {k}"), "{stopped}");
        assert_eq!(own["failed"], 0, "ended by DELETE is not failed: {own}");
        let ttft = own["load_ttft_ms"].as_array().cloned().unwrap_or_default(); // none when all were ended
        assert!(ttft.len() as u64 <= started["requests"].as_u64().unwrap(), "{own}");
        assert!(ttft.iter().all(|t| t.as_f64().unwrap() >= 20.0), "{own}");
    }
    let sweep = get(&srv.addr, "/v1/lab/load/requests");
    let reqs = sweep["requests"].as_array().unwrap();
    let sent = first["requests"].as_u64().unwrap() + second["requests"].as_u64().unwrap();
    assert_eq!(reqs.len() as u64, sent, "both windows' requests, none of the failed load's");
    let due: Vec<f64> = reqs.iter().map(|r| r["scheduled_ms"].as_f64().unwrap()).collect();
    assert!(due.windows(2).all(|w| w[0] <= w[1]), "in the order due: {due:?}");
    assert!(due.last().unwrap() > &1000.0, "the second window is on the same clock: {due:?}");
    let aborted = reqs.iter().filter(|r| r["failure"]["kind"] == "aborted").count();
    assert!(
        aborted * 2 > reqs.len(),
        "most were still streaming: {aborted} of {} ended by DELETE",
        reqs.len()
    );
    for r in reqs {
        assert!(r["failure"].is_null() || r["failure"]["kind"] == "aborted", "{r}");
        let chunks = r["chunks"].as_array().unwrap();
        assert_eq!(chunks.len(), 1, "the first chunk only: {r}");
        assert_eq!(chunks[0]["text"], "", "no text kept");
        assert!(r["group"] == "load 1" || r["group"] == "load 2", "{r}");
    }
}
