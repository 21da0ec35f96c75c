//! The field collector of `latency-lab serve` over HTTP: a site made by
//! `latency-lab field add-site`, batches from its pages kept and read back
//! as a trace, every refusal a 4xx that stores nothing, CORS only for the
//! site's origins, no prompt or answer text in the database, and no
//! acknowledged request lost to `kill -9` (SQLite and PostgreSQL).

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::pg_cluster::PgCluster;
use common::{Server, call, data_dir, start_in, try_call};
use serde_json::Value;

const PAGE: &str = include_str!("../../../tests/fixtures/field/collector_file_exporter.jsonl");
const ORIGIN: &str = "https://shop.example";

/// `latency-lab field add-site shop --origin ORIGIN` on `data` (and `extra`); the key.
fn add_site(data: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["field", "add-site", "shop", "--origin", ORIGIN, "--data"])
        .arg(data)
        .args(extra)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    let key = said.lines().last().unwrap().trim().to_string();
    assert!(key.starts_with("llk_") && key.len() == 68, "{said}");
    key
}

fn post(srv: &Server, key: &str, origin: Option<&str>, body: &[u8]) -> (u16, String) {
    let auth = format!("Bearer {key}");
    let mut headers = vec![("Authorization", auth.as_str()), ("Content-Type", "application/json")];
    if let Some(o) = origin {
        headers.push(("Origin", o));
    }
    call(&srv.addr, "POST", "/v1/traces", &headers, body)
}

fn stored(srv: &Server) -> Value {
    let auth = format!("Bearer {}", srv.token());
    let (code, body) =
        call(&srv.addr, "GET", "/v1/field/requests?site=shop", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn count(srv: &Server) -> usize {
    stored(srv)["requests"].as_array().map_or(0, Vec::len)
}

#[test]
fn batches_are_kept_refusals_store_nothing_and_no_text_reaches_the_database() {
    let data = data_dir();
    let key = add_site(&data, &[]);
    let srv = start_in(&data, &[]);
    let page = PAGE.lines().next().unwrap().as_bytes();
    let (code, body) = post(&srv, &key, Some(ORIGIN), page);
    assert_eq!((code, body.as_str()), (200, "{}"));
    let t = stored(&srv);
    assert_eq!(t["requests"].as_array().unwrap().len(), 8);
    assert_eq!(t["meta"]["label"], "field data: shop");
    // A back end's batch: its failure kept, two spans not (partial success).
    let (code, body) = post(&srv, &key, None, PAGE.lines().nth(1).unwrap().as_bytes());
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["partialSuccess"]["rejectedSpans"], "2");
    assert_eq!(count(&srv), 13);
    // What the back end's spans could not say travels with the period, as
    // importing the same spans from a file says it.
    let notes = stored(&srv)["meta"]["notes"].clone();
    let said = |start: &str| notes.as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with(start));
    assert!(said("5 of 13 requests carry only the time to first chunk"), "{notes}");
    assert!(said("5 of 13 requests carry no paints"), "{notes}");
    let auth = format!("Bearer {}", srv.token());
    let (code, body) =
        call(&srv.addr, "GET", "/v1/field/requests?site=shop&limit=4", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let cut: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(cut["requests"].as_array().unwrap().len(), 4);
    assert!(cut["meta"]["notes"].to_string().contains("Only the first 4 requests of the period"), "{cut}");
    // A sample of about 5: each kept with the same chance, said; all 13 when they fit.
    let sampled = |n: u32| {
        let q = format!("/v1/field/requests?site=shop&sample={n}");
        let (code, body) = call(&srv.addr, "GET", &q, &[("Authorization", &auth)], b"");
        assert_eq!(code, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()
    };
    let some = sampled(5);
    let n = some["requests"].as_array().unwrap().len();
    assert!((1..13).contains(&n), "{n} of 13 in a sample of about 5");
    let said = some["meta"]["notes"].to_string();
    assert!(
        said.contains("each of the period's 13 requests was kept with the same chance (38.46%)"),
        "{said}"
    );
    assert!(said.contains(&format!("{n} are here")), "{said}");
    assert_eq!(sampled(13)["requests"].as_array().unwrap().len(), 13);
    // One browser's or one model's requests (the Field view's filters).
    let filtered = |q: &str| {
        let (code, body) = call(
            &srv.addr,
            "GET",
            &format!("/v1/field/requests?site=shop&{q}"),
            &[("Authorization", &auth)],
            b"",
        );
        assert_eq!(code, 200, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()["requests"].as_array().map_or(0, Vec::len)
    };
    assert_eq!(filtered("browser=firefox"), 8, "the snippet's pages were Firefox");
    assert_eq!(filtered("browser=Chrome"), 0);
    assert_eq!(filtered("model=tiny-chat"), 13);
    assert_eq!(filtered("model=other"), 0);
    // At a glance: grouped by browser, from the columns kept beside each request.
    let (code, body) =
        call(&srv.addr, "GET", "/v1/field/summary?site=shop&by=browser", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["requests"], 13);
    let groups = v["groups"].as_array().unwrap();
    let firefox = groups.iter().find(|g| g["key"] == "Firefox").expect("a Firefox group");
    assert_eq!(firefox["requests"], 8);
    assert_eq!(firefox["first_paint"]["n"], 8, "the snippet's spans have paints");
    assert_eq!(firefox["paint_lag"]["n"], 8, "and paint lags, kept in their own column");
    assert!(firefox["paint_gap"]["p50"]["value"].as_f64().unwrap() > 0.0);
    assert_eq!(firefox["qoe"]["n"], 8);
    assert!(firefox["stalled"].as_u64().is_some());
    assert!(firefox["ttft"]["p50"]["value"].as_f64().unwrap() > 0.0);
    let backend = groups.iter().find(|g| g["key"] == "(not said)").expect("the back end's spans");
    assert_eq!((backend["requests"].as_u64(), backend["failed"].as_u64()), (Some(5), Some(1)));
    assert!(backend["first_paint"].is_null(), "no paints from a back end");
    assert!(backend["paint_lag"].is_null() && backend["paint_gap"].is_null());
    // Scored against a scenario: over a sample of the period (here all 13),
    // each group on its own requests; too few to score says how many.
    let (code, body) = call(
        &srv.addr,
        "GET",
        "/v1/field/summary?site=shop&by=browser&scenario=chat",
        &[("Authorization", &auth)],
        b"",
    );
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["scenario"], "Interactive chat");
    for g in v["groups"].as_array().unwrap() {
        assert_eq!(g["score"]["sampled"], g["requests"], "{g}");
        assert!(g["score"]["score"].is_null(), "fewer than 20 sampled: {g}");
    }
    let (code, body) = call(
        &srv.addr,
        "GET",
        "/v1/field/summary?site=shop&by=browser&scenario=nope",
        &[("Authorization", &auth)],
        b"",
    );
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("?scenario="), "{body}");
    // The summary keeps what the requests keep: one browser, one model.
    for (q, n) in [("browser=FIREFOX", 8), ("browser=Chrome", 0), ("model=tiny-chat", 13), ("model=other", 0)]
    {
        let (code, body) = call(
            &srv.addr,
            "GET",
            &format!("/v1/field/summary?site=shop&by=day&{q}"),
            &[("Authorization", &auth)],
            b"",
        );
        assert_eq!(code, 200, "{body}");
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["requests"], n, "{q}");
    }
    let (code, body) =
        call(&srv.addr, "GET", "/v1/field/summary?site=shop&by=week", &[("Authorization", &auth)], b"");
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("give one of day, browser, model, site"), "{body}");
    // Every site at once, by site.
    let (code, body) = call(&srv.addr, "GET", "/v1/field/summary?by=site", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((v["requests"].as_u64(), v["groups"][0]["key"].as_str()), (Some(13), Some("shop")), "{body}");
    // Refusals: each a 4xx saying why, nothing stored.
    let big = vec![b' '; 4 * 1024 * 1024 + 10];
    for (k, origin, body, status, says) in [
        ("", Some(ORIGIN), page, 401, "no ingest key"),
        ("llk_0000", Some(ORIGIN), page, 401, "unknown ingest key"),
        (
            key.as_str(),
            Some("https://evil.example"),
            page,
            403,
            "is not one of site shop's registered origins",
        ),
        (key.as_str(), Some(ORIGIN), &b"{\"resourceSpans\": [ {"[..], 400, "not JSON"),
        (key.as_str(), Some(ORIGIN), &big[..], 413, "over 4194304 bytes"),
    ] {
        let (code, text) = post(&srv, k, origin, body);
        assert_eq!(code, status, "{text}");
        assert!(text.contains(says), "{text} (wanted {says})");
    }
    assert_eq!(count(&srv), 13);
    // A beacon cannot set headers: the key in the query works too.
    let (code, _) = call(
        &srv.addr,
        "POST",
        &format!("/v1/traces?key={key}"),
        &[("Content-Type", "text/plain"), ("Origin", ORIGIN)],
        page,
    );
    assert_eq!(code, 200);
    assert_eq!(count(&srv), 13, "a resent batch is kept once");
    // CORS: the site's origin gets a preflight answer, another does not.
    let pre = |o: &str| {
        let mut s = std::net::TcpStream::connect(&srv.addr).unwrap();
        use std::io::{Read, Write};
        write!(
            s,
            "OPTIONS /v1/traces HTTP/1.0\r\nOrigin: {o}\r\nAccess-Control-Request-Method: POST\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let ok = pre(ORIGIN);
    assert!(
        ok.starts_with("HTTP/1.0 204")
            && ok.to_lowercase().contains(&format!("access-control-allow-origin: {ORIGIN}")),
        "{ok}"
    );
    let no = pre("https://evil.example");
    assert!(
        no.starts_with("HTTP/1.0 403") && !no.to_lowercase().contains("access-control-allow-origin"),
        "{no}"
    );
    // Reading needs the researcher token.
    let (code, _) = call(&srv.addr, "GET", "/v1/field/requests", &[], b"");
    assert_eq!(code, 401);
    // The conversation's text is in the batches sent, never in the database.
    assert!(PAGE.contains("12345") && PAGE.contains("charged twice"));
    drop(srv);
    for f in std::fs::read_dir(&data).unwrap().flatten() {
        let bytes = std::fs::read(f.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("12345") && !text.contains("charged twice"),
            "{} holds text",
            f.path().display()
        );
    }
}

#[test]
fn sqlite_loses_no_acknowledged_request_when_killed() {
    kill_and_restart(&[]);
}

#[test]
fn postgres_loses_no_acknowledged_request_when_killed() {
    let pg = PgCluster::start("field-kill");
    kill_and_restart(&["--db", &pg.url()]);
}

/// The page's batch with its spans given ids of their own.
fn batch(n: usize) -> (Vec<u8>, Vec<String>) {
    let mut v: Value = serde_json::from_str(PAGE.lines().next().unwrap()).unwrap();
    let mut ids = Vec::new();
    for (k, s) in
        v["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array_mut().unwrap().iter_mut().enumerate()
    {
        let id = format!("{n:08x}{k:08x}");
        s["spanId"] = Value::String(id.clone());
        ids.push(id);
    }
    (serde_json::to_vec(&v).unwrap(), ids)
}

/// Senders post batches and keep the span ids of those acknowledged; the
/// server is killed with SIGKILL when about half are in, and started
/// again on the same database: every acknowledged span is there.
fn kill_and_restart(extra: &[&str]) {
    const SENDERS: usize = 3;
    const BATCHES: usize = 40;
    let data = data_dir();
    let key = add_site(&data, extra);
    let mut srv = start_in(&data, extra);
    let addr = Arc::new(Mutex::new(srv.addr.clone()));
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let senders: Vec<_> = (0..SENDERS)
        .map(|s| {
            let (addr, acked, key) = (Arc::clone(&addr), Arc::clone(&acked), key.clone());
            std::thread::spawn(move || {
                for b in 0..BATCHES {
                    let (body, ids) = batch(s * BATCHES + b);
                    let auth = format!("Bearer {key}");
                    let t0 = Instant::now();
                    loop {
                        let at = addr.lock().unwrap().clone();
                        match try_call(
                            &at,
                            "POST",
                            "/v1/traces",
                            &[("Authorization", &auth), ("Content-Type", "application/json")],
                            &body,
                        ) {
                            Ok((200, _)) => break,
                            Ok((code, text)) => panic!("batch refused: {code} {text}"),
                            Err(_) => {
                                assert!(t0.elapsed() < Duration::from_secs(60), "never delivered");
                                std::thread::sleep(Duration::from_millis(50));
                            }
                        }
                    }
                    acked.lock().unwrap().extend(ids);
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        })
        .collect();
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < SENDERS * BATCHES * 8 / 2 {
        assert!(t0.elapsed() < Duration::from_secs(60), "batches do not arrive");
        std::thread::sleep(Duration::from_millis(5));
    }
    srv.kill();
    let acked_before: Vec<String> = acked.lock().unwrap().clone();
    std::thread::sleep(Duration::from_millis(300));
    let srv = start_in(&data, extra);
    *addr.lock().unwrap() = srv.addr.clone();
    let ids = |srv: &Server| -> HashSet<String> {
        stored(srv)["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let kept = ids(&srv);
    for id in &acked_before {
        assert!(
            kept.contains(id),
            "acknowledged span {id} lost ({} acknowledged before the kill)",
            acked_before.len()
        );
    }
    for s in senders {
        s.join().unwrap();
    }
    assert_eq!(
        ids(&srv).len(),
        SENDERS * BATCHES * 8,
        "every batch arrived after the restart, each span once"
    );
    // The summary reads the same requests (its packed read, on either database).
    let auth = format!("Bearer {}", srv.token());
    let (code, body) =
        call(&srv.addr, "GET", "/v1/field/summary?site=shop&by=browser", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["requests"], SENDERS * BATCHES * 8);
    assert_eq!(v["groups"][0]["key"], "Firefox");
    assert_eq!(v["groups"][0]["paint_lag"]["n"], SENDERS * BATCHES * 8, "every figure read back: {body}");
    let (code, body) = call(&srv.addr, "GET", "/v1/field/summary?by=site", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (v["groups"][0]["key"].as_str(), v["requests"].as_u64()),
        (Some("shop"), Some((SENDERS * BATCHES * 8) as u64))
    );
}
