//! `latency-lab run` against `latency-lab serve`: a Mooncake workload with
//! shared `hash_ids`, sent open loop, gets exactly the cached tokens the
//! rows predict ([`lab_core::workload::cache`]) and client TTFTs inside the
//! server's own bounds; shards with one start reproduce one process's
//! schedule; bad input is refused before anything is sent; an `https://`
//! target is reached over TLS (HTTP/2 by ALPN where offered) with `--ca`, and
//! an untrusted certificate fails each request, saying why; Ctrl-C stops
//! sending, and a second ends what is in flight, keeping what arrived.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{check_sent_on_time, check_ttft_against_server, data_dir, start};
use lab_core::Trace;
use lab_core::workload::cache::CachePredictor;
use lab_core::workload::read::LineReader;
use lab_core::workload::{Format, Request};

/// A Mooncake workload: `n` rows 40 ms apart (distinct times, so they reach
/// the server in file order), four shared "system prompts" of 1–3 blocks
/// and blocks of their own, lengths cut inside the last block.
fn workload(dir: &Path, n: usize) -> PathBuf {
    let mut lines = Vec::new();
    let mut next = 10u64;
    for i in 0..n {
        let mut ids: Vec<u64> = match i % 5 {
            0 => vec![0],
            1 => vec![0, 1],
            2 => vec![2, 3, 4],
            3 => vec![],
            _ => vec![0, 1, 5],
        };
        let own = 1 + (i % 3) as u64;
        ids.extend(next..next + own);
        next += own;
        let input = ids.len() as u64 * 512 - (i as u64 * 37) % 500;
        lines.push(format!(
            "{{\"timestamp\": {}, \"input_length\": {input}, \"output_length\": {}, \"hash_ids\": {ids:?}}}",
            i * 40,
            4 + i % 5
        ));
    }
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("shared.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn rows(path: &Path) -> Vec<Request> {
    let mut r = LineReader::new(Format::Mooncake);
    std::fs::read_to_string(path).unwrap().lines().filter_map(|l| r.line(l).unwrap()).collect()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latency-lab")).arg("run").args(args).output().unwrap()
}

/// `run FILE --target TARGET --model MODEL --quiet -o OUT` and `extra`.
fn run_quiet(file: &Path, target: &str, model: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        file.to_str().unwrap(),
        "--target",
        target,
        "--model",
        model,
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn trace(path: &Path) -> Trace {
    Trace::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const MODEL: &str = "profile:ttft=20,tpot=3,jitter=constant,prefill=0.002,slots=8,cache=on";

#[test]
fn cached_tokens_equal_the_rows_prediction_and_ttft_keeps_the_server_bounds() {
    let srv = start(&[]);
    let dir = data_dir().with_extension("run");
    let file = workload(&dir, 40);
    let out = dir.join("out.trace.json");
    let target = format!("http://{}", srv.addr);
    let before =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() * 1e3;
    let o = run_quiet(&file, &target, MODEL, &out, &["--exact-output"]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{said}{}", String::from_utf8_lossy(&o.stderr));
    assert!(said.contains("40 requests sent: 40 answered, 0 failed"), "{said}");
    let t = trace(&out);
    assert_eq!(t.requests.len(), 40);
    // The wall-clock time of the trace's 0, so a probe run lines up with it.
    let epoch = t.meta.clock_epoch_ms.expect("clock_epoch_ms");
    assert!(epoch >= before - 1.0 && epoch < before + 10_000.0, "{epoch} against {before}");
    assert_eq!(t.meta.created_at.as_deref().map(str::len), Some(24), "{:?}", t.meta.created_at);
    let mut predict = CachePredictor::endpoint(512);
    let mut shared = 0;
    let (mut ttfts, mut lateness) = (Vec::new(), Vec::new());
    for (row, r) in rows(&file).iter().zip(&t.requests) {
        assert_eq!(r.id.as_deref(), Some(format!("row-{}", row.line).as_str()));
        let usage = r.usage.expect("usage");
        let want = predict.admit(row);
        assert_eq!(usage.cached_tokens.unwrap_or(0), want, "row {}: cached tokens", row.line);
        assert_eq!(usage.prompt_tokens, Some(u64::from(row.input_tokens) + 1), "the words and the newline");
        assert_eq!(usage.completion_tokens, Some(u64::from(row.output_tokens)), "--exact-output");
        shared += usize::from(want > 0);
        let server = r.server.as_ref().expect("ground truth");
        ttfts.push((r.chunks[0].arrived_ms - r.sent_ms, server.chunks_sent_ms[0]));
        lateness.push(r.sent_ms - r.scheduled_ms.unwrap());
    }
    // Client TTFT against the server's, and each request sent at its time,
    // open loop: medians near the effect (tests/common/mod.rs).
    let ttft = check_ttft_against_server(&ttfts).unwrap();
    let late = check_sent_on_time(&lateness).unwrap();
    eprintln!(
        "median TTFT − server's {ttft:.3} ms, median send lateness {late:.3} ms ({} requests)",
        ttfts.len()
    );
    assert!(shared >= 20, "the workload shares prefixes: {shared} of 40 rows hit the cache");
}

/// `--api` for every wire the runner sends: against serve with `cache=on`,
/// each answer has the row's length (`--exact-output` on every wire), the
/// cached tokens equal the rows' prediction where the wire reports them
/// (Ollama reports the tokens it evaluated: the prompt less the cached
/// ones), and TTFT keeps the server's bounds.
#[test]
fn every_api_sends_the_workload_and_reports_cached_tokens_exactly() {
    let dir = data_dir().with_extension("apis");
    let file = workload(&dir, 20);
    for api in ["completions", "responses", "anthropic", "gemini", "ollama"] {
        let srv = start(&[]);
        let out = dir.join(format!("{api}.trace.json"));
        let target = format!("http://{}", srv.addr);
        let o = run_quiet(&file, &target, MODEL, &out, &["--exact-output", "--api", api]);
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{api}: {said}{}", String::from_utf8_lossy(&o.stderr));
        assert!(said.contains("20 requests sent: 20 answered, 0 failed"), "{api}: {said}");
        let t = trace(&out);
        let wire = (api != "completions").then(|| api.to_string());
        assert_eq!(t.meta.wire, wire, "{api}: the trace records its wire");
        let mut predict = CachePredictor::endpoint(512);
        let mut ttfts = Vec::new();
        for row in rows(&file) {
            let id = format!("row-{}", row.line);
            let r = t
                .requests
                .iter()
                .find(|r| r.id.as_deref() == Some(&id))
                .unwrap_or_else(|| panic!("{api}: {id}"));
            let usage = r.usage.unwrap_or_else(|| panic!("{api}: usage"));
            let want = predict.admit(&row);
            // The words and the newline each message ends with (a completions prompt is the text alone).
            let prompt = u64::from(row.input_tokens) + u64::from(api != "completions");
            assert_eq!(usage.completion_tokens, Some(u64::from(row.output_tokens)), "{api}: --exact-output");
            if api == "ollama" {
                assert_eq!(
                    (usage.prompt_tokens, usage.cached_tokens),
                    (Some(prompt - want), None),
                    "{api} row {}",
                    row.line
                );
            } else {
                assert_eq!(usage.cached_tokens.unwrap_or(0), want, "{api} row {}: cached tokens", row.line);
                assert_eq!(usage.prompt_tokens, Some(prompt), "{api}: prompt tokens");
            }
            ttfts.push((
                r.chunks[0].arrived_ms - r.sent_ms,
                r.server.as_ref().expect("ground truth").chunks_sent_ms[0],
            ));
        }
        check_ttft_against_server(&ttfts).unwrap_or_else(|e| panic!("{api}: {e}"));
    }
}

#[test]
fn four_shards_with_one_start_send_what_one_process_sends() {
    let srv = start(&[]);
    let dir = data_dir().with_extension("shards");
    let file = workload(&dir, 40);
    let target = format!("http://{}", srv.addr);
    let model = "profile:ttft=20,tpot=3,jitter=constant,tokens=6";
    let whole = dir.join("whole.trace.json");
    let o = run_quiet(&file, &target, model, &whole, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let start_at =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64() + 1.5;
    let start_at = format!("{start_at:.3}");
    let shards: Vec<_> = (0..4)
        .map(|i| {
            let out = dir.join(format!("shard{i}.trace.json"));
            let child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
                .args(["run", file.to_str().unwrap(), "--target", &target, "--model", model, "--quiet"])
                .args(["--shard", &format!("{i}/4"), "--start-at", &start_at, "-o", out.to_str().unwrap()])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (child, out)
        })
        .collect();
    let mut parts = Vec::new();
    for (mut child, out) in shards {
        assert!(child.wait().unwrap().success());
        parts.push(out);
    }
    let merged = dir.join("merged.trace.json");
    let mut args: Vec<&str> = vec!["analyze", "--merge", merged.to_str().unwrap()];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    let o = Command::new(env!("CARGO_BIN_EXE_latency-lab")).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (one, four) = (trace(&whole), trace(&merged));
    let ids = |t: &Trace| t.requests.iter().map(|r| (r.id.clone(), r.scheduled_ms)).collect::<Vec<_>>();
    assert_eq!(ids(&one), ids(&four), "the same requests on the same schedule");
    let lateness: Vec<f64> = four.requests.iter().map(|r| r.sent_ms - r.scheduled_ms.unwrap()).collect();
    let late = check_sent_on_time(&lateness).unwrap_or_else(|e| panic!("on the shards' shared clock: {e}"));
    eprintln!("median send lateness of the merged shards {late:.3} ms");
    assert!(four.requests.iter().all(|r| r.failure.is_none()));
    // The same figures, within what two runs of one process differ by.
    let ttft = |t: &Trace| {
        let mut v: Vec<f64> = t.requests.iter().map(|r| r.chunks[0].arrived_ms - r.sent_ms).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    assert!((ttft(&one) - ttft(&four)).abs() < 10.0, "median TTFT {} vs {} ms", ttft(&one), ttft(&four));
    assert_eq!(
        one.requests.iter().map(|r| r.chunks.len()).sum::<usize>(),
        four.requests.iter().map(|r| r.chunks.len()).sum::<usize>(),
        "the same tokens came back"
    );
}

#[test]
fn bad_input_is_refused_before_anything_is_sent() {
    let dir = data_dir().with_extension("bad");
    let file = workload(&dir, 3);
    let f = file.to_str().unwrap();
    for (args, says) in [
        (vec![f, "--target", "ftp://x:1"], "give http://host:port or https://host"),
        (
            vec![f, "--target", "https://127.0.0.1:9", "--model", "m", "--ca", "/nonexistent.pem"],
            "--ca /nonexistent.pem",
        ),
        (vec![f, "--target", "https://127.0.0.1:9", "--model", "m", "--ca", f], "no PEM certificate"),
        (vec![f, "--target", "http://127.0.0.1:9", "--model", "m", "--shard", "4/4"], "--shard 4/4"),
        (vec![f, "--target", "http://127.0.0.1:9", "--model", "m", "--window", "5"], "--window 5"),
        (vec![f, "--target", "http://127.0.0.1:9", "--model", "m", "--speed", "0"], "speed"),
        (vec![f, "--target", "http://127.0.0.1:9", "--model", "m", "--start-at", "soon"], "--start-at soon"),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Nothing listens: every request fails and is recorded; the run ends.
    let out = dir.join("refused.trace.json");
    let o =
        run(&[f, "--target", "http://127.0.0.1:9", "--model", "m", "--quiet", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("3 requests sent: 0 answered, 3 failed"));
    let t = trace(&out);
    assert!(
        t.requests.iter().all(|r| r.failure.as_ref().is_some_and(|f| f.message.contains("could not reach")))
    );
    // No model given and none to ask for.
    let o = run(&[f, "--target", "http://127.0.0.1:9", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give the model with --model"));
}

#[test]
fn http2_by_prior_knowledge_and_ctrl_c_keeps_what_arrived() {
    let srv = start(&[]);
    let dir = data_dir().with_extension("h2");
    let file = workload(&dir, 12);
    let target = format!("http://{}", srv.addr);
    let out = dir.join("h2.trace.json");
    let o = run_quiet(&file, &target, MODEL, &out, &["--http2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("12 requests sent: 12 answered, 0 failed"));
    // A long workload stopped after a second: what was sent is kept, the
    // rest is not sent, and the run ends cleanly.
    let long = dir.join("long.jsonl");
    let rows: Vec<String> = (0..100)
        .map(|i| format!("{{\"timestamp\": {}, \"input_length\": 50, \"output_length\": 5}}", i * 100))
        .collect();
    std::fs::write(&long, rows.join("\n") + "\n").unwrap();
    let out = dir.join("stopped.trace.json");
    let child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["run", long.to_str().unwrap(), "--target", &target, "--model", "profile:ttft=5,tpot=2"])
        .args(["--quiet", "-o", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("stopped sending"));
    let t = trace(&out);
    assert!((5..60).contains(&t.requests.len()), "{} of 100 sent before Ctrl-C", t.requests.len());
    assert!(t.requests.iter().all(|r| r.failure.is_none()), "those in flight finished");
}

#[test]
fn a_second_ctrl_c_ends_the_requests_in_flight_and_writes_what_arrived() {
    use std::io::Read;
    use std::sync::{Arc, Mutex};
    let srv = start(&[]);
    let dir = data_dir().with_extension("ctrl-c");
    std::fs::create_dir_all(&dir).unwrap();
    // Short answers (2 tokens) between long ones (400 tokens 50 ms apart:
    // 20 s), so both Ctrl-Cs find streams in flight and some already done.
    let file = dir.join("long.jsonl");
    let rows: Vec<String> = (0..100)
        .map(|i| {
            let out = if i % 2 == 0 { 2 } else { 400 };
            format!("{{\"timestamp\": {}, \"input_length\": 50, \"output_length\": {out}}}", i * 100)
        })
        .collect();
    std::fs::write(&file, rows.join("\n") + "\n").unwrap();
    let out = dir.join("ended.trace.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["run", file.to_str().unwrap(), "--target", &format!("http://{}", srv.addr)])
        .args(["--model", "profile:ttft=5,tpot=50", "--exact-output", "--quiet", "-o", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let said = Arc::new(Mutex::new(String::new()));
    let reader = {
        let (mut err, said) = (child.stderr.take().unwrap(), Arc::clone(&said));
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n @ 1..) = err.read(&mut buf) {
                said.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let int = |pid: u32| Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap().success();
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert!(int(child.id()));
    // The second Ctrl-C once the first was taken (two signals at once may
    // arrive as one).
    let t0 = std::time::Instant::now();
    while !said.lock().unwrap().contains("stopped sending") {
        assert!(t0.elapsed().as_secs() < 20, "the first Ctrl-C was not taken: {}", said.lock().unwrap());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(int(child.id()));
    let status = child.wait().unwrap();
    reader.join().unwrap();
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let said = said.lock().unwrap().clone();
    assert_eq!(status.code(), Some(0), "{said}");
    assert!(said.contains("ending the requests in flight now; the trace keeps what arrived"), "{said}");
    let t = trace(&out);
    let n = t.requests.len();
    assert!((5..60).contains(&n), "{n} of 100 sent before Ctrl-C");
    assert!(stdout.contains(&format!("{n} requests sent: ")), "{stdout}");
    // Answers done before are kept whole; those in flight (every long one)
    // are kept as far as they arrived, failed as aborted.
    let line = |r: &&lab_core::trace::RequestTrace| r.id.as_ref().unwrap()[4..].parse::<usize>().unwrap();
    let (long, short): (Vec<_>, Vec<_>) = t.requests.iter().partition(|r| line(r) % 2 == 0);
    assert!(short.iter().any(|r| r.failure.is_none() && r.chunks.len() == 2), "{short:?}");
    assert!(long.iter().any(|r| !r.chunks.is_empty()), "streams in flight, what arrived kept: {long:?}");
    for r in t.requests.iter().filter(|r| r.failure.is_some() || line(r) % 2 == 0) {
        let failure = r.failure.as_ref().expect("ended by the second Ctrl-C");
        assert_eq!(failure.kind, lab_core::trace::FailureKind::Aborted, "{:?}", r.id);
        let asked = if line(&r) % 2 == 0 { 400 } else { 2 };
        assert!(r.chunks.len() < asked, "{:?}: {} chunks, all of them", r.id, r.chunks.len());
    }
    let notes = t.meta.notes.join("\n");
    assert!(notes.contains(&format!("stopped by Ctrl-C after {n} requests")), "{notes}");
    assert!(notes.contains("a second Ctrl-C ended the run"), "{notes}");
}

/// TLS in front of a plain server: a certificate made for `localhost` and
/// `127.0.0.1`, each connection's bytes passed on to `upstream`, and the
/// protocol each connection agreed by ALPN.
struct TlsFront {
    addr: std::net::SocketAddr,
    ca_pem: String,
    alpn: std::sync::Arc<std::sync::Mutex<Vec<Option<Vec<u8>>>>>,
    _rt: tokio::runtime::Runtime,
}

fn tls_front(upstream: std::net::SocketAddr) -> TlsFront {
    use std::sync::{Arc, Mutex};
    let made =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    let key = rustls::pki_types::PrivatePkcs8KeyDer::from(made.key_pair.serialize_der());
    #[allow(deprecated)] // as the runner: ring's provider (see run/client.rs)
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![made.cert.der().clone()], key.into())
        .unwrap();
    cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let alpn = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&alpn);
    rt.spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, seen) = (acceptor.clone(), Arc::clone(&seen));
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                seen.lock().unwrap().push(tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec));
                if let Ok(mut up) = tokio::net::TcpStream::connect(upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut up).await;
                }
            });
        }
    });
    TlsFront { addr, ca_pem: made.cert.pem(), alpn, _rt: rt }
}

#[test]
fn an_https_target_is_reached_with_its_ca_and_an_untrusted_one_fails_each_request() {
    let srv = start(&[]);
    let front = tls_front(srv.addr.parse().expect("the server's address"));
    let dir = data_dir().with_extension("tls");
    let file = workload(&dir, 12);
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, &front.ca_pem).unwrap();
    let out = dir.join("tls.trace.json");
    let target = format!("https://127.0.0.1:{}", front.addr.port());
    let o = run_quiet(&file, &target, MODEL, &out, &["--ca", ca.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{said}{}", String::from_utf8_lossy(&o.stderr));
    assert!(said.contains("12 requests sent: 12 answered, 0 failed"), "{said}");
    let t = trace(&out);
    let ttfts: Vec<(f64, f64)> = t
        .requests
        .iter()
        .map(|r| {
            let server = r.server.as_ref().expect("ground truth, asked for over HTTPS too");
            (r.chunks[0].arrived_ms - r.sent_ms, server.chunks_sent_ms[0])
        })
        .collect();
    // Through the test's TLS front the first chunk trails the server's send
    // by a copy between two sockets (about 20 ms measured, its buffering):
    // this test is about reaching the server, so only the order is held,
    // with the suite's per-event bound. Precision is held without the front.
    for (client, server) in &ttfts {
        assert!(
            *client >= server - 0.5 && *client <= server + common::LATE_MS,
            "client {client} ms, server {server} ms"
        );
    }
    // The server offered HTTP/2 by ALPN and every connection took it.
    let alpn = front.alpn.lock().unwrap().clone();
    assert!(!alpn.is_empty() && alpn.iter().all(|p| p.as_deref() == Some(&b"h2"[..])), "ALPN: {alpn:?}");
    // Without --ca the certificate is not trusted: each request fails and
    // says so; the run still ends and keeps them.
    let o = run_quiet(&file, &target, MODEL, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("12 requests sent: 0 answered, 12 failed"));
    let t = trace(&out);
    for r in &t.requests {
        let why = &r.failure.as_ref().expect("failed").message;
        assert!(why.contains("certificate") && why.contains(&target), "{why}");
    }
}

#[test]
fn the_schedule_and_ttft_checks_fail_5_or_17_ms_late() {
    // As measured: sent 0.05-0.4 ms late, TTFT 0.2-0.8 ms after the
    // server's send; one request in three held up 40 ms by a busy machine.
    let late: Vec<f64> =
        (0..30).map(|k| if k % 3 == 0 { 40.0 } else { 0.05 + 0.01 * f64::from(k) }).collect();
    let ttfts: Vec<(f64, f64)> = late.iter().map(|l| (300.2 + l, 300.0)).collect();
    assert!(check_sent_on_time(&late).is_ok() && check_ttft_against_server(&ttfts).is_ok());
    for shift in [5.0, 17.0] {
        let shifted: Vec<f64> = late.iter().map(|l| l + shift).collect();
        assert!(check_sent_on_time(&shifted).unwrap_err().contains("median request"), "{shift} ms");
        let shifted: Vec<(f64, f64)> = ttfts.iter().map(|(c, s)| (c + shift, *s)).collect();
        if shift > common::TTFT_DELTA_MEDIAN_MS {
            assert!(check_ttft_against_server(&shifted).unwrap_err().contains("median TTFT"), "{shift} ms");
        }
    }
    assert!(check_sent_on_time(&[0.1, -0.5, 0.2]).unwrap_err().contains("before its time"));
}
