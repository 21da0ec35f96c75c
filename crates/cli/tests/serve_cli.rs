//! `latency-lab serve`: serves a dist folder on 127.0.0.1 with the
//! cross-origin isolation headers, and refuses to start without a build.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lab-serve-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn serves_files_with_isolation_headers() {
    let dist = temp_dir("dist");
    std::fs::write(dist.join("index.html"), "<title>Latency Lab</title>").unwrap();
    std::fs::write(dist.join("app.js"), "console.log(1)").unwrap();
    let url_file = dist.join("url.txt");
    let child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--port", "0", "--dist"])
        .arg(&dist)
        .arg("--url-file")
        .arg(&url_file)
        .arg("--data")
        .arg(dist.join("data"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let _server = Server(child);
    let start = Instant::now();
    let url = loop {
        if let Ok(u) = std::fs::read_to_string(&url_file)
            && !u.is_empty()
        {
            break u;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "server did not start");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let index = get(addr, "/");
    assert!(index.starts_with("HTTP/1.1 200"), "{index}");
    let lower = index.to_ascii_lowercase();
    assert!(lower.contains("cross-origin-opener-policy: same-origin"));
    assert!(lower.contains("cross-origin-embedder-policy: require-corp"));
    assert!(get(addr, "/app.js").contains("console.log(1)"));
    assert!(get(addr, "/deep/link").contains("<title>Latency Lab</title>"), "SPA fallback");
    assert!(get(addr, "/healthz").ends_with("ok"));
    assert!(get(addr, "/health").ends_with("ok"), "vLLM-style /health for benchmark tools");
}

#[test]
fn refuses_to_start_without_a_build() {
    let empty = temp_dir("empty");
    let out = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--port", "0", "--dist"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("build the app first"));
}

#[test]
fn refuses_a_port_another_process_listens_on() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let data = temp_dir("taken");
    let out = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--api-only", "--port", &port, "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen"), "{out:?}");
}

#[test]
fn an_unreachable_study_database_is_named_without_its_password() {
    let data = temp_dir("no-db");
    let out = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args([
            "serve",
            "--api-only",
            "--port",
            "0",
            "--db",
            "postgres://bob:hunter2@127.0.0.1:1/studies",
            "--data",
        ])
        .arg(&data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("Connection refused") && err.contains("postgres://bob:***@127.0.0.1:1/studies"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
        .args(["serve", "--api-only", "--port", "0", "--db", "mysql://x", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be postgres://"), "{out:?}");
}

/// A serve whose stdout is kept as it is printed.
struct Printed {
    server: Server,
    out: std::sync::Arc<std::sync::Mutex<String>>,
    reader: std::thread::JoinHandle<()>,
}

impl Printed {
    fn start(dist: &std::path::Path, data: &std::path::Path, extra: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
            .args(["serve", "--port", "0", "--log-format", "off", "--dist"])
            .arg(dist)
            .arg("--data")
            .arg(data)
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = std::sync::Arc::clone(&out);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Self { server: Server(child), out, reader }
    }

    /// Stops it; everything it printed.
    fn stop(self) -> String {
        drop(self.server);
        self.reader.join().unwrap();
        self.out.lock().unwrap().clone()
    }

    /// The rest of the first printed line that starts with `start`.
    fn line(&self, start: &str) -> String {
        let t0 = Instant::now();
        loop {
            if let Some(l) = self.out.lock().unwrap().lines().find(|l| l.starts_with(start)) {
                return l[start.len()..].to_string();
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "no line {start:?} in {}",
                self.out.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The app's address, `127.0.0.1:PORT`.
    fn addr(&self) -> String {
        let l = self.line("Latency Lab is running at http://");
        l.split('/').next().unwrap().to_string()
    }
}

/// The status line of an empty OTLP batch sent as the demo page's snippet
/// sends it (a `text/plain` beacon with `?key=`) from `origin`.
fn send_empty_batch(addr: &str, key: &str, origin: &str) -> String {
    let body = r#"{"resourceSpans":[]}"#;
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /v1/traces?key={key} HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out.lines().next().unwrap_or_default().to_string()
}

#[test]
fn the_demo_page_gets_a_field_site_on_any_port_and_data_directory() {
    let dist = temp_dir("demo-dist");
    std::fs::write(dist.join("index.html"), "<title>Latency Lab</title>").unwrap();
    std::fs::create_dir_all(dist.join("examples/chat")).unwrap();
    std::fs::write(dist.join("examples/chat/index.html"), "<title>chat</title>").unwrap();
    std::fs::create_dir_all(dist.join("examples/ai-sdk")).unwrap();
    std::fs::write(dist.join("examples/ai-sdk/index.html"), "<title>AI SDK chat</title>").unwrap();
    std::fs::create_dir_all(dist.join("docs")).unwrap();
    std::fs::write(dist.join("docs/index.html"), "<title>Latency Lab docs</title>").unwrap();
    let data = temp_dir("demo-data").join("elsewhere");
    let _ = std::fs::remove_dir_all(&data);

    let page = "Demo chat page (its answers go to Field): ";
    let first = Printed::start(&dist, &data, &[]);
    let (addr, url) = (first.addr(), first.line(page));
    let key = url
        .strip_prefix(&format!("http://{addr}/examples/chat/#key="))
        .unwrap_or_else(|| panic!("the page's address on this serve's port: {url}"))
        .to_string();
    assert!(key.starts_with("llk_"), "{url}");
    // The book, when the build has it, at /docs/.
    assert_eq!(
        first.line("Docs: "),
        format!("http://{addr}/docs/  (every route also as http://{addr}/openapi.json)")
    );
    let ai_sdk = first.line("AI SDK chat page (React, useChat) (its answers go to Field): ");
    assert_eq!(ai_sdk, format!("http://{addr}/examples/ai-sdk/#key={key}"), "the built pages, one key");
    assert_eq!(std::fs::read_to_string(data.join("field-demo-key")).unwrap().trim(), key);
    let port = addr.rsplit(':').next().unwrap().to_string();
    for origin in [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")] {
        assert!(send_empty_batch(&addr, &key, &origin).contains(" 200 "), "{origin} may send");
    }
    assert!(send_empty_batch(&addr, &key, "http://127.0.0.1:1").contains(" 403 "), "another origin may not");
    drop(first);

    // Another port, the same data directory: the same key, both ports' pages send.
    let second = Printed::start(&dist, &data, &[]);
    let (addr2, url2) = (second.addr(), second.line(page));
    assert_ne!(addr2, addr);
    assert_eq!(url2, format!("http://{addr2}/examples/chat/#key={key}"));
    for origin in [format!("http://127.0.0.1:{port}"), format!("http://{addr2}")] {
        assert!(send_empty_batch(&addr2, &key, &origin).contains(" 200 "), "{origin} may send");
    }
    drop(second);

    // A key file lost: the site's key is someone else's now, and serve says so.
    std::fs::remove_file(data.join("field-demo-key")).unwrap();
    let third = Printed::start(&dist, &data, &[]);
    let said = third.line("Demo chat page: no field data: ");
    assert!(said.contains("a field site named \"demo\" exists") && said.contains("field-demo-key"), "{said}");
    drop(third);

    // Without the app there is no page to offer.
    let api = Printed::start(&dist, &data, &["--api-only"]);
    // Serving means every line of the start was printed.
    assert_eq!(lab_testkit::http::call(&api.addr(), "GET", "/healthz", &[], b"").0, 200);
    let printed = api.stop();
    assert!(printed.contains("replay endpoint") && !printed.contains("Demo chat page"), "{printed}");
    assert!(!printed.contains("Docs: "), "no book without the app: {printed}");
}
