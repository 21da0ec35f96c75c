//! `latency-lab serve` run as a service others reach: the public URL and
//! the same-origin check, forwarded addresses, `/readyz`, `/metrics`, the
//! request log, graceful shutdown, `latency-lab backup`, and the limits of
//! the replay endpoint. Every test drives the real binary over HTTP.

mod common;

use std::collections::HashSet;
use std::io::{BufRead, Read};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use common::pg_cluster::PgCluster;
use common::study_client::{answers, bearer, join, publish, results, send};
use common::{Server, call, data_dir, free_port, request, start, start_in, start_logged};
use lab_core::study::Study;
use lab_core::study::submit::Submission;
use serde_json::Value;

fn scrape(text: &str) -> prometheus_parse::Scrape {
    prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("Prometheus text")
}

/// The value of a counter or gauge sample with these labels (0 when absent).
fn value(s: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    s.samples
        .iter()
        .filter(|x| x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match x.value {
            prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v) => v,
            _ => 0.0,
        })
        .sum()
}

/// The observation count of a histogram with these labels.
fn observations(s: &prometheus_parse::Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    s.samples
        .iter()
        .filter(|x| x.metric == name && labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match &x.value {
            prometheus_parse::Value::Histogram(b) => {
                b.iter().find(|b| b.less_than.is_infinite()).map_or(0.0, |b| b.count)
            }
            _ => 0.0,
        })
        .sum()
}

/// A streamed completion that lasts `tokens` × 100 ms.
fn long_chat(tokens: u32) -> String {
    common::chat(&format!("profile:ttft=10,tpot=100,tokens={tokens}"), true)
}

#[test]
fn metrics_count_a_known_sequence_of_requests_exactly() {
    let metrics_port = free_port();
    let metrics_addr = format!("127.0.0.1:{metrics_port}");
    let srv = start(&["--metrics-bind", &metrics_addr]);
    let (a, token) = (srv.addr.as_str(), srv.token());
    let auth = bearer(&token);
    for _ in 0..3 {
        assert_eq!(call(a, "GET", "/healthz", &[], b"").0, 200);
    }
    for _ in 0..2 {
        assert_eq!(call(a, "GET", "/v1/models", &[], b"").0, 200);
    }
    assert_eq!(call(a, "GET", "/readyz", &[], b"").0, 200);
    let study = Study::example();
    let id = publish(a, &token, &study);
    let (p, n) = join(a, &id);
    let bodies = answers(&study, &p, n);
    let path = format!("/api/studies/{id}/answers");
    let foreign = [("Origin", "https://evil.example")];
    assert_eq!(call(a, "POST", &path, &foreign, &bodies[0]).0, 403);
    assert_eq!(send(a, &id, &bodies[0]).unwrap().0, 201);
    assert_eq!(send(a, &id, &bodies[1]).unwrap().0, 201);
    assert_eq!(send(a, &id, &bodies[1]).unwrap().0, 200, "a retry is kept once");
    let (head, trace) = common::stream(a, "profile:ttft=5,tpot=5,tokens=12", &[]);
    assert!(head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"), "{head}");
    let chunks = trace.chunks.len();
    assert!(chunks > 0);
    assert_eq!(call(a, "GET", "/metrics", &[], b"").0, 401, "metrics need the token");
    let (code, text) = call(a, "GET", "/metrics", &[("Authorization", &auth)], b"");
    assert_eq!(code, 200, "{text}");
    let s = scrape(&text);
    let req = "latency_lab_http_requests_total";
    let count = |route: &str, method: &str, status: &str| {
        value(&s, req, &[("route", route), ("method", method), ("status", status)])
    };
    assert_eq!(count("/healthz", "GET", "200"), 3.0);
    assert_eq!(count("/v1/models", "GET", "200"), 2.0);
    assert_eq!(count("/readyz", "GET", "200"), 1.0);
    assert_eq!(count("/api/studies", "POST", "201"), 1.0);
    assert_eq!(count("/api/studies/:id/participants", "POST", "201"), 1.0);
    assert_eq!(count("/api/studies/:id/answers", "POST", "403"), 1.0);
    assert_eq!(count("/api/studies/:id/answers", "POST", "201"), 2.0);
    assert_eq!(count("/api/studies/:id/answers", "POST", "200"), 1.0);
    assert_eq!(count("/v1/chat/completions", "POST", "200"), 1.0);
    assert_eq!(count("/metrics", "GET", "401"), 1.0);
    let total: f64 = s.samples.iter().filter(|x| x.metric == req).map(|_| 1.0).sum();
    assert_eq!(total, 10.0, "no other route or status was counted");
    assert_eq!(value(&s, "latency_lab_study_answers_stored_total", &[]), 2.0);
    assert_eq!(observations(&s, "latency_lab_study_write_seconds", &[("write", "answer")]), 3.0);
    assert_eq!(observations(&s, "latency_lab_study_write_seconds", &[("write", "join")]), 1.0);
    assert_eq!(observations(&s, "latency_lab_study_write_seconds", &[("write", "publish")]), 1.0);
    assert_eq!(value(&s, "latency_lab_replay_open_streams", &[]), 0.0);
    let late = observations(&s, "latency_lab_replay_pacing_lateness_seconds", &[]);
    assert_eq!(late as usize, chunks, "one lateness per text chunk sent");
    // The metrics address needs no token, and shows the same counts.
    let (code, text) = call(&metrics_addr, "GET", "/metrics", &[], b"");
    assert_eq!(code, 200);
    assert_eq!(value(&scrape(&text), "latency_lab_study_answers_stored_total", &[]), 2.0);
}

#[test]
fn readyz_fails_while_the_database_is_down_and_recovers() {
    let pg = PgCluster::start("readyz");
    let srv = start(&["--db", &pg.url()]);
    let a = srv.addr.as_str();
    assert_eq!(call(a, "GET", "/readyz", &[], b""), (200, "ready\n".to_string()));
    pg.stop();
    let t0 = Instant::now();
    let (code, body) = call(a, "GET", "/readyz", &[], b"");
    assert_eq!(code, 503, "{body}");
    assert!(body.starts_with("not ready: "), "{body}");
    assert!(t0.elapsed() < Duration::from_secs(10), "answered within its own timeout");
    assert_eq!(call(a, "GET", "/healthz", &[], b"").0, 200, "the process is still up");
    pg.restart();
    let t0 = Instant::now();
    while call(a, "GET", "/readyz", &[], b"").0 != 200 {
        assert!(t0.elapsed() < Duration::from_secs(30), "not ready again after the database came back");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The example study published, and `n` participants joined: its id and
/// each participant's answers.
fn published_with_participants(addr: &str, token: &str, n: usize) -> (String, Vec<Vec<Vec<u8>>>) {
    let study = Study::example();
    let id = publish(addr, token, &study);
    let answers = (0..n)
        .map(|_| {
            let (p, number) = join(addr, &id);
            answers(&study, &p, number)
        })
        .collect();
    (id, answers)
}

#[test]
fn sigterm_during_50_answer_writes_loses_no_acknowledged_answer() {
    const WRITERS: usize = 50;
    let data = data_dir();
    let mut srv = start_in(&data, &[]);
    let (addr, token) = (srv.addr.clone(), srv.token());
    let (id, mine) = published_with_participants(&addr, &token, WRITERS);
    // A stream in flight ends with the final event, not a cut.
    let (head, mut stream, mut seen) = request(&addr, "POST", "/v1/chat/completions", &[], &long_chat(200));
    assert!(head.contains(" 200 "), "{head}");
    let reader = std::thread::spawn(move || {
        let _ = stream.read_to_end(&mut seen);
        String::from_utf8_lossy(&seen).into_owned()
    });
    // 50 participants answer at once, each answer after the last was
    // acknowledged, until the server is gone.
    let acked = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let gate = Arc::new(Barrier::new(WRITERS + 1));
    let writers: Vec<_> = mine
        .into_iter()
        .map(|bodies| {
            let (gate, addr, id, acked) = (Arc::clone(&gate), addr.clone(), id.clone(), Arc::clone(&acked));
            std::thread::spawn(move || {
                gate.wait();
                for body in bodies {
                    match send(&addr, &id, &body) {
                        Ok((201, _)) => acked.lock().unwrap().push(body),
                        Ok((code, text)) => panic!("an answer was refused, not cut: {code} {text}"),
                        Err(_) => return,
                    }
                }
            })
        })
        .collect();
    gate.wait();
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < WRITERS {
        assert!(t0.elapsed() < Duration::from_secs(30), "answers do not arrive");
        std::thread::sleep(Duration::from_millis(1));
    }
    let status = srv.terminate(Duration::from_secs(20));
    assert!(status.success(), "a clean exit after SIGTERM: {status:?}");
    for w in writers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    let streamed = reader.join().unwrap();
    assert!(streamed.contains("shutting down"), "the stream ends with the final event: {streamed:?}");
    assert!(!streamed.contains("[DONE]"), "it did not run to its end");
    let srv = start_in(&data, &[]);
    let stored: HashSet<_> = results(&srv.addr, &token, &id)
        .responses
        .iter()
        .map(|x| (x.participant.clone(), x.trial, x.question.clone()))
        .collect();
    for body in &acked {
        let s: Submission = serde_json::from_slice(body).unwrap();
        assert!(stored.contains(&s.key()), "acknowledged answer lost: {s:?}");
    }
    let per = answers(&Study::example(), "p001-x", 0).len();
    assert!(acked.len() < WRITERS * per, "the signal came while answers were being written");
    eprintln!(
        "SIGTERM during {WRITERS} concurrent writers: {} of {} answers acknowledged",
        acked.len(),
        WRITERS * per
    );
}

/// `latency-lab backup --data DATA OUT`.
fn backup(data: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["backup", "--data"])
        .arg(data)
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_backup_taken_while_answers_are_written_holds_every_answer_acknowledged_before() {
    const PARTICIPANTS: usize = 8;
    let data = data_dir();
    let srv = start_in(&data, &[]);
    let (addr, token) = (srv.addr.clone(), srv.token());
    let (id, all) = published_with_participants(&addr, &token, PARTICIPANTS);
    let acked = Arc::new(Mutex::new(Vec::<Vec<u8>>::new()));
    let writers: Vec<_> = all
        .into_iter()
        .map(|mine| {
            let (addr, id, acked) = (addr.clone(), id.clone(), Arc::clone(&acked));
            std::thread::spawn(move || {
                for body in mine {
                    let (code, text) = send(&addr, &id, &body).unwrap();
                    assert_eq!(code, 201, "{text}");
                    acked.lock().unwrap().push(body);
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        })
        .collect();
    let t0 = Instant::now();
    while acked.lock().unwrap().len() < 20 {
        assert!(t0.elapsed() < Duration::from_secs(30), "answers do not arrive");
        std::thread::sleep(Duration::from_millis(2));
    }
    let before: Vec<Vec<u8>> = acked.lock().unwrap().clone();
    let copy = data_dir();
    std::fs::create_dir_all(&copy).unwrap();
    let out = backup(&data, &copy.join("studies.db"));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    let writing = acked.lock().unwrap().len();
    for w in writers {
        w.join().unwrap();
    }
    let total = acked.lock().unwrap().len();
    assert!(said.contains("1 studies") && said.contains("integrity checked"), "{said}");
    // The copy opens as a server's database and holds every answer
    // acknowledged before the backup began.
    std::fs::copy(data.join("researcher-token"), copy.join("researcher-token")).unwrap();
    let restored = start_in(&copy, &[]);
    let held = results(&restored.addr, &token, &id).responses;
    let stored: HashSet<_> =
        held.iter().map(|x| (x.participant.clone(), x.trial, x.question.clone())).collect();
    for body in &before {
        let s: Submission = serde_json::from_slice(body).unwrap();
        assert!(stored.contains(&s.key()), "acknowledged before the backup, missing from it: {s:?}");
    }
    assert!(held.len() >= before.len() && held.len() <= total, "{} of {total}", held.len());
    eprintln!(
        "backup: {} answers acknowledged before it, {} by its end, {} in the copy, {total} in all",
        before.len(),
        writing,
        held.len()
    );
    // The live database is not the place to write a backup.
    let same = backup(&data, &data.join("studies.db"));
    assert_eq!(same.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&same.stderr).contains("the database itself"));
}

#[test]
fn links_use_the_public_url_and_only_its_pages_may_write() {
    let srv = start(&["--public-url", "https://Lab.Example.org/"]);
    let (a, token) = (srv.addr.as_str(), srv.token());
    let auth = bearer(&token);
    let study = Study::example();
    let (code, body) =
        call(a, "POST", "/api/studies", &[("Authorization", &auth)], study.to_json().as_bytes());
    assert_eq!(code, 201, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    let id = reply["id"].as_str().unwrap();
    assert_eq!(reply["url"], format!("https://lab.example.org/s/{id}"));
    assert_eq!(reply["link"], format!("/s/{id}"));
    let (_, list) = call(a, "GET", "/api/studies", &[("Authorization", &auth)], b"");
    let list: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list[0]["url"], format!("https://lab.example.org/s/{id}"));
    let join_from = |origin: &str| {
        call(a, "POST", &format!("/api/studies/{id}/participants"), &[("Origin", origin)], b"").0
    };
    assert_eq!(join_from("https://lab.example.org"), 201, "the public origin");
    assert_eq!(join_from(&format!("http://{a}")), 201, "this machine's own address");
    assert_eq!(join_from("http://lab.example.org"), 403, "the public host over plain http");
    assert_eq!(join_from("https://evil.example"), 403);
    // (A page of another name reaching this server, DNS rebinding, sends its
    // own name as `Host` too: `ops::address`'s tests show it refused.)
    // A path in the public URL is refused at start, saying why.
    let out = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--api-only", "--port", "0", "--public-url", "https://lab.example.org/lab/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("root of its host"));
}

/// The JSON request lines of a server's log.
fn request_lines(srv: &Server) -> Vec<Value> {
    srv.log()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["message"] == "request")
        .collect()
}

#[test]
fn json_logs_credit_forwarded_clients_only_behind_a_trusted_proxy_and_hold_no_secrets() {
    let headers =
        [("X-Forwarded-For", "198.51.100.1, 203.0.113.9"), ("Authorization", "Bearer sk-very-secret-key")];
    for (trusted, expected) in [(true, "203.0.113.9"), (false, "127.0.0.1")] {
        let extra: &[&str] = if trusted {
            &["--log-format", "json", "--trusted-proxy", "127.0.0.1"]
        } else {
            &["--log-format", "json"]
        };
        let srv = start_logged(&data_dir(), extra);
        let a = srv.addr.as_str();
        assert_eq!(call(a, "GET", "/v1/models?api_key=query-secret", &headers, b"").0, 200);
        let body = common::chat("profile:ttft=5,tpot=5,tokens=4", false);
        assert_eq!(call(a, "POST", "/v1/chat/completions", &headers, body.as_bytes()).0, 200);
        let t0 = Instant::now();
        while request_lines(&srv).len() < 2 {
            assert!(t0.elapsed() < Duration::from_secs(10), "no request lines:\n{}", srv.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        let lines = request_lines(&srv);
        let models = lines.iter().find(|l| l["route"] == "/v1/models").expect("a /v1/models line");
        assert_eq!(models["client"], expected, "{models}");
        assert_eq!(models["path"], "/v1/models", "no query in the log");
        assert_eq!(models["status"], 200);
        assert_eq!(models["method"], "GET");
        assert!(models["ms"].as_f64().is_some_and(|ms| ms >= 0.0));
        let log = srv.log();
        for secret in ["sk-very-secret-key", "query-secret", "How fast is fast enough"] {
            assert!(!log.contains(secret), "{secret} reached the log:\n{log}");
        }
        assert!(!log.contains(&srv.token()), "the researcher token reached the log");
    }
}

#[test]
fn a_replay_request_cannot_hold_the_server_open() {
    let srv = start(&["--max-wait-ms", "2000", "--max-streams-per-client", "2"]);
    let a = srv.addr.as_str();
    let refused = |model: &str, headers: &[(&str, &str)]| {
        let (code, body) =
            call(a, "POST", "/v1/chat/completions", headers, common::chat(model, true).as_bytes());
        assert_eq!(code, 400, "{model}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        v["error"]["message"].as_str().unwrap().to_string()
    };
    let why = refused("profile:ttft=1e12", &[]);
    assert!(why.contains("1000000000000 ms") && why.contains("at most 2000 ms"), "{why}");
    let why = refused("profile:ttft=10,tpot=2500,tokens=3", &[]);
    assert!(why.contains("between two chunks"), "{why}");
    let why = refused("profile:ttft=10", &[("X-Latency-Lab-Fault", "stall_after=1,stall_ms=5000")]);
    assert!(why.contains("stall"), "{why}");
    let (code, _) = call(
        a,
        "POST",
        "/v1/chat/completions",
        &[("X-Latency-Lab-Fault", "status=500,headers_delay_ms=9e9")],
        common::chat("profile:fast-start", true).as_bytes(),
    );
    assert_eq!(code, 400, "an injected error's delay is bounded too");
    // Two streams at once from one address; the third is refused until
    // one ends.
    let open: Vec<_> =
        (0..2).map(|_| request(a, "POST", "/v1/chat/completions", &[], &long_chat(100))).collect();
    for (head, _, _) in &open {
        assert!(head.contains(" 200 "), "{head}");
    }
    let (code, body) = call(a, "POST", "/v1/chat/completions", &[], long_chat(100).as_bytes());
    assert_eq!(code, 429, "{body}");
    assert!(body.contains("already has 2 responses open"), "{body}");
    drop(open);
    let t0 = Instant::now();
    loop {
        let (head, s, _) = request(a, "POST", "/v1/chat/completions", &[], &long_chat(3));
        drop(s);
        if head.contains(" 200 ") {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "the closed streams were never given back: {head}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_bind_beyond_loopback_says_what_it_exposes() {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let url_file = dir.join("url");
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--api-only", "--log-format", "off", "--bind", "0.0.0.0:0", "--data"])
        .arg(dir.join("data"))
        .arg("--url-file")
        .arg(&url_file)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = String::new();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(Ok(line)) = lines.next() {
        said.push_str(&line);
        said.push('\n');
        if line.starts_with("Listening on") {
            break;
        }
    }
    let url = std::fs::read_to_string(&url_file).unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(said.contains("Listening on 0.0.0.0:"), "{said}");
    assert!(said.contains("put TLS in front"), "{said}");
    assert!(url.starts_with("http://127.0.0.1:"), "reached locally on loopback: {url}");
    let bad = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--api-only", "--port", "1", "--bind", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "--port and --bind together are refused");
}
