//! The replay endpoint over real sockets: model list, streamed and plain
//! completions, timing against the server's own ground truth, faults, CORS.

use std::io::Read;
use std::time::{Duration, Instant};

use lab_core::measure::prefill::theil_sen;
use lab_core::trace::FailureKind;
use serde_json::Value;

mod common;

use common::*;

/// The server's pace is right: chunks are sent in order, and the line of
/// sent time on due time (Theil–Sen, `lab_core::measure::prefill::theil_sen`:
/// one chunk held up by a busy machine does not tilt it) has slope 1
/// within [`slope_tolerance`] and runs, over the whole
/// schedule, between [`FIT_AHEAD_MS`] ahead and `late_max` behind it
/// ([`SERVER_FIT_LATE_MS`] on the server's own clock; `LATE_MS` for
/// arrivals at this test's client, whose threads share the machine with
/// the server): its lateness a + (b − 1)·due at the first and
/// the last due time. (Every chunk is also checked never to be early; the
/// fitted line may dip a little below, and its intercept alone is an
/// extrapolation to due 0.) A shape, not absolute milliseconds: it holds on
/// a busy machine and fails on a pace 25% slow.
fn check_pace(due_sent: &[(f64, f64)], late_max: f64) -> Result<(f64, f64), String> {
    if let Some(k) = (1..due_sent.len()).find(|&k| due_sent[k].1 < due_sent[k - 1].1) {
        return Err(format!(
            "chunk {k} sent at {} before chunk {} at {}",
            due_sent[k].1,
            k - 1,
            due_sent[k - 1].1
        ));
    }
    let (a, b) = theil_sen(due_sent).ok_or("fewer than three chunks")?;
    let span = due_sent[due_sent.len() - 1].0 - due_sent[0].0;
    let tolerance = slope_tolerance(span, late_max);
    if (b - 1.0).abs() > tolerance {
        return Err(format!(
            "pace slope {b:.4} (sent on due), not 1 ± {:.1}% over {span:.0} ms",
            tolerance * 100.0
        ));
    }
    for due in [due_sent[0].0, due_sent[due_sent.len() - 1].0] {
        let late = a + (b - 1.0) * due;
        if !(-FIT_AHEAD_MS..=late_max).contains(&late) {
            return Err(format!(
                "the fitted pace is {late:.3} ms late at due {due} ms, outside [−{FIT_AHEAD_MS}, {late_max}]"
            ));
        }
    }
    Ok((a, b))
}

/// How far a pace's slope may be from 1: 1%, or on a short schedule the
/// drift the fitted line's bound allows over it (`late_max` over its
/// span), whichever is wider. A slope is a drift per ms: 32 streams at
/// 5 ms/token beside a CPU-bound job drifted 1.1–1.3% over their 120 ms
/// (1.5 ms, the later chunks held up by the streams that arrived with
/// them), within the lateness every other check allows, while a pace 5%
/// slow drifts 6 ms there and 25% slow 30 ms.
fn slope_tolerance(span_ms: f64, late_max: f64) -> f64 {
    if span_ms > 0.0 { (late_max / span_ms).max(0.01) } else { 0.01 }
}

/// How far ahead of the schedule the fitted line of a pace may run (ms):
/// the scatter of a loaded machine around a line whose every point is on
/// time or late.
const FIT_AHEAD_MS: f64 = 1.0;

/// How late the server's median chunk may leave, on the server's own clock
/// (ms). The pacer fires a deadline on an OS sleep of at most 250 µs
/// (`pacer::MAX_BLOCK` in the server) after a wake-up. Measured by this
/// test's own output (`--nocapture`) on this 2-core machine, 2026-12-06:
/// medians 0.06–0.9 ms per request alone or in 32 streams at once; beside
/// `yes > /dev/null` and a compile on the other core, up to 1.9 ms for the
/// 32 streams at 5–10 ms/token. The median is an order statistic: a busy
/// machine has to hold up more than half of a request's chunks by over
/// 3 ms to fail it, while a pacer late by 5 ms (or the 17 ms of a missed
/// frame) fails it on every request.
const SERVER_MEDIAN_LATE_MS: f64 = 3.0;

/// How late the fitted line of the server's pace may run at the first or
/// last due time (ms, server clock). Its ends are extrapolations, and 32
/// requests arriving at once hold up the first chunks most: 2.4 ms was
/// seen at the first due beside a CPU-bound job. A pacer 5 ms late fails it.
const SERVER_FIT_LATE_MS: f64 = 4.0;

/// The pacer is on time by the server's own clock: every chunk's `sent_ms`
/// is at or after its `due_ms`, and the median lateness is within
/// [`SERVER_MEDIAN_LATE_MS`]. Client noise (the test's own threads, the
/// socket) is not in these figures, so the bound can be near the effect.
fn check_on_time(due_sent: &[(f64, f64)]) -> Result<f64, String> {
    if let Some((k, &(due, sent))) = due_sent.iter().enumerate().find(|&(_, &(d, s))| s < d) {
        return Err(format!("chunk {k} sent at {sent} ms, before its due time {due} ms"));
    }
    if due_sent.is_empty() {
        return Err("no chunks".into());
    }
    let p50 = median(&due_sent.iter().map(|&(d, s)| s - d).collect::<Vec<_>>());
    if p50 > SERVER_MEDIAN_LATE_MS {
        return Err(format!(
            "median chunk sent {p50:.3} ms after due on the server's clock (bound {SERVER_MEDIAN_LATE_MS} ms)"
        ));
    }
    Ok(p50)
}

fn due_and_sent(truth: &Value) -> Vec<(f64, f64)> {
    let chunks = truth["chunks"].as_array().unwrap();
    chunks.iter().map(|c| (c["due_ms"].as_f64().unwrap(), c["sent_ms"].as_f64().unwrap())).collect()
}

#[test]
fn the_pace_check_fails_on_a_slow_or_disordered_pace() {
    let exact: Vec<(f64, f64)> =
        (0..30).map(|k| (100.0 + 20.0 * f64::from(k), 100.3 + 20.0 * f64::from(k))).collect();
    assert!(check_pace(&exact, SERVER_FIT_LATE_MS).is_ok());
    let mut held = exact.clone();
    held[0].1 += 20.0;
    assert!(check_pace(&held, SERVER_FIT_LATE_MS).is_ok(), "one chunk held up 20 ms is not a slow pace");
    let slow: Vec<(f64, f64)> = exact.iter().map(|&(d, s)| (d, s * 1.25)).collect();
    assert!(check_pace(&slow, SERVER_FIT_LATE_MS).unwrap_err().contains("slope 1.25"));
    // 32 streams at 5 ms/token: 25 chunks over 120 ms. Beside a CPU-bound
    // job they drifted 1.26% (a real run); 5% slow must still fail.
    let short: Vec<(f64, f64)> =
        (0..25).map(|k| (50.0 + 5.0 * f64::from(k), 50.4 + 5.0 * f64::from(k))).collect();
    let drift = |share: f64| short.iter().map(|&(d, s)| (d, s + (d - 50.0) * share)).collect::<Vec<_>>();
    assert!(
        check_pace(&drift(0.0126), SERVER_FIT_LATE_MS).is_ok(),
        "the drift measured beside a CPU-bound job"
    );
    assert!(check_pace(&drift(0.05), SERVER_FIT_LATE_MS).unwrap_err().contains("slope 1.05"));
    let mut swapped = exact.clone();
    swapped.swap(3, 4);
    let swapped: Vec<(f64, f64)> = exact.iter().zip(&swapped).map(|(&(d, _), &(_, s))| (d, s)).collect();
    assert!(check_pace(&swapped, SERVER_FIT_LATE_MS).unwrap_err().contains("chunk 4 sent"));
    for shift in [5.0, 17.0] {
        let late: Vec<(f64, f64)> = exact.iter().map(|&(d, s)| (d, s + shift)).collect();
        assert!(check_pace(&late, SERVER_FIT_LATE_MS).unwrap_err().contains("late at due"), "{shift} ms");
    }
}

#[test]
fn the_on_time_check_fails_on_a_pacer_5_or_17_ms_late() {
    // Lateness as measured on an idle machine (0.02–0.3 ms), one chunk in
    // three held up 40 ms by a busy machine.
    let measured: Vec<(f64, f64)> = (0..30)
        .map(|k| {
            let due = 100.0 + 20.0 * f64::from(k);
            (due, due + if k % 3 == 0 { 40.0 } else { 0.02 + 0.01 * f64::from(k) })
        })
        .collect();
    assert!(check_on_time(&measured).is_ok(), "{:?}", check_on_time(&measured));
    for shift in [5.0, 17.0] {
        let late: Vec<(f64, f64)> = measured.iter().map(|&(d, s)| (d, s + shift)).collect();
        let e = check_on_time(&late).unwrap_err();
        assert!(e.contains("median chunk sent"), "{shift} ms: {e}");
    }
    let mut early = measured.clone();
    early[4].1 = early[4].0 - 0.5;
    assert!(check_on_time(&early).unwrap_err().contains("chunk 4 sent"));
}

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
    let pairs = due_and_sent(&truth);
    assert_eq!(pairs.len(), 30);
    for (k, &(due, sent)) in pairs.iter().enumerate() {
        assert!((due - (100.0 + 20.0 * k as f64)).abs() < 1e-6, "token {k} due {due}");
        assert!(sent >= due, "sent {sent} before due {due}");
    }
    check_pace(&pairs, SERVER_FIT_LATE_MS).unwrap();
    let p50 = check_on_time(&pairs).unwrap();
    eprintln!("server lateness P50 {p50:.3} ms (30 chunks)");
    // The client's arrivals keep the same pace.
    let arrivals: Vec<(f64, f64)> = pairs.iter().zip(&arrived).map(|(&(d, _), &a)| (d, a)).collect();
    check_pace(&arrivals, LATE_MS).unwrap();
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
        let pairs = due_and_sent(&truth);
        for (k, &(due, sent)) in pairs.iter().enumerate() {
            assert!((due - (50.0 + k as f64 * tpot)).abs() < 1e-6, "due {due} for token {k} at {tpot} ms");
            assert!(sent >= due, "token {k} at {tpot} ms/token: sent {sent}, due {due}");
        }
        let (_, slope) =
            check_pace(&pairs, SERVER_FIT_LATE_MS).unwrap_or_else(|e| panic!("{tpot} ms/token: {e}"));
        let p50 = check_on_time(&pairs).unwrap_or_else(|e| panic!("{tpot} ms/token: {e}"));
        eprintln!(
            "server lateness P50 {p50:.3} ms, pace slope {slope:.4} ({tpot} ms/token, 32 streams at once)"
        );
    }
}
