//! The field collector's test helpers: a site made by `latency-lab field
//! add-site`, batches posted and read back, and the fixture's spans
//! re-dated to the run (serve deletes requests older than its retention
//! by the span's own start, so spans with a fixed date would be deleted
//! once that date is 30 days past).

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::{Server, call};

/// The collector file exporter's lines: a page with the lab's snippet
/// (8 spans), then a back end's batch.
pub const PAGE: &str = include_str!("../../../../tests/fixtures/field/collector_file_exporter.jsonl");
/// The origin `shop` registers.
pub const ORIGIN: &str = "https://shop.example";
/// A day (ns).
pub const DAY_NS: i128 = 86_400 * 1_000_000_000;

/// `latency-lab field add-site shop --origin ORIGIN` on `data` (and `extra`); the key.
pub fn add_site(data: &Path, extra: &[&str]) -> String {
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

/// `POST /v1/traces` with the key in `Authorization`.
pub fn post(srv: &Server, key: &str, origin: Option<&str>, body: &[u8]) -> (u16, String) {
    let auth = format!("Bearer {key}");
    let mut headers = vec![("Authorization", auth.as_str()), ("Content-Type", "application/json")];
    if let Some(o) = origin {
        headers.push(("Origin", o));
    }
    call(&srv.addr, "POST", "/v1/traces", &headers, body)
}

/// Site shop's requests, as a trace.
pub fn stored(srv: &Server) -> Value {
    let auth = format!("Bearer {}", srv.token());
    let (code, body) =
        call(&srv.addr, "GET", "/v1/field/requests?site=shop", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

/// How many requests site shop has.
pub fn count(srv: &Server) -> usize {
    stored(srv)["requests"].as_array().map_or(0, Vec::len)
}

/// The ids of site shop's requests, each once however often it is stored.
pub fn ids(srv: &Server) -> HashSet<String> {
    stored(srv)["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// Now (ns since 1970).
pub fn now_ns() -> i128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as i128
}

fn nanos(v: &Value) -> Option<i128> {
    v.as_str().and_then(|s| s.parse().ok()).or_else(|| v.as_i64().map(i128::from))
}

/// Every `startTimeUnixNano` and `endTimeUnixNano` under `v`.
fn times(v: &mut Value, each: &mut dyn FnMut(&str, &mut Value)) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "startTimeUnixNano" || k == "endTimeUnixNano" {
                    each(k, x);
                } else {
                    times(x, each);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| times(x, each)),
        _ => {}
    }
}

/// The OTLP/JSON lines `lines` with every span moved in time so the
/// earliest starts at `start_ns`, the spans' timing between them kept.
pub fn redated(lines: &str, start_ns: i128) -> String {
    let mut batches: Vec<Value> = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut first = i128::MAX;
    for b in &mut batches {
        times(b, &mut |k, v| {
            if k == "startTimeUnixNano" {
                first = first.min(nanos(v).expect("a time in ns"));
            }
        });
    }
    assert!(first < i128::MAX, "no spans to re-date");
    for b in &mut batches {
        times(b, &mut |_, v| *v = Value::String((nanos(v).unwrap() - first + start_ns).to_string()));
    }
    batches.iter().map(|b| format!("{b}\n")).collect()
}

/// The fixture's lines re-dated to start a minute ago.
pub fn page() -> String {
    redated(PAGE, now_ns() - 60_000_000_000)
}

/// The page's batch (the fixture's first line, its spans starting at
/// `start_ns`) with span ids of its own (number `n`); and those ids.
pub fn batch(n: usize, start_ns: i128) -> (Vec<u8>, Vec<String>) {
    let line = redated(PAGE.lines().next().unwrap(), start_ns);
    let mut v: Value = serde_json::from_str(&line).unwrap();
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
