//! Load test of the field collector: pages' batches of GenAI spans sent to
//! `POST /v1/traces` by many senders at once, against SQLite and against
//! PostgreSQL with two `serve` processes sharing it; then a store of
//! 1,000,000 requests, read back as the Field part of the Import view reads
//! it (`GET /v1/field/sites` and a period of 100,000 requests).
//!
//! ```sh
//! cargo build --release -p latency-lab
//! cargo run --release -p latency-lab --example field_ingest -- --seconds 15 --stored 1000000
//! ```
//!
//! Each sender is a thread posting one batch after another (HTTP/1.0, a new
//! connection each, as a page's beacon opens one), `--spans` spans per batch
//! (each as the field snippet writes it: 40 chunks and their paints). The
//! servers trust 127.0.0.1 as a proxy and each sender says it forwards a
//! different page's address, so the per-address limit (50 batches a
//! second) is not what is measured. Acknowledged requests are counted back
//! from the database at the end: they must all be there.

use lab_testkit::http;
use lab_testkit::pg_cluster;
use lab_testkit::serve_process;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use lab_core::measure::stats::Samples;
use serde_json::{Value, json};
use serve_process::Serve;

struct Opts {
    seconds: f64,
    senders: usize,
    spans: usize,
    stored: usize,
    sqlite_only: bool,
}

fn opts() -> Opts {
    let mut o = Opts { seconds: 15.0, senders: 16, spans: 20, stored: 1_000_000, sqlite_only: false };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = || args.get(i + 1).and_then(|v| v.parse::<f64>().ok()).expect("a number after the flag");
        match args[i].as_str() {
            "--seconds" => o.seconds = v(),
            "--senders" => o.senders = v() as usize,
            "--spans" => o.spans = v() as usize,
            "--stored" => o.stored = v() as usize,
            "--sqlite-only" => {
                o.sqlite_only = true;
                i -= 1;
            }
            other => {
                panic!("unknown option {other} (--seconds S --senders N --spans N --stored N --sqlite-only)")
            }
        }
        i += 2;
    }
    o
}

/// `serve` trusting 127.0.0.1 as a proxy (each sender forwards a page's address).
fn serve(bin: &str, data: &Path, extra: &[&str]) -> Serve {
    let args: Vec<&str> = ["--trusted-proxy", "127.0.0.1"].into_iter().chain(extra.iter().copied()).collect();
    serve_process::serve(bin, data, &args)
}

fn add_site(bin: &str, data: &Path, db: Option<&str>) -> String {
    let mut cmd = Command::new(bin);
    cmd.args(["field", "add-site", "bench", "--origin", "https://bench.example", "--data"]).arg(data);
    if let Some(db) = db {
        cmd.args(["--db", db]);
    }
    let out = cmd.output().expect("add-site");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().trim().to_string()
}

fn attr(key: &str, v: Value) -> Value {
    json!({ "key": key, "value": v })
}

fn doubles(xs: impl Iterator<Item = f64>) -> Value {
    json!({ "arrayValue": { "values": xs.map(|x| json!({ "doubleValue": x })).collect::<Vec<_>>() } })
}

/// One batch of `n` spans sent at `t0_ns`, as the field snippet writes them.
fn batch(n: usize, t0_ns: u128, seed: usize) -> Vec<u8> {
    let spans: Vec<Value> = (0..n)
        .map(|i| {
            let start = t0_ns + (i as u128) * 1_000_000;
            let ttft = 150.0 + ((seed * 31 + i * 17) % 400) as f64;
            let at: Vec<f64> = (0..40).map(|k| ttft + k as f64 * 20.0).collect();
            json!({
                "traceId": format!("{:032x}", seed * 100_000 + i),
                "spanId": format!("{:016x}", seed * 100_000 + i + 1),
                "name": "chat bench-model",
                "kind": 3,
                "startTimeUnixNano": start.to_string(),
                "endTimeUnixNano": (start + 1_000_000_000).to_string(),
                "attributes": [
                    attr("gen_ai.operation.name", json!({ "stringValue": "chat" })),
                    attr("gen_ai.request.model", json!({ "stringValue": "bench-model" })),
                    attr("gen_ai.response.time_to_first_chunk", json!({ "doubleValue": ttft / 1000.0 })),
                    attr("latency_lab.chunk_ms", doubles(at.iter().copied())),
                    attr("latency_lab.paint_ms", doubles(at.iter().map(|t| t + 8.0))),
                    attr("latency_lab.paint_chars", doubles((1..=40).map(|k| f64::from(k) * 4.0))),
                    attr("latency_lab.browser", json!({ "stringValue": "Firefox" })),
                    attr("latency_lab.engine", json!({ "stringValue": "Gecko" })),
                ],
            })
        })
        .collect();
    serde_json::to_vec(&json!({ "resourceSpans": [{ "scopeSpans": [{ "spans": spans }] }] }))
        .unwrap_or_default()
}

fn now_ns() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Senders against `addrs` for `seconds`: ack times (ms) and spans acknowledged.
fn drive(addrs: &[String], key: &str, o: &Opts) -> (Vec<f64>, usize, f64) {
    let acked = Arc::new(AtomicUsize::new(0));
    let t0 = Instant::now();
    let handles: Vec<_> = (0..o.senders)
        .map(|t| {
            let (addr, key, acked) = (addrs[t % addrs.len()].clone(), key.to_string(), Arc::clone(&acked));
            let (seconds, spans) = (o.seconds, o.spans);
            std::thread::spawn(move || {
                let mut times = Vec::new();
                let auth = format!("Bearer {key}");
                let mut k = 0;
                while t0.elapsed().as_secs_f64() < seconds {
                    let body = batch(spans, now_ns(), t * 1_000 + k);
                    let page = format!("198.51.{}.{}", t % 250, k % 250);
                    let sent = Instant::now();
                    let (code, reply) = http::call(
                        &addr,
                        "POST",
                        "/v1/traces",
                        &[
                            ("Authorization", &auth),
                            ("Content-Type", "application/json"),
                            ("X-Forwarded-For", &page),
                        ],
                        &body,
                    );
                    assert_eq!(code, 200, "{reply}");
                    times.push(sent.elapsed().as_secs_f64() * 1000.0);
                    acked.fetch_add(spans, Ordering::Relaxed);
                    k += 1;
                }
                times
            })
        })
        .collect();
    let times = handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect();
    (times, acked.load(Ordering::Relaxed), t0.elapsed().as_secs_f64())
}

fn stored(addr: &str, token: &str) -> (u64, f64) {
    let auth = format!("Bearer {token}");
    let t = Instant::now();
    let (code, body) = http::call(addr, "GET", "/v1/field/sites", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_default();
    (v["sites"][0]["requests"].as_u64().unwrap_or(0), t.elapsed().as_secs_f64() * 1000.0)
}

fn row(name: &str, times: &[f64], acked: usize, wall: f64, counted: u64) {
    let s = Samples::from_finite(times.iter().copied());
    println!(
        "| {name} | {acked} / {counted} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} |",
        times.len() as f64 / wall,
        acked as f64 / wall,
        s.percentile(50.0).unwrap_or(f64::NAN),
        s.percentile(99.0).unwrap_or(f64::NAN),
        s.sorted().last().copied().unwrap_or(f64::NAN),
    );
    assert_eq!(acked as u64, counted, "{name}: acknowledged requests missing from the database");
}

fn main() {
    let o = opts();
    let bin = std::env::var("LAB_BIN").unwrap_or_else(|_| "target/release/latency-lab".into());
    let dir = std::env::temp_dir().join(format!("lab-field-ingest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let token = |data: &Path| {
        std::fs::read_to_string(data.join("researcher-token")).unwrap_or_default().trim().to_string()
    };
    println!(
        "\nField collector under load: {} senders for {} s, {} spans per batch (40 chunks and paints each)\n",
        o.senders, o.seconds, o.spans
    );
    println!(
        "| database | acknowledged / stored | batches/s | requests/s | ack P50 ms | ack P99 ms | ack max ms |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    let sqlite = dir.join("sqlite");
    std::fs::create_dir_all(&sqlite).unwrap();
    let key = add_site(&bin, &sqlite, None);
    let s = serve(&bin, &sqlite, &[]);
    let (times, acked, wall) = drive(std::slice::from_ref(&s.1), &key, &o);
    row("SQLite (WAL, synchronous=FULL), 1 server", &times, acked, wall, stored(&s.1, &token(&sqlite)).0);
    if !o.sqlite_only {
        let pg = pg_cluster::PgCluster::start_with("field-ingest", true);
        let data = dir.join("pg");
        std::fs::create_dir_all(&data).unwrap();
        let token_file = data.join("researcher-token");
        let key = add_site(&bin, &data, Some(&pg.url()));
        let args = ["--db", &pg.url(), "--token-file", token_file.to_str().unwrap_or_default()];
        let (a, b) = (serve(&bin, &data, &args), serve(&bin, &data, &args));
        let (times, acked, wall) = drive(&[a.1.clone(), b.1.clone()], &key, &o);
        row(
            "PostgreSQL (fsync on), 2 servers sharing it",
            &times,
            acked,
            wall,
            stored(&a.1, &token(&data)).0,
        );
    }
    if o.stored > 0 {
        // Fill the SQLite store to `stored` requests with large batches, then
        // read it as the Field view does.
        let have = stored(&s.1, &token(&sqlite)).0 as usize;
        let fill = Opts { seconds: f64::INFINITY, senders: 4, spans: 500, stored: 0, sqlite_only: true };
        let t = Instant::now();
        let auth = format!("Bearer {key}");
        let mut k = 0;
        let mut n = have;
        while n < o.stored {
            let body = batch(fill.spans, now_ns(), 9_000_000 + k);
            let page = format!("203.0.{}.{}", (k / 250) % 250, k % 250);
            let (code, reply) = http::call(
                &s.1,
                "POST",
                "/v1/traces",
                &[("Authorization", &auth), ("X-Forwarded-For", &page)],
                &body,
            );
            assert_eq!(code, 200, "{reply}");
            n += fill.spans;
            k += 1;
        }
        let filled_s = t.elapsed().as_secs_f64();
        let (count, sites_ms) = stored(&s.1, &token(&sqlite));
        let auth = format!("Bearer {}", token(&sqlite));
        let t = Instant::now();
        let (code, body) = http::call(
            &s.1,
            "GET",
            "/v1/field/requests?site=bench&limit=100000",
            &[("Authorization", &auth)],
            b"",
        );
        let read_ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(code, 200);
        // What the Field view's Load as a run asks for: a sample of about 10,000.
        let t = Instant::now();
        let (code, sample) = http::call(
            &s.1,
            "GET",
            "/v1/field/requests?site=bench&sample=10000",
            &[("Authorization", &auth)],
            b"",
        );
        let sample_ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(code, 200);
        let mut summary_ms = Vec::new();
        // The last: by browser, each group scored as chat over a sample of about 2,000.
        for by in ["day", "browser", "model", "browser&scenario=chat"] {
            let t = Instant::now();
            let (code, reply) = http::call(
                &s.1,
                "GET",
                &format!("/v1/field/summary?site=bench&by={by}"),
                &[("Authorization", &auth)],
                b"",
            );
            assert_eq!(code, 200, "{reply}");
            summary_ms.push(format!("by {by} {:.0} ms", t.elapsed().as_secs_f64() * 1000.0));
        }
        println!(
            "\nSQLite holding {count} requests (filled in {filled_s:.0} s): GET /v1/field/sites {sites_ms:.0} ms; the summary of all of them {}; a period of 100,000 requests as a trace {read_ms:.0} ms ({:.1} MB); a sample of about 10,000 of all of them {sample_ms:.0} ms ({:.1} MB)",
            summary_ms.join(", "),
            body.len() as f64 / 1e6,
            sample.len() as f64 / 1e6
        );
    }
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
