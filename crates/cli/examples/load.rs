//! Load test of `latency-lab serve`: N concurrent streams on loopback, each a
//! constant-pace profile, and how far the tokens' arrival times stray from
//! the schedule.
//!
//! ```sh
//! cargo build --release -p latency-lab
//! cargo run --release -p latency-lab --example load -- --streams 1000
//! ```
//!
//! It starts `target/release/latency-lab serve --api-only` (or `$LAB_BIN`,
//! with `$LAB_SERVE_ARGS`, default `--log-format off`),
//! opens all connections first, then sends every request at once over raw
//! HTTP/1.1 (single-threaded tokio, own chunked-transfer decoder,
//! `lab_core::stream::sse` parser) and stamps each content event on arrival.
//!
//! - **Pacing error** of token k (k ≥ 1) of a stream: (arrival k − arrival 0)
//!   − k · TPOT, i.e. the server's deviation from its own schedule as seen by
//!   the client, without the connection set-up that TTFT includes.
//! - **TTFT excess**: arrival 0 − sent − TTFT (queueing and set-up).
//! - **Response headers**: request written → response headers read.
//!
//! - **Machine stalls**: a thread of the client sleeps [`PROBE_SLEEP`] in a
//!   loop and records how late it wakes (as jHiccup does). On a shared VM
//!   the host may stop the guest for ms at a time; those stalls delay the
//!   server too, and this row shows how much of the error is the machine's.
//!
//! Streams start spread over one TPOT (`--stagger-ms`, 0 for all at once).
//! The run is bounded: every stream gets `--timeout-s` seconds (default 60).
//! The file-descriptor limit must allow 2 × streams (`ulimit -n`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lab_core::measure::stats::Samples;
use lab_core::stream::openai::{StreamItem, decode};
use lab_core::stream::sse::SseParser;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The server's own |sent − due| P99 must stay under this share of the
/// TPOT for the run to pass: at P99 a gap may shift by half of itself
/// (noisy hosts reach 6.5 ms at 1,000 streams, BENCHMARKS.md; a pace 25%
/// slow is 500 ms off by the 100th token).
const PACE_SHARE: f64 = 0.5;

/// Sleep of the stall probe.
const PROBE_SLEEP: Duration = Duration::from_micros(500);

/// Samples the machine's own stalls until `stop` is set: how late each
/// [`PROBE_SLEEP`] ends (ms).
fn stall_probe(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> std::thread::JoinHandle<Vec<f64>> {
    std::thread::spawn(move || {
        let mut late = Vec::new();
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let t = Instant::now();
            std::thread::sleep(PROBE_SLEEP);
            late.push(t.elapsed().saturating_sub(PROBE_SLEEP).as_secs_f64() * 1000.0);
        }
        late
    })
}

struct Opts {
    streams: usize,
    tokens: u32,
    tpot: f64,
    ttft: f64,
    timeout_s: u64,
    stagger_ms: f64,
    /// `serve --threads` (0 = one per core).
    server_threads: usize,
}

const USAGE: &str = "usage: load [--streams N] [--tokens N] [--tpot MS] [--ttft MS] \
                     [--timeout-s S] [--stagger-ms MS] [--server-threads N]";

/// Parses `--name value` pairs; an unknown name or a bad value prints the
/// usage and exits with status 2 (a typo must not run a different test).
fn opts() -> Opts {
    let mut o = Opts {
        streams: 1000,
        tokens: 100,
        tpot: 20.0,
        ttft: 200.0,
        timeout_s: 60,
        stagger_ms: f64::NAN,
        server_threads: 1,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bad = |msg: String| -> ! {
        eprintln!("{msg}\n{USAGE}");
        std::process::exit(2)
    };
    for w in args.chunks(2) {
        let name = w[0].as_str();
        let v = w.get(1).map(String::as_str).unwrap_or("");
        let ok = match name {
            "--streams" => v.parse().map(|x| o.streams = x).is_ok(),
            "--tokens" => v.parse().map(|x| o.tokens = x).is_ok(),
            "--tpot" => v.parse().map(|x| o.tpot = x).is_ok(),
            "--ttft" => v.parse().map(|x| o.ttft = x).is_ok(),
            "--timeout-s" => v.parse().map(|x| o.timeout_s = x).is_ok(),
            "--stagger-ms" => v.parse().map(|x| o.stagger_ms = x).is_ok(),
            "--server-threads" => v.parse().map(|x| o.server_threads = x).is_ok(),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0)
            }
            other => bad(format!("unknown option {other}")),
        };
        if !ok {
            bad(format!("{name}: not a valid value: {v:?}"));
        }
    }
    if o.stagger_ms.is_nan() {
        o.stagger_ms = o.tpot;
    }
    o
}

/// Where the chunked decoder is.
#[derive(Default, PartialEq)]
enum State {
    /// Reading a chunk-size line.
    #[default]
    Size,
    /// Inside a chunk, this many bytes left.
    Data(usize),
    /// The CRLF after a chunk.
    Crlf,
    /// The last (zero) chunk was read.
    Done,
}

/// Decodes HTTP/1.1 chunked transfer encoding incrementally.
#[derive(Default)]
struct Dechunker {
    buf: Vec<u8>,
    state: State,
}

impl Dechunker {
    fn done(&self) -> bool {
        self.state == State::Done
    }

    fn feed(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        self.buf.extend_from_slice(bytes);
        loop {
            match self.state {
                State::Done => return,
                State::Size => {
                    let Some(eol) = self.buf.windows(2).position(|w| w == b"\r\n") else { return };
                    let line = String::from_utf8_lossy(&self.buf[..eol]).to_string();
                    let size =
                        usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
                    self.buf.drain(..eol + 2);
                    self.state = if size == 0 { State::Done } else { State::Data(size) };
                }
                State::Data(left) => {
                    let n = left.min(self.buf.len());
                    out.extend(self.buf.drain(..n));
                    if n < left {
                        self.state = State::Data(left - n);
                        return;
                    }
                    self.state = State::Crlf;
                }
                State::Crlf => {
                    if self.buf.len() < 2 {
                        return;
                    }
                    self.buf.drain(..2);
                    self.state = State::Size;
                }
            }
        }
    }
}

/// One stream: arrival times (ms since the request was written) of content
/// events.
async fn stream(
    mut sock: TcpStream,
    port: u16,
    body: String,
    go: Instant,
) -> Result<(Vec<f64>, String, f64, f64), String> {
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let sent = go.elapsed().as_secs_f64() * 1000.0;
    sock.write_all(req.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut head = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut parser = SseParser::new();
    let mut dechunk = Dechunker::default();
    let mut arrivals = Vec::new();
    let mut payload = Vec::new();
    let mut in_body = false;
    let mut id = String::new();
    let mut headers_at = f64::NAN;
    loop {
        let n = sock.read(&mut buf).await.map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        let now = go.elapsed().as_secs_f64() * 1000.0 - sent;
        let mut bytes = &buf[..n];
        if !in_body {
            head.extend_from_slice(bytes);
            let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
            if !head.starts_with(b"HTTP/1.1 200") {
                return Err(String::from_utf8_lossy(&head[..head.len().min(200)]).into_owned());
            }
            in_body = true;
            headers_at = now;
            let rest = head.split_off(end + 4);
            let text = String::from_utf8_lossy(&head).to_lowercase();
            id = text
                .lines()
                .find_map(|l| l.strip_prefix("x-latency-lab-request-id:"))
                .map(|v| v.trim().to_string())
                .unwrap_or_default();
            payload.clear();
            dechunk.feed(&rest, &mut payload);
            bytes = &[];
        }
        dechunk.feed(bytes, &mut payload);
        for ev in parser.feed(&payload) {
            if let Ok(StreamItem::Chunk(c)) = decode(&ev.data)
                && !c.content.is_empty()
            {
                arrivals.push(now);
            }
        }
        payload.clear();
        if dechunk.done() {
            break;
        }
    }
    Ok((arrivals, id, sent, headers_at))
}

/// The server's own record of a request: `|sent − due|` of each chunk (ms).
async fn server_errors(port: u16, id: &str) -> Vec<f64> {
    let Ok(mut sock) = TcpStream::connect(("127.0.0.1", port)).await else { return Vec::new() };
    let req = format!("GET /v1/lab/requests/{id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    if sock.write_all(req.as_bytes()).await.is_err() {
        return Vec::new();
    }
    let mut all = Vec::new();
    let _ = sock.read_to_end(&mut all).await;
    let Some(at) = all.windows(4).position(|w| w == b"\r\n\r\n") else { return Vec::new() };
    let v: serde_json::Value = serde_json::from_slice(&all[at + 4..]).unwrap_or_default();
    v["chunks"]
        .as_array()
        .map(|cs| {
            cs.iter().filter_map(|c| Some((c["sent_ms"].as_f64()? - c["due_ms"].as_f64()?).abs())).collect()
        })
        .unwrap_or_default()
}

/// Prints one table row (P50, P99, max, count of `values`); returns the P99.
fn row(label: &str, values: &[f64]) -> Option<f64> {
    let s = Samples::from_finite(values.iter().copied());
    let ms = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.3}"));
    let p99 = s.percentile(99.0);
    let max = values.iter().copied().reduce(f64::max);
    println!("| {label} | {} | {} | {} | {} |", ms(s.percentile(50.0)), ms(p99), ms(max), values.len());
    p99
}

fn main() {
    let o = opts();
    let bin = std::env::var("LAB_BIN").unwrap_or_else(|_| "target/release/latency-lab".into());
    let dir = std::env::temp_dir().join(format!("lab-load-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let url_file = dir.join("url");
    // The request log is off unless `LAB_SERVE_ARGS` says otherwise (e.g.
    // `--log-format json` to measure its cost; empty for a build without
    // the flag).
    let extra = std::env::var("LAB_SERVE_ARGS").unwrap_or_else(|_| "--log-format off".into());
    let mut server = Command::new(&bin)
        .args(["serve", "--api-only", "--port", "0"])
        .args(extra.split_whitespace())
        .arg("--url-file")
        .arg(&url_file)
        .arg("--data")
        .arg(dir.join("data"))
        .args(["--threads", &o.server_threads.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {bin}: {e} (build it: cargo build --release -p latency-lab)")
        });
    let started = Instant::now();
    let url = loop {
        if let Ok(u) = std::fs::read_to_string(&url_file)
            && !u.trim().is_empty()
        {
            break u.trim().to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "serve did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    let port: u16 =
        url.rsplit(':').next().and_then(|p| p.trim_end_matches('/').parse().ok()).expect("port in the URL");
    let spec = format!("ttft={},tpot={},tokens={},jitter=constant", o.ttft, o.tpot, o.tokens);
    let body = format!(
        "{{\"model\":\"profile:{spec}\",\"stream\":true,\"messages\":[{{\"role\":\"user\",\"content\":\"hi\"}}]}}"
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let probe = stall_probe(std::sync::Arc::clone(&stop));
    // One thread: it needs about half a core at 1,000 streams, and a
    // multi-threaded client took both cores of a 2-core machine from the
    // server it measures (cross-thread wake-ups for every chunk).
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let results = rt.block_on(async {
        let mut socks = Vec::with_capacity(o.streams);
        for _ in 0..o.streams {
            socks.push(TcpStream::connect(("127.0.0.1", port)).await.expect("connect (check ulimit -n)"));
        }
        let go = Instant::now();
        let tasks: Vec<_> = socks
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let body = body.clone();
                // Streams start spread over one TPOT, as independent users
                // would; all at the same instant, every token of every
                // stream would be due at once.
                let offset = Duration::from_secs_f64(o.stagger_ms * i as f64 / o.streams as f64 / 1000.0);
                tokio::spawn(tokio::time::timeout(Duration::from_secs(o.timeout_s), async move {
                    tokio::time::sleep(offset).await;
                    stream(s, port, body, go).await
                }))
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(
                t.await.map_err(|e| e.to_string()).and_then(|r| r.map_err(|_| "timed out".to_string())?),
            );
        }
        let mut server = Vec::new();
        for r in &out {
            server.push(match r {
                Ok((_, id, _, _)) => server_errors(port, id).await,
                Err(_) => Vec::new(),
            });
        }
        (out, server)
    });
    let (results, server_per_stream) = results;
    // Steady state: from the moment the last stream got its first token
    // (before it, the server is still accepting and planning requests).
    let steady_from = results
        .iter()
        .flatten()
        .filter_map(|(arr, _, sent, _)| Some(sent + arr.first()?))
        .fold(0.0, f64::max);
    let server_err: Vec<f64> = server_per_stream.iter().flatten().copied().collect();
    let steady: Vec<f64> = results
        .iter()
        .zip(&server_per_stream)
        .filter_map(|(r, errs)| r.as_ref().ok().map(|(arr, _, sent, _)| (arr, *sent, errs)))
        .flat_map(|(arr, sent, errs)| {
            arr.iter().zip(errs).filter(move |(a, _)| sent + **a > steady_from).map(|(_, e)| *e)
        })
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let stalls = probe.join().unwrap_or_default();
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let mut pacing = Vec::new();
    let mut ttft_excess = Vec::new();
    let mut ttfb = Vec::new();
    let mut failed = 0;
    let mut short = 0;
    for r in &results {
        match r {
            Ok((arr, _, _, headers_at)) if arr.len() == o.tokens as usize => {
                ttft_excess.push(arr[0] - o.ttft);
                ttfb.push(*headers_at);
                for (k, a) in arr.iter().enumerate().skip(1) {
                    pacing.push(((a - arr[0]) - k as f64 * o.tpot).abs());
                }
            }
            Ok(_) => short += 1,
            Err(_) => failed += 1,
        }
    }
    println!(
        "\nlatency-lab serve under load: {} streams × {} tokens at {} ms/token (TTFT {} ms), started over {} ms, loopback, server threads: {}",
        o.streams,
        o.tokens,
        o.tpot,
        o.ttft,
        o.stagger_ms,
        if o.server_threads == 0 { "one per core".to_string() } else { o.server_threads.to_string() }
    );
    println!("\n| measure | P50 (ms) | P99 (ms) | max (ms) | values |");
    println!("|---|---:|---:|---:|---:|");
    row("pacing error \\|arrival − schedule\\|", &pacing);
    let server_p99 = row("server's own \\|sent − due\\| (ground truth)", &server_err);
    row(&format!("server's own, once every stream streams (from {steady_from:.0} ms)"), &steady);
    row("TTFT excess (queueing + set-up)", &ttft_excess);
    row("response headers (request sent → headers read)", &ttfb);
    let over = stalls.iter().filter(|&&v| v > 1.0).count();
    row(&format!("machine stalls (probe thread's oversleep; {over} over 1 ms)"), &stalls);
    println!("\nstreams complete: {}, short: {short}, failed: {failed}", results.len() - short - failed);
    // Checked: every stream complete, and the server keeps each stream's
    // cadence: its own |sent − due| P99 under PACE_SHARE of the TPOT (a
    // share of the pace, not absolute milliseconds: BENCHMARKS.md records
    // the absolute figures, which depend on the host).
    let bound = PACE_SHARE * o.tpot;
    let mut wrong = Vec::new();
    if failed + short > 0 {
        wrong.push(format!("{failed} stream(s) failed and {short} ended short"));
    }
    match server_p99 {
        Some(v) if v < bound => {}
        Some(v) => wrong.push(format!(
            "the server's |sent − due| P99 {v:.2} ms is not under {bound:.2} ms ({PACE_SHARE} × TPOT)"
        )),
        None => wrong.push("no ground truth was read from the server".into()),
    }
    if !wrong.is_empty() {
        eprintln!("load: {}", wrong.join("; "));
        std::process::exit(1);
    }
}
