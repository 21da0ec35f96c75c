//! Helpers of the replay endpoint's tests: a `latency-lab serve` child
//! process on a free port, raw HTTP/1.0 requests, and a streamed chat
//! completion recorded on a local clock.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lab_core::stream::record::{Recorder, StreamEnd};
use serde_json::Value;

/// How late a chunk may leave the server, or reach this client, and still
/// pass (ms). The tests run on shared machines next to other work (the
/// suite is checked with two CPU-bound processes beside it), so this bound
/// only catches a pacer that ignores its schedule (a burst at the end, the
/// wrong pace); how close to due chunks really leave is measured by
/// `./lab bench` (the `load` example) and recorded in BENCHMARKS.md.
pub const LATE_MS: f64 = 250.0;

/// How late the median request of a `latency-lab run` may leave (ms,
/// `sent_ms − scheduled_ms` on the run's clock; across shards, on their
/// shared clock). The runner's send lateness is 0.1–0.2 ms at the median
/// (BENCHMARKS.md, "runner"); these tests' medians were 0.6–1.1 ms beside
/// a CPU-bound job (printed with `--nocapture`; their runs start many
/// requests at once). An order statistic:
/// more than half of a run's requests would have to be held up over 3 ms
/// to fail it; a sender 5 ms or 17 ms late fails it every time.
pub const SEND_MEDIAN_LATE_MS: f64 = 3.0;

/// How far the median client TTFT of a run over loopback may trail the
/// server's own send of the first chunk (ms): the socket and the runner's
/// read, 0.1–1 ms measured beside a CPU-bound job; a first chunk read a
/// frame (17 ms) late fails it.
pub const TTFT_DELTA_MEDIAN_MS: f64 = 5.0;

/// The median of `xs` (numpy's linear percentile 50).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    lab_core::measure::stats::percentile_of_sorted(&v, 50.0)
}

/// Requests sent on schedule: none early (10 µs of float noise), the
/// median within [`SEND_MEDIAN_LATE_MS`]; `late` holds `sent − scheduled`.
pub fn check_sent_on_time(late: &[f64]) -> Result<f64, String> {
    if let Some((k, l)) = late.iter().enumerate().find(|(_, l)| **l < -0.01) {
        return Err(format!("request {k} sent {:.3} ms before its time", -l));
    }
    let m = median(late);
    if m > SEND_MEDIAN_LATE_MS {
        return Err(format!("the median request was sent {m:.3} ms late (bound {SEND_MEDIAN_LATE_MS} ms)"));
    }
    Ok(m)
}

/// Client TTFTs against the server's (`(client, server)` ms per request):
/// none before the server sent (0.5 ms for the two clocks' reads), the
/// median difference within [`TTFT_DELTA_MEDIAN_MS`].
pub fn check_ttft_against_server(pairs: &[(f64, f64)]) -> Result<f64, String> {
    if let Some((k, (c, s))) = pairs.iter().enumerate().find(|(_, (c, s))| c < &(s - 0.5)) {
        return Err(format!("request {k}: TTFT {c} ms at the client, before the server sent at {s} ms"));
    }
    let m = median(&pairs.iter().map(|(c, s)| c - s).collect::<Vec<_>>());
    if m > TTFT_DELTA_MEDIAN_MS {
        return Err(format!(
            "the median TTFT is {m:.3} ms after the server sent the first chunk (bound {TTFT_DELTA_MEDIAN_MS} ms)"
        ));
    }
    Ok(m)
}

pub mod field;
// Each test binary uses some of them.
#[allow(unused_imports)]
pub use lab_testkit::{http, pg_cluster, study_client};

#[allow(unused_imports)]
pub use http::{call, try_call};

pub struct Server {
    child: Child,
    pub addr: String,
    /// Its data directory (study database, researcher token).
    pub data: PathBuf,
    /// What it wrote to stderr, when started by [`start_logged`].
    log: Option<std::sync::Arc<std::sync::Mutex<String>>>,
}

impl Server {
    /// Sends SIGTERM and waits (at most `within`) for it to exit; its exit
    /// status.
    pub fn terminate(&mut self, within: Duration) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let ok = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(ok.success(), "kill -TERM {pid}");
        let t0 = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(t0.elapsed() < within, "still running {within:?} after SIGTERM");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Its stderr so far (servers started by [`start_logged`]).
    pub fn log(&self) -> String {
        self.log.as_ref().map(|l| l.lock().unwrap().clone()).unwrap_or_default()
    }

    /// Stops it at once, as `kill -9` does (SIGKILL: no clean-up runs).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The researcher token it made on first start.
    pub fn token(&self) -> String {
        std::fs::read_to_string(self.data.join("researcher-token")).unwrap().trim().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free port on 127.0.0.1 (for a listener a test names itself).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A new data directory for a server.
pub fn data_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("lab-replay-{}", std::process::id()));
    let data = dir.join(format!("data-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&data);
    data
}

pub fn start(extra: &[&str]) -> Server {
    start_in(&data_dir(), extra)
}

/// Starts a server on the data directory `data` (kept between servers).
pub fn start_in(data: &std::path::Path, extra: &[&str]) -> Server {
    launch(data, &[&["--log-format", "off"], extra].concat(), false)
}

/// Starts a server whose stderr (its request log) is kept ([`Server::log`]).
pub fn start_logged(data: &std::path::Path, extra: &[&str]) -> Server {
    launch(data, extra, true)
}

fn launch(data: &std::path::Path, extra: &[&str], logged: bool) -> Server {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("lab-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url_file = dir.join(format!("url-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_file(&url_file);
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hand.trace.json");
    let child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--api-only", "--trace"])
        .arg(&fixture)
        .arg("--url-file")
        .arg(&url_file)
        .arg("--data")
        .arg(data)
        .args(if extra.contains(&"--bind") { &[][..] } else { &["--port", "0"][..] })
        .args(extra)
        .stdout(Stdio::null())
        .stderr(if logged { Stdio::piped() } else { Stdio::inherit() })
        .spawn()
        .unwrap();
    let mut srv = Server { child, addr: String::new(), data: data.to_path_buf(), log: None };
    if let Some(mut err) = srv.child.stderr.take() {
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        srv.log = Some(log);
    }
    let t0 = Instant::now();
    loop {
        if let Ok(u) = std::fs::read_to_string(&url_file)
            && !u.is_empty()
        {
            srv.addr = u.trim().trim_start_matches("http://").trim_end_matches('/').to_string();
            return srv;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends an HTTP/1.0 request; returns the response head and a reader for the body.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (String, TcpStream, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "closed before the head");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..i]).into_owned();
            let rest = buf[i + 4..].to_vec();
            return (head, s, rest);
        }
    }
}

pub fn read_all(mut s: TcpStream, mut rest: Vec<u8>) -> Vec<u8> {
    let _ = s.read_to_end(&mut rest);
    rest
}

pub fn chat(model: &str, stream: bool) -> String {
    serde_json::json!({
        "model": model, "stream": stream, "stream_options": {"include_usage": true},
        "messages": [{"role": "user", "content": "How fast is fast enough?"}]
    })
    .to_string()
}

/// Streams a chat completion, stamping each read on a local clock.
pub fn stream(addr: &str, model: &str, headers: &[(&str, &str)]) -> (String, lab_core::trace::RequestTrace) {
    stream_body(addr, &chat(model, true), headers)
}

/// Streams a chat completion of this request body.
pub fn stream_body(
    addr: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (String, lab_core::trace::RequestTrace) {
    stream_wire(addr, "/v1/chat/completions", lab_core::stream::wire::Wire::Chat, body, headers)
}

/// POSTs `body` to `path` and records the answer as `wire` streams it,
/// stamping each read on a local clock.
pub fn stream_wire(
    addr: &str,
    path: &str,
    wire: lab_core::stream::wire::Wire,
    body: &str,
    headers: &[(&str, &str)],
) -> (String, lab_core::trace::RequestTrace) {
    let t0 = Instant::now();
    let ms = |t: Instant| t.duration_since(t0).as_secs_f64() * 1000.0;
    let (head, mut s, rest) = request(addr, "POST", path, headers, body);
    let mut rec = Recorder::with_wire(0.0, wire);
    rec.on_headers(ms(Instant::now()), 200);
    rec.on_bytes(ms(Instant::now()), &rest);
    let mut chunk = [0u8; 65536];
    let end = loop {
        match s.read(&mut chunk) {
            Ok(0) => break StreamEnd::Closed,
            Ok(n) => {
                rec.on_bytes(ms(Instant::now()), &chunk[..n]);
            }
            Err(e) => break StreamEnd::Broken(e.to_string()),
        }
    };
    (head, rec.finish(ms(Instant::now()), end))
}

pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// The server's ground truth of the request that answered with `head`.
pub fn truth(addr: &str, head: &str) -> Value {
    let id = header(head, "x-latency-lab-request-id").expect("a request id");
    let (_, s, rest) = request(addr, "GET", &format!("/v1/lab/requests/{id}"), &[], "");
    serde_json::from_slice(&read_all(s, rest)).unwrap()
}
