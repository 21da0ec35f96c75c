//! The replay endpoint's server model over real sockets: the prefix cache
//! (a repeated long prompt skips its prefill; `cache=off` does not) and the
//! decode slots (requests past `slots` wait in a queue, the rest decode a
//! little slower together), checked against the server's ground truth.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

/// A chat request with a prompt of about `words` pseudo tokens.
fn long_chat(model: &str, words: usize, first: &str) -> String {
    let text: String = (0..words).map(|i| format!(" w{i}")).collect();
    json!({
        "model": model, "stream": true, "stream_options": {"include_usage": true},
        "messages": [{"role": "system", "content": first}, {"role": "user", "content": text}]
    })
    .to_string()
}

fn ttft(t: &lab_core::trace::RequestTrace) -> f64 {
    t.chunks.iter().find(|c| c.tokens > 0).map(|c| c.arrived_ms - t.sent_ms).expect("a token")
}

#[test]
fn a_repeated_prompt_skips_its_prefill_unless_the_cache_is_off() {
    let srv = start(&[]);
    // About 1,000 prompt tokens at 0.4 ms each: 400 ms of prefill.
    let on = "profile:ttft=20,tpot=5,tokens=3,jitter=constant,prefill=0.4";
    let (h1, first) = stream_body(&srv.addr, &long_chat(on, 1000, "Be brief."), &[]);
    let (h2, second) = stream_body(&srv.addr, &long_chat(on, 1000, "Be brief."), &[]);
    assert_eq!((first.failure.clone(), second.failure.clone()), (None, None));
    let (a, b) = (ttft(&first), ttft(&second));
    assert!(a > 400.0, "first TTFT {a} ms has the prefill");
    assert!(b <= a / 2.0, "second TTFT {b} ms against {a} ms");
    let usage = second.usage.unwrap();
    let prompt = usage.prompt_tokens.unwrap();
    assert!(usage.cached_tokens.unwrap() >= prompt - 16, "{usage:?}");
    assert_eq!(first.usage.unwrap().cached_tokens, None, "nothing cached the first time");
    assert_eq!(truth(&srv.addr, &h1)["cached_tokens"], 0);
    assert_eq!(truth(&srv.addr, &h2)["cached_tokens"], usage.cached_tokens.unwrap());
    // A changed first message shares nothing.
    let (_, busted) = stream_body(&srv.addr, &long_chat(on, 1000, "Be thorough."), &[]);
    assert!(ttft(&busted) > 400.0, "changed prefix: {} ms", ttft(&busted));
    // Off: the same prompt twice costs the same.
    let off = "profile:ttft=20,tpot=5,tokens=3,jitter=constant,prefill=0.4,cache=off";
    let (_, x) = stream_body(&srv.addr, &long_chat(off, 1000, "Be brief."), &[]);
    let (_, y) = stream_body(&srv.addr, &long_chat(off, 1000, "Be brief."), &[]);
    let (x, y) = (ttft(&x), ttft(&y));
    assert!(x > 400.0 && y > 400.0 && (x - y).abs() < LATE_MS, "cache off: {x} and {y} ms");
}

#[test]
fn requests_past_the_slots_queue_and_decode_together_slower() {
    let srv = start(&[]);
    let model = "profile:ttft=50,tpot=20,tokens=10,jitter=constant,slots=2";
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let addr = srv.addr.clone();
            std::thread::spawn(move || {
                // Two at once, then two more while both slots are taken.
                std::thread::sleep(Duration::from_millis(if i < 2 { 0 } else { 60 }));
                stream(&addr, model, &[])
            })
        })
        .collect();
    let mut truths: Vec<Value> = Vec::new();
    for h in handles {
        let (head, t) = h.join().unwrap();
        assert_eq!(t.failure, None);
        assert_eq!(t.chunks.iter().map(|c| c.tokens).sum::<u32>(), 10);
        truths.push(truth(&srv.addr, &head));
    }
    let queued: Vec<f64> = truths.iter().map(|t| t["queued_ms"].as_f64().unwrap()).collect();
    // The first two take the slots; the next two wait about one response
    // (50 + 9 × 20 × 1.1 = 248 ms) less the 60 ms they came later.
    assert_eq!(queued.iter().filter(|q| **q == 0.0).count(), 2, "{queued:?}");
    for q in queued.iter().filter(|q| **q > 0.0) {
        assert!(*q > 150.0 && *q < 188.0 + LATE_MS, "queued {q} ms");
    }
    for t in &truths {
        // Two decoding at once: each gap is 20 × 1.1 = 22 ms by plan.
        let due: Vec<f64> =
            t["chunks"].as_array().unwrap().iter().map(|c| c["due_ms"].as_f64().unwrap()).collect();
        let active = t["active_at_admission"].as_u64().unwrap();
        assert!((1..=2).contains(&active), "{t}");
        let gap = (due[9] - due[0]) / 9.0;
        let want = 20.0 * (1.0 + 0.1 * (active as f64 - 1.0));
        assert!((gap - want).abs() < 1e-6, "gap {gap} with {active} active");
        let q = t["queued_ms"].as_f64().unwrap();
        assert!((due[0] - (q + 50.0)).abs() < 1e-6, "first token due after the wait: {due:?}");
    }
}

#[test]
fn the_model_list_shows_the_server_model() {
    let srv = start(&["--profile", "ttft=40,prefill=0.2,slots=8"]);
    let (_, s, rest) = request(&srv.addr, "GET", "/v1/models", &[], "");
    let body: Value = serde_json::from_slice(&read_all(s, rest)).unwrap();
    let lab = &body["latency_lab"];
    assert_eq!(lab["fallback"]["server"]["slots"], 8);
    assert_eq!(lab["fallback"]["server"]["prefix_cache"], true);
    assert_eq!(lab["prefix_cache"]["block_tokens"], 16);
    assert_eq!(lab["capacity"]["slowdown_per_request"], 0.1);
    let first = &body["data"][0];
    assert_eq!(first["latency_lab"]["prefix_cache"], false, "{first}");
}
