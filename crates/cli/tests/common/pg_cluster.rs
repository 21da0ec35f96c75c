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

/// Runs a PostgreSQL tool as the user that may run it.
fn run(tool: &str, args: &[&str]) {
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin(tool));
        c
    } else {
        Command::new(bin(tool))
    };
    let out = cmd.args(args).output().unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(out.status.success(), "{tool} failed: {}", String::from_utf8_lossy(&out.stderr));
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

    /// Starts it again after [`Self::stop`], on the same port.
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
        let data = self.data().join("data");
        let _ = std::panic::catch_unwind(|| {
            run("pg_ctl", &["-D", data.to_str().unwrap(), "-m", "immediate", "stop"])
        });
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
