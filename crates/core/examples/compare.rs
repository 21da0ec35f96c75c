//! What measuring a comparison of endpoints costs (`measure::compare`):
//! 2 and 4 endpoints, 10, 30 and 100 rounds of 200-token answers, the
//! percentile bootstraps and the scenario scores' bootstraps together, as
//! the results view does once when a comparison ends.
//!
//! ```sh
//! cargo run --release -p lab-core --example compare
//! ```

use std::time::Instant;

use lab_core::measure::compare::Comparison;
use lab_core::replay::profile::Profile;
use lab_core::trace::Trace;

fn endpoint(ttft: u32, rounds: u32) -> Trace {
    let p: Profile = format!("ttft={ttft},tpot=20,tokens=200,jitter=lognormal").parse().expect("a profile");
    p.to_trace(rounds, 500)
}

fn main() {
    println!("| endpoints | rounds | requests | ms (best of 5) |");
    println!("|---:|---:|---:|---:|");
    for k in [2u32, 4] {
        for rounds in [10u32, 30, 100] {
            let traces: Vec<Trace> = (0..k).map(|i| endpoint(200 + 50 * i, rounds)).collect();
            let best = (0..5)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(Comparison::of(&traces));
                    t.elapsed().as_secs_f64() * 1e3
                })
                .fold(f64::INFINITY, f64::min);
            println!("| {k} | {rounds} | {} | {best:.1} |", k * rounds);
        }
    }
}
