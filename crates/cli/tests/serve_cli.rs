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
