//! Shards of one run on one clock: a shard that reaches its `--start-at`
//! late starts at once but says so, on stderr and in its trace, and
//! `analyze --merge` refuses it, naming its file and shard with the figures;
//! a shard on time puts its 0 at `--start-at` exactly.

mod common;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{data_dir, start};
use lab_core::Trace;
use lab_core::trace::shard::{CLOCK_TOLERANCE_MS, ShardId, late_start_ms};

fn now_s() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

fn analyze(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_latency-lab")).arg("analyze").args(args).output().unwrap()
}

#[test]
fn a_shard_that_misses_its_start_says_so_and_its_merge_is_refused() {
    let srv = start(&[]);
    let dir = data_dir().with_extension("late");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("w.jsonl");
    let rows: Vec<String> = (0..6)
        .map(|i| format!("{{\"timestamp\": {}, \"input_length\": 50, \"output_length\": 3}}", i * 40))
        .collect();
    std::fs::write(&file, rows.join("\n") + "\n").unwrap();
    let start_at = format!("{:.3}", now_s() + 1.5);
    let at_ms = start_at.parse::<f64>().unwrap() * 1000.0;
    let shard = |i: u32| {
        let out = dir.join(format!("shard-{i}.trace.json"));
        let child = Command::new(env!("CARGO_BIN_EXE_latency-lab"))
            .args(["run", file.to_str().unwrap(), "--target", &format!("http://{}", srv.addr)])
            .args(["--model", "profile:ttft=5,tpot=2", "--quiet", "-o", out.to_str().unwrap()])
            .args(["--shard", &format!("{i}/2"), "--start-at", &start_at])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        (child, out)
    };
    let (on_time, on_time_out) = shard(0);
    // Shard 1 is started half a second after --start-at: it is in the past.
    std::thread::sleep(Duration::from_secs_f64((at_ms / 1000.0 + 0.5 - now_s()).max(0.0)));
    let (late, late_out) = shard(1);
    let (on_time, late) = (on_time.wait_with_output().unwrap(), late.wait_with_output().unwrap());
    for o in [&on_time, &late] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("3 requests sent (shard ") && out.contains(": 3 answered, 0 failed"), "{out}");
    }
    let said = String::from_utf8_lossy(&late.stderr);
    assert!(
        said.contains("latency-lab run: shard 1/2 started ") && said.contains(" ms after --start-at"),
        "{said}"
    );
    assert!(!String::from_utf8_lossy(&on_time.stderr).contains("after --start-at"));
    let read = |p: &std::path::Path| Trace::from_json(&std::fs::read_to_string(p).unwrap()).unwrap();
    let (a, b) = (read(&on_time_out), read(&late_out));
    // On time: 0 at --start-at exactly. Late: 0 when it started, recorded
    // beside --start-at, and a note.
    assert_eq!((a.meta.clock_epoch_ms, a.meta.start_at_ms), (Some(at_ms), Some(at_ms)));
    assert_eq!(a.meta.shard, Some(ShardId { index: 0, count: 2 }));
    assert!(a.meta.notes.is_empty(), "{:?}", a.meta.notes);
    assert_eq!((b.meta.start_at_ms, b.meta.shard), (Some(at_ms), Some(ShardId { index: 1, count: 2 })));
    let late_ms = late_start_ms(&b.meta).unwrap();
    assert!(late_ms > CLOCK_TOLERANCE_MS, "{late_ms} ms late");
    assert!(b.meta.notes.iter().any(|n| n.contains(" ms after --start-at")), "{:?}", b.meta.notes);
    // Read alone, the late shard shows its note.
    let o = analyze(&[late_out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("note: started "), "{o:?}");
    // Merged: refused, naming the late shard and its file.
    let merged = dir.join("run.trace.json");
    let o = analyze(&[
        on_time_out.to_str().unwrap(),
        late_out.to_str().unwrap(),
        "--merge",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let said = String::from_utf8_lossy(&o.stderr);
    let named = format!("cannot merge: shard 1/2 ({}) started ", late_out.display());
    assert!(said.contains(&named) && said.contains(" ms after its --start-at"), "{said}");
    assert!(!merged.exists(), "nothing written");
    // The shard on time merges.
    let o = analyze(&[on_time_out.to_str().unwrap(), "--merge", merged.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
