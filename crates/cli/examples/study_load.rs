//! Load test of the study server: N simulated participants join a
//! published study at once and send every answer concurrently, against
//! SQLite and against PostgreSQL, and the write latency each answer saw.
//!
//! ```sh
//! cargo build --release -p latency-lab
//! cargo run --release -p latency-lab --example study_load -- --participants 200
//! ```
//!
//! It starts `target/release/latency-lab serve --api-only` (or `$LAB_BIN`)
//! on a fresh SQLite file, then (unless `--sqlite-only`) a throwaway
//! PostgreSQL cluster (Debian's `postgresql`, `fsync` on, as in
//! production) with **two** `serve` processes sharing it, participants
//! spread over both as a load balancer would. Each participant is a
//! thread: it joins, then sends its answers one after another with no
//! pause, and sends each answer a second time (a retry), which must change
//! nothing. Every run then checks that the study holds exactly one answer
//! per participant, trial and question.
//!
//! - **Write latency**: request written → response read, for the first
//!   send of each answer (HTTP/1.0, a new connection each time, as a
//!   browser that lost its connection would).
//! - **Join latency**: the same for joining (the server numbers the
//!   participant in a transaction).

use lab_testkit::pg_cluster;
use lab_testkit::serve_process;
use lab_testkit::study_client;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use lab_core::measure::stats::Samples;
use lab_core::study::Study;
use serve_process::serve;

struct Opts {
    participants: usize,
    sqlite_only: bool,
}

fn opts() -> Opts {
    let mut o = Opts { participants: 200, sqlite_only: false };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--participants" => {
                o.participants = args.get(i + 1).and_then(|v| v.parse().ok()).expect("--participants N");
                i += 1;
            }
            "--sqlite-only" => o.sqlite_only = true,
            other => panic!("unknown option {other} (--participants N, --sqlite-only)"),
        }
        i += 1;
    }
    o
}

/// What one run measured.
struct Run {
    writes: Vec<f64>,
    joins: Vec<f64>,
    stored: usize,
    expected: usize,
    wall_s: f64,
}

/// `participants` threads, spread over `addrs`, against one study.
fn drive(addrs: &[String], token: &str, participants: usize) -> Run {
    let study = Arc::new(Study::example());
    let id = study_client::publish(&addrs[0], token, &study);
    let t0 = Instant::now();
    let threads: Vec<_> = (0..participants)
        .map(|i| {
            let (addr, id, study) = (addrs[i % addrs.len()].clone(), id.clone(), Arc::clone(&study));
            std::thread::spawn(move || {
                let j0 = Instant::now();
                let (p, n) = study_client::join(&addr, &id);
                let join_ms = j0.elapsed().as_secs_f64() * 1000.0;
                let mut writes = Vec::new();
                for body in study_client::answers(&study, &p, n) {
                    let w0 = Instant::now();
                    let (code, text) = study_client::send(&addr, &id, &body).expect("the server answers");
                    writes.push(w0.elapsed().as_secs_f64() * 1000.0);
                    assert_eq!(code, 201, "{text}");
                    let (again, _) = study_client::send(&addr, &id, &body).expect("the server answers");
                    assert_eq!(again, 200, "a retry is a no-op");
                }
                (join_ms, writes, study_client::answers(&study, &p, n).len())
            })
        })
        .collect();
    let (mut writes, mut joins, mut expected) = (Vec::new(), Vec::new(), 0);
    for t in threads {
        let (j, w, n) = t.join().expect("a participant failed");
        joins.push(j);
        writes.extend(w);
        expected += n;
    }
    let wall_s = t0.elapsed().as_secs_f64();
    let r = study_client::results(&addrs[0], token, &id);
    let keys: HashSet<_> =
        r.responses.iter().map(|x| (x.participant.clone(), x.trial, x.question.clone())).collect();
    assert_eq!(keys.len(), r.responses.len(), "an answer stored twice");
    Run { writes, joins, stored: r.responses.len(), expected, wall_s }
}

fn row(name: &str, run: &Run) {
    let w = Samples::from_finite(run.writes.iter().copied());
    let j = Samples::from_finite(run.joins.iter().copied());
    let p = |s: &Samples, q: f64| s.percentile(q).unwrap_or(f64::NAN);
    println!(
        "| {name} | {} / {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} |",
        run.stored,
        run.expected,
        p(&w, 50.0),
        p(&w, 99.0),
        w.sorted().last().copied().unwrap_or(f64::NAN),
        p(&j, 50.0),
        p(&j, 99.0),
        run.writes.len() as f64 * 2.0 / run.wall_s,
    );
    assert_eq!(run.stored, run.expected, "every answer stored exactly once");
}

fn main() {
    let o = opts();
    let bin = std::env::var("LAB_BIN").unwrap_or_else(|_| "target/release/latency-lab".into());
    let dir = std::env::temp_dir().join(format!("lab-study-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let token_of =
        |data: &PathBuf| std::fs::read_to_string(data.join("researcher-token")).unwrap().trim().to_string();
    println!(
        "\nStudy server under load: {} participants join at once, each sends its answers back to back (and each once more as a retry)\n",
        o.participants
    );
    println!(
        "| database | stored / expected | write P50 ms | write P99 ms | write max ms | join P50 ms | join P99 ms | requests/s |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let sqlite_data = dir.join("sqlite");
    let s = serve(&bin, &sqlite_data, &[]);
    let run = drive(std::slice::from_ref(&s.1), &token_of(&sqlite_data), o.participants);
    row("SQLite (WAL, synchronous=FULL), 1 server", &run);
    drop(s);
    if !o.sqlite_only {
        let pg = pg_cluster::PgCluster::start_with("study-load", true);
        let pg_data = dir.join("pg");
        let token_file = pg_data.join("researcher-token");
        let args = ["--db", &pg.url(), "--token-file", token_file.to_str().unwrap()];
        let a = serve(&bin, &pg_data, &args);
        let b = serve(&bin, &pg_data, &args);
        let run = drive(&[a.1.clone(), b.1.clone()], &token_of(&pg_data), o.participants);
        row("PostgreSQL (fsync on), 2 servers sharing it", &run);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
