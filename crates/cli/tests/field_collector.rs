//! The field collector of `latency-lab serve` over HTTP: a site made by
//! `latency-lab field add-site`, batches from its pages kept and read back
//! as a trace, every refusal a 4xx that stores nothing, CORS only for the
//! site's origins, no prompt or answer text in the database, and no
//! acknowledged request lost to `kill -9` (SQLite and PostgreSQL).

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::field::{ORIGIN, PAGE, add_site, batch, count, ids, now_ns, page, post, stored};
use common::pg_cluster::PgCluster;
use common::{call, data_dir, start_in, start_logged, try_call};
use serde_json::Value;

#[test]
fn batches_are_kept_refusals_store_nothing_and_no_text_reaches_the_database() {
    let data = data_dir();
    let key = add_site(&data, &[]);
    let srv = start_in(&data, &[]);
    // The fixture's spans, dated a minute ago (serve deletes old ones).
    let lines = page();
    let page = lines.lines().next().unwrap().as_bytes();
    let (code, body) = post(&srv, &key, Some(ORIGIN), page);
    assert_eq!((code, body.as_str()), (200, "{}"));
    let t = stored(&srv);
    assert_eq!(t["requests"].as_array().unwrap().len(), 8);
    assert_eq!(t["meta"]["label"], "field data: shop");
    // A back end's batch: its failure kept, two spans not (partial success).
    let (code, body) = post(&srv, &key, None, lines.lines().nth(1).unwrap().as_bytes());
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
    let figure = |g: &Value, id: &str| {
        g["figures"]
            .as_array()
            .and_then(|fs| fs.iter().find(|f| f["id"] == id))
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(figure(firefox, "ttfp")["n"], 8, "the snippet's spans have paints");
    assert_eq!(figure(firefox, "paint_lag")["n"], 8, "and paint lags, kept by their id");
    assert!(figure(firefox, "paint_gap")["p50"]["value"].as_f64().unwrap() > 0.0);
    assert_eq!(firefox["qoe"]["n"], 8);
    assert!(firefox["stalled"].as_u64().is_some());
    assert!(figure(firefox, "ttft")["p50"]["value"].as_f64().unwrap() > 0.0);
    assert!(figure(firefox, "e2el")["p50"]["value"].as_f64().unwrap() > 0.0, "every registry row is kept");
    let backend = groups.iter().find(|g| g["key"] == "(not said)").expect("the back end's spans");
    assert_eq!((backend["requests"].as_u64(), backend["failed"].as_u64()), (Some(5), Some(1)));
    assert!(figure(backend, "ttfp").is_null(), "no paints from a back end");
    assert!(figure(backend, "paint_lag").is_null() && figure(backend, "paint_gap").is_null());
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
        // Fewer than 20 sampled: scored all the same (the run card's number;
        // the view marks it rough), over the completed ones.
        let score = g["score"]["score"].as_f64();
        assert!(score.is_some_and(|s| (0.0..=100.0).contains(&s)), "fewer than 20 sampled, scored: {g}");
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

/// A page's `sendBeacon` cannot set headers, so its key comes in the
/// query. From an origin site shop did not register, it is refused (403)
/// and stores nothing; the key is neither in the answer nor in the log.
/// From the registered origin, the same beacon is kept.
#[test]
fn a_beacon_from_an_unregistered_origin_is_refused_and_its_key_not_repeated() {
    let data = data_dir();
    let key = add_site(&data, &[]);
    let srv = start_logged(&data, &["--log-format", "json"]);
    let (body, sent) = batch(1, now_ns() - 60_000_000_000);
    let beacon = |origin: &str| {
        let headers = [("Content-Type", "text/plain;charset=UTF-8"), ("Origin", origin)];
        let (head, s, rest) = common::request(
            &srv.addr,
            "POST",
            &format!("/v1/traces?key={key}"),
            &headers,
            std::str::from_utf8(&body).unwrap(),
        );
        let text = String::from_utf8(common::read_all(s, rest)).unwrap();
        (head, text)
    };
    let others = ["https://evil.example", "http://shop.example", "https://shop.example:8443", "null"];
    for origin in others {
        let (head, text) = beacon(origin);
        assert!(head.starts_with("HTTP/1.0 403"), "{origin}: {head}\n{text}");
        assert!(
            text.contains(&format!("origin {origin} is not one of site shop's registered origins")),
            "{text}"
        );
        assert!(common::header(&head, "access-control-allow-origin").is_none(), "{head}");
        assert!(!head.contains(&key[4..]) && !text.contains(&key[4..]), "the key echoed: {head}\n{text}");
        assert_eq!(count(&srv), 0, "{origin}: nothing stored");
    }
    let (head, text) = beacon(ORIGIN);
    assert!(head.starts_with("HTTP/1.0 200"), "{head}\n{text}");
    assert_eq!(common::header(&head, "access-control-allow-origin"), Some(ORIGIN), "{head}");
    assert_eq!(ids(&srv), sent.into_iter().collect(), "the registered origin's beacon is kept");
    // The request log: a line per beacon, the path without its query.
    let beacons = |log: &str| {
        log.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["message"] == "request" && v["route"] == "/v1/traces")
            .collect::<Vec<_>>()
    };
    let t0 = Instant::now();
    while beacons(&srv.log()).len() < others.len() + 1 {
        assert!(t0.elapsed() < Duration::from_secs(10), "no request lines:\n{}", srv.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    let log = srv.log();
    let statuses: Vec<_> = beacons(&log).iter().map(|l| l["status"].as_u64().unwrap()).collect();
    assert_eq!(statuses, [403, 403, 403, 403, 200], "{log}");
    assert!(beacons(&log).iter().all(|l| l["path"] == "/v1/traces"), "{log}");
    assert!(!log.contains(&key[4..]), "the key reached the log:\n{log}");
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

/// Senders post batches and keep the span ids of those acknowledged; the
/// server is killed with SIGKILL when about half are in, and started
/// again on the same database: every acknowledged span is there.
fn kill_and_restart(extra: &[&str]) {
    const SENDERS: usize = 3;
    const BATCHES: usize = 40;
    let data = data_dir();
    let key = add_site(&data, extra);
    let mut srv = start_in(&data, extra);
    // Dated a minute ago: the restarted server deletes what is older than
    // its retention (30 days).
    let start_ns = now_ns() - 60_000_000_000;
    let addr = Arc::new(Mutex::new(srv.addr.clone()));
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let senders: Vec<_> = (0..SENDERS)
        .map(|s| {
            let (addr, acked, key) = (Arc::clone(&addr), Arc::clone(&acked), key.clone());
            std::thread::spawn(move || {
                for b in 0..BATCHES {
                    let (body, ids) = batch(s * BATCHES + b, start_ns);
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
    let figures = v["groups"][0]["figures"].as_array().expect("figures, each with its row id");
    assert!(
        figures.len() >= 10 && figures.iter().any(|f| f["id"] == "paint_lag"),
        "every figure read back: {body}"
    );
    for f in figures {
        assert_eq!(f["n"], SENDERS * BATCHES * 8, "{} of every request read back", f["id"]);
    }
    let (code, body) = call(&srv.addr, "GET", "/v1/field/summary?by=site", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (v["groups"][0]["key"].as_str(), v["requests"].as_u64()),
        (Some("shop"), Some((SENDERS * BATCHES * 8) as u64))
    );
}
