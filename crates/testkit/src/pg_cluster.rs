//! A throwaway PostgreSQL cluster for tests: Debian's `postgresql`
//! binaries (`initdb`, `pg_ctl`), a data directory under the temp dir,
//! listening on 127.0.0.1 on a free port (and a Unix socket in that
//! directory), started as the `postgres` user when the tests run as root
//! (PostgreSQL refuses to run as root), stopped and deleted on drop.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A running cluster.
pub struct PgCluster {
    dir: PathBuf,
    port: u16,
    opts: String,
}

/// The newest installed version's binary `name`.
fn bin(name: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is not installed (./lab test installs Debian's postgresql)")
        .flatten()
        .map(|e| e.path().join("bin").join(name))
        .filter(|p| p.exists())
        .collect();
    versions.sort();
    versions.pop().unwrap_or_else(|| panic!("no {name} under /usr/lib/postgresql"))
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// A PostgreSQL tool, run as the user that may run it.
fn tool(name: &str) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin(name));
        c
    } else {
        Command::new(bin(name))
    }
}

/// Runs a PostgreSQL tool, which must succeed; what it printed.
fn run(name: &str, args: &[&str]) -> String {
    let out = tool(name).args(args).output().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(out.status.success(), "{name} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl PgCluster {
    /// Creates and starts a cluster named `name`, without `fsync` (tests:
    /// nothing here must survive a power cut).
    pub fn start(name: &str) -> Self {
        Self::start_with(name, false)
    }

    /// Creates and starts a cluster named `name`; `durable` keeps `fsync`
    /// on, as a production server has it (for benchmarks).
    pub fn start_with(name: &str, durable: bool) -> Self {
        let dir = std::env::temp_dir().join(format!("lab-pg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            let out = Command::new("chown").args(["postgres:postgres"]).arg(&dir).output().unwrap();
            assert!(out.status.success(), "chown: {}", String::from_utf8_lossy(&out.stderr));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let data = dir.join("data");
        let d = data.to_str().unwrap();
        run("initdb", &["-D", d, "-A", "trust", "-U", "postgres", "--no-sync"]);
        let fsync = if durable { "on" } else { "off" };
        let opts = format!("-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync={fsync}", dir.display());
        run("pg_ctl", &["-D", d, "-o", &opts, "-w", "-l", dir.join("log").to_str().unwrap(), "start"]);
        Self { dir, port, opts }
    }

    /// Stops the server (fast shutdown: clients are disconnected).
    pub fn stop(&self) {
        run("pg_ctl", &["-D", self.dir.join("data").to_str().unwrap(), "-m", "fast", "-w", "stop"]);
    }

    /// Stops the server at once, as a crash would (immediate shutdown:
    /// every client cut off, no checkpoint; recovery on the next start).
    pub fn stop_now(&self) {
        run("pg_ctl", &["-D", self.dir.join("data").to_str().unwrap(), "-m", "immediate", "-w", "stop"]);
    }

    /// The rows `sql` returns, one line each, columns separated by `|`.
    pub fn query(&self, sql: &str) -> String {
        let port = self.port.to_string();
        run("psql", &["-h", "127.0.0.1", "-p", &port, "-U", "postgres", "-d", "postgres", "-XAtc", sql])
    }

    /// Starts it again after [`Self::stop`] or [`Self::stop_now`], on the
    /// same data directory and port.
    pub fn restart(&self) {
        let d = self.dir.join("data");
        let log = self.dir.join("log");
        run(
            "pg_ctl",
            &["-D", d.to_str().unwrap(), "-o", &self.opts, "-w", "-l", log.to_str().unwrap(), "start"],
        );
    }

    /// Its URL (TCP on 127.0.0.1; `initdb -A trust` lets local clients in).
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn data(&self) -> &Path {
        &self.dir
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        // Already stopped (a test's `stop_now`) is fine: no panic in a drop.
        let data = self.data().join("data");
        let _ = tool("pg_ctl").arg("-D").arg(&data).args(["-m", "immediate", "stop"]).output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
