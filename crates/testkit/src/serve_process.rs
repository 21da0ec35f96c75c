//! A `latency-lab serve --api-only` child process for the examples that
//! load it (`study_load`, `field_ingest`): started on a free port with its
//! data directory, its address read from `--url-file`, killed on drop.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A `serve` process (its address `host:port` in `.1`), killed on drop.
pub struct Serve(pub Child, pub String);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bin serve --api-only` on `data` with `extra` arguments.
pub fn serve(bin: &str, data: &Path, extra: &[&str]) -> Serve {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let url_file = data.with_extension(format!("url{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_file(&url_file);
    let child = Command::new(bin)
        .args(["serve", "--api-only", "--port", "0", "--log-format", "off", "--url-file"])
        .arg(&url_file)
        .arg("--data")
        .arg(data)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {bin}: {e} (build it: cargo build --release -p latency-lab)")
        });
    let mut server = Serve(child, String::new());
    let t0 = Instant::now();
    loop {
        if let Ok(u) = std::fs::read_to_string(&url_file)
            && !u.is_empty()
        {
            server.1 = u.trim().trim_start_matches("http://").trim_end_matches('/').to_string();
            return server;
        }
        assert!(t0.elapsed() < Duration::from_secs(20), "serve did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}
