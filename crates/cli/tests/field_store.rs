//! The field collector's database under `latency-lab serve`: retention
//! at start (SQLite and PostgreSQL), two servers ingesting into one
//! PostgreSQL database at once, and PostgreSQL going away during ingest.

mod common;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::field::{DAY_NS, ORIGIN, add_site, batch, ids, now_ns, post};
use common::pg_cluster::PgCluster;
use common::{Server, call, data_dir, header, read_all, request, start_in, start_logged, try_call};
use serde_json::Value;

/// Spans 40 and 20 days old and a minute old are posted; serve is
/// started again with a retention of 60, 30 (the default) and 10 days:
/// each time, what started before the period is gone and the rest stays.
fn retention_at_start(extra: &[&str]) {
    let data = data_dir();
    let key = add_site(&data, extra);
    let srv = start_in(&data, extra);
    let now = now_ns();
    let mut sent = Vec::new();
    for (n, age) in [(1, 40 * DAY_NS), (2, 20 * DAY_NS), (3, 60_000_000_000)] {
        let (body, spans) = batch(n, now - age);
        assert_eq!(post(&srv, &key, Some(ORIGIN), &body).0, 200);
        sent.push(spans.into_iter().collect::<HashSet<_>>());
    }
    assert_eq!(ids(&srv), &(&sent[0] | &sent[1]) | &sent[2], "kept until the next pass");
    drop(srv);
    let with = |days: Option<&str>| {
        let mut args = extra.to_vec();
        args.extend(days.map(|d| ["--field-retention-days", d]).iter().flatten());
        ids(&start_in(&data, &args))
    };
    assert_eq!(with(Some("60")), &(&sent[0] | &sent[1]) | &sent[2], "nothing is 60 days old");
    assert_eq!(with(None), &sent[1] | &sent[2], "30 days: the 40-day-old spans are gone");
    assert_eq!(with(Some("10")), sent[2], "10 days: the 20-day-old spans too");
}

#[test]
fn sqlite_serve_deletes_what_is_older_than_its_retention() {
    retention_at_start(&[]);
}

#[test]
fn postgres_serve_deletes_what_is_older_than_its_retention() {
    let pg = PgCluster::start("field-retention");
    retention_at_start(&["--db", &pg.url()]);
}

/// `serve` on `data` and the database `url`, started on a thread.
fn start_on(data: PathBuf, url: &str) -> std::thread::JoinHandle<Server> {
    let url = url.to_string();
    std::thread::spawn(move || start_in(&data, &["--db", &url]))
}

fn get(srv: &Server, path: &str) -> (u16, Value) {
    let auth = format!("Bearer {}", srv.token());
    let (code, body) = call(&srv.addr, "GET", path, &[("Authorization", &auth)], b"");
    (code, serde_json::from_str(&body).unwrap_or(Value::String(body)))
}

/// Two servers started at once on a new PostgreSQL database (each applies
/// the migrations it finds missing; neither fails), then senders post to
/// both at the same time: each its own batches, and pairs the same
/// batch to both servers at once (a resent beacon reaching another
/// server), in opposite orders. Every batch is acknowledged, every span
/// is stored once, and both servers read the same requests.
#[test]
fn two_servers_ingest_into_one_postgres_database_each_span_once() {
    let pg = PgCluster::start("field-two");
    let url = pg.url();
    let (a, b) = (start_on(data_dir(), &url), start_on(data_dir(), &url));
    let servers = [a.join().unwrap(), b.join().unwrap()];
    let migrations =
        std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../server/migrations")).unwrap().count();
    let applied = pg.query("SELECT COUNT(*), COUNT(DISTINCT version) FROM _sqlx_migrations WHERE success");
    assert_eq!(applied.trim(), format!("{migrations}|{migrations}"), "each migration applied once");
    for srv in &servers {
        assert_eq!(call(&srv.addr, "GET", "/readyz", &[], b"").0, 200);
    }
    let key = add_site(&servers[0].data, &["--db", &url]);
    const BATCHES: usize = 30;
    let start_ns = now_ns() - 60_000_000_000;
    // Senders 0 and 1 send the same batches, one to each server, each
    // batch at the same moment. A sender notes a refusal and goes on (a
    // panic would leave its partner waiting).
    let pair = Barrier::new(2);
    let sent: Vec<(HashSet<String>, Vec<String>)> = std::thread::scope(|s| {
        let senders: Vec<_> = (0..4)
            .map(|sender| {
                let (srv, key, pair) = (&servers[sender % 2], &key, &pair);
                s.spawn(move || {
                    let (mut acked, mut refused) = (HashSet::new(), Vec::new());
                    let auth = format!("Bearer {key}");
                    let headers = [("Authorization", auth.as_str()), ("Content-Type", "application/json")];
                    for k in 0..BATCHES {
                        let n = if sender < 2 { k } else { sender * BATCHES + k };
                        let (body, spans) = batch(n, start_ns);
                        let body = if sender == 1 { reversed(&body) } else { body };
                        if sender < 2 {
                            pair.wait();
                        }
                        match try_call(&srv.addr, "POST", "/v1/traces", &headers, &body) {
                            Ok((200, _)) => acked.extend(spans),
                            other => refused.push(format!("sender {sender}, batch {k}: {other:?}")),
                        }
                    }
                    (acked, refused)
                })
            })
            .collect();
        senders.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let refused: Vec<&String> = sent.iter().flat_map(|(_, r)| r).collect();
    assert!(refused.is_empty(), "every batch acknowledged: {refused:#?}");
    let all: HashSet<String> = sent.into_iter().flat_map(|(a, _)| a).collect();
    assert_eq!(all.len(), 3 * BATCHES * 8);
    for srv in &servers {
        let (code, v) = get(srv, "/v1/field/requests?site=shop");
        assert_eq!(code, 200, "{v}");
        let listed = v["requests"].as_array().unwrap();
        assert_eq!(listed.len(), all.len(), "each acknowledged span stored once");
        assert_eq!(ids(srv), all);
        let (code, v) = get(srv, "/v1/field/sites");
        assert_eq!((code, v["sites"][0]["requests"].as_u64()), (200, Some(all.len() as u64)), "{v}");
    }
    let stored = pg.query("SELECT COUNT(*), COUNT(DISTINCT span_id) FROM field_requests");
    assert_eq!(stored.trim(), format!("{n}|{n}", n = all.len()));
}

/// A batch's spans in the opposite order.
fn reversed(body: &[u8]) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(body).unwrap();
    v["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array_mut().unwrap().reverse();
    serde_json::to_vec(&v).unwrap()
}

/// `POST /v1/traces`: status, `Retry-After` and body.
fn post_head(srv: &Server, key: &str, body: &[u8]) -> (u16, Option<String>, String) {
    let auth = format!("Bearer {key}");
    let headers = [("Authorization", auth.as_str()), ("Content-Type", "application/json")];
    let (head, s, rest) =
        request(&srv.addr, "POST", "/v1/traces", &headers, std::str::from_utf8(body).unwrap());
    let code = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let retry = header(&head, "retry-after").map(str::to_string);
    (code, retry, String::from_utf8(read_all(s, rest)).unwrap())
}

/// PostgreSQL stops at once while a server ingests: each batch is
/// refused with a 503 that says the database failed and when to send
/// again, the server lives on, and once PostgreSQL is started again on
/// the same data the same server keeps batches again. What is stored is
/// exactly what was acknowledged.
#[test]
fn postgres_going_away_is_a_503_that_stores_nothing_and_ingest_resumes() {
    let pg = PgCluster::start("field-down");
    let data = data_dir();
    let key = add_site(&data, &["--db", &pg.url()]);
    let srv = start_logged(&data, &["--db", &pg.url()]);
    let start_ns = now_ns() - 60_000_000_000;
    let (before, spans) = batch(1, start_ns);
    assert_eq!(post_head(&srv, &key, &before).0, 200);
    let mut acked: HashSet<String> = spans.into_iter().collect();
    pg.stop_now();
    let (during, spans) = batch(2, start_ns);
    for attempt in 0..2 {
        let t0 = Instant::now();
        let (code, retry, text) = post_head(&srv, &key, &during);
        assert_eq!(code, 503, "attempt {attempt}: {text}");
        assert!(
            text.contains("field database") && text.contains("nothing of this batch was stored"),
            "{text}"
        );
        assert!(retry.is_some_and(|s| s.parse::<u64>().is_ok_and(|s| s > 0)), "no Retry-After: {text}");
        assert!(t0.elapsed() < Duration::from_secs(20), "attempt {attempt} took {:?}", t0.elapsed());
    }
    // The log says what failed (the answer does not: its sender is not
    // the database's operator).
    let said = "no database connection within 5 s: the database is down, unreachable or refusing";
    let t0 = Instant::now();
    while !srv.log().contains(said) {
        assert!(t0.elapsed() < Duration::from_secs(10), "the log does not say why:\n{}", srv.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    // Reading says so too; the process is alive and not ready.
    assert_eq!(get(&srv, "/v1/field/requests?site=shop").0, 503);
    assert_eq!(get(&srv, "/v1/field/sites").0, 503);
    assert_eq!(call(&srv.addr, "GET", "/healthz", &[], b"").0, 200);
    assert_eq!(call(&srv.addr, "GET", "/readyz", &[], b"").0, 503);
    pg.restart();
    let (code, _, text) = post_head(&srv, &key, &during);
    assert_eq!(code, 200, "after PostgreSQL is back: {text}");
    acked.extend(spans);
    let (after, spans) = batch(3, start_ns);
    assert_eq!(post_head(&srv, &key, &after).0, 200);
    acked.extend(spans);
    assert_eq!(ids(&srv), acked, "what was acknowledged, nothing else");
    assert_eq!(call(&srv.addr, "GET", "/readyz", &[], b"").0, 200);
}
