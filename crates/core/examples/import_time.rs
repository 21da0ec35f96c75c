//! Times each phase of importing a benchmark result file (for BENCHMARKS.md):
//! `cargo run --release -p lab-core --example import_time -- FILE`.

use std::time::Instant;

use lab_core::MetricsConfig;
use lab_core::import::{self, Imported};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: import_time FILE");
        std::process::exit(2);
    };
    let t = Instant::now();
    let bytes = std::fs::read(&path).expect("read");
    let read = t.elapsed();
    let t = Instant::now();
    let imported = import::import_bytes(&bytes).expect("import");
    let parse = t.elapsed();
    let Imported::Runs(runs) = imported else {
        println!("a lab trace");
        return;
    };
    let t = Instant::now();
    let m = runs[0].metrics(&MetricsConfig::default());
    let metrics = t.elapsed();
    let t = Instant::now();
    let c = import::compare(&runs[0], &m);
    let compare = t.elapsed();
    println!("| phase | ms |\n|---|---|");
    for (name, d) in
        [("read", read), ("parse + reconstruct", parse), ("metrics", metrics), ("compare", compare)]
    {
        println!("| {name} | {:.0} |", d.as_secs_f64() * 1000.0);
    }
    println!(
        "\n{} bytes, {} requests, {} ITL values, {} tool figures",
        bytes.len(),
        runs[0].requests.len(),
        runs[0].itl_ms.len(),
        c.len()
    );
}
