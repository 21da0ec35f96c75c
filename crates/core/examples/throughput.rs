//! Core throughput, measured side by side in one run:
//!
//! 1. **SSE parsing** of 64 MiB of OpenAI-style chat chunks, fed in 16 KiB
//!    pieces: `lab_core::stream::sse::SseParser` against the `eventsource-stream`
//!    crate (0.2, the parser `reqwest-eventsource` uses), both counting the
//!    same events.
//! 2. **Run statistics over 10 M ITL values** (mean, std, P50/P90/P95/P99):
//!    `lab_core::measure::stats::Samples::summary` against numpy (`np.mean`, `np.std`,
//!    `np.percentile`) on the very same values, when a `python3` with numpy
//!    is available (`$PYTHON` picks one); the results must agree.
//! 3. **Decoding every wire** as Live reads it (framing, the wire's decoder
//!    and the recorder: `Recorder::with_wire(..).on_bytes`), 16 MiB of each
//!    wire's stream as the replay endpoint writes it (one token per event,
//!    OpenAI Chat as OpenAI writes it), fed in 16 KiB pieces: MB/s and
//!    tokens/s beside Chat's.
//!
//! ```sh
//! cargo run --release -p lab-core --example throughput
//! ```
//! Prints a Markdown table; best of 3 runs each.

use std::time::Instant;

use futures::StreamExt;
use lab_core::measure::stats::Samples;
use lab_core::replay::rng::Rng;
use lab_core::stream::record::Recorder;
use lab_core::stream::sse::SseParser;
use lab_core::stream::wire::encode::{Finish, Totals, WireEncoder};
use lab_core::stream::wire::{WIRES, Wire};
use lab_core::trace::ChunkKind;

/// SSE input size.
pub const SSE_BYTES: usize = 64 << 20;
/// Piece size fed to the parsers.
pub const PIECE: usize = 16 << 10;
/// ITL values for the statistics.
pub const VALUES: usize = 10_000_000;

/// One OpenAI chat chunk event of token `i` (` tok{i}`), as OpenAI writes it.
fn chat_event(i: u64) -> String {
    format!(
        "data: {{\"id\":\"chatcmpl-{i}\",\"object\":\"chat.completion.chunk\",\"created\":1733140000,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\" tok{i}\"}},\"finish_reason\":null}}]}}\n\n"
    )
}

fn sse_input() -> Vec<u8> {
    let mut out = Vec::with_capacity(SSE_BYTES + 512);
    let mut i = 0u64;
    while out.len() < SSE_BYTES {
        out.extend_from_slice(chat_event(i).as_bytes());
        i += 1;
    }
    out
}

fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(v);
    }
    (best, last.expect("n ≥ 1"))
}

fn main() {
    let input = sse_input();
    let mb = input.len() as f64 / (1 << 20) as f64;
    let (lab_s, lab_events) = best_of(3, || {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        let mut n = 0usize;
        for piece in input.chunks(PIECE) {
            out.clear();
            p.feed_into(piece, &mut out);
            n += out.len();
        }
        n
    });
    let (es_s, es_events) = best_of(3, || {
        let pieces = futures::stream::iter(input.chunks(PIECE).map(Ok::<&[u8], std::convert::Infallible>));
        futures::executor::block_on(async {
            let mut s = eventsource_stream::Eventsource::eventsource(pieces);
            let mut n = 0usize;
            while let Some(ev) = s.next().await {
                if ev.is_ok() {
                    n += 1;
                }
            }
            n
        })
    });
    assert_eq!(lab_events, es_events, "both parsers must see the same events");

    let mut rng = Rng::new(7);
    let values: Vec<f64> = (0..VALUES).map(|_| rng.lognormal(20.0, 0.6)).collect();
    let (stats_s, summary) =
        best_of(3, || Samples::from_finite(values.iter().copied()).summary().expect("values"));
    let numpy = numpy_stats(&values);

    println!("\n| benchmark | Latency Lab | baseline | ratio |");
    println!("|---|---:|---:|---:|");
    println!(
        "| SSE parse, {mb:.0} MiB, {lab_events} events, {} KiB pieces | {:.0} MB/s | eventsource-stream 0.2: {:.0} MB/s | {:.1}× |",
        PIECE >> 10,
        mb / lab_s,
        mb / es_s,
        es_s / lab_s
    );
    match numpy {
        Some((np_s, np_vals)) => {
            let ours = [summary.mean, summary.std, summary.p50, summary.p90, summary.p95, summary.p99];
            let max_diff = ours.iter().zip(&np_vals).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            println!(
                "| mean, std, P50/P90/P95/P99 of 10 M ITL values | {:.0} ms | numpy: {:.0} ms | {:.1}× |",
                stats_s * 1000.0,
                np_s * 1000.0,
                np_s / stats_s
            );
            println!("\nLargest difference from numpy over the six figures: {max_diff:.3e} ms.");
            assert!(max_diff < 1e-9, "figures differ from numpy by {max_diff}");
        }
        None => println!(
            "| mean, std, P50/P90/P95/P99 of 10 M ITL values | {:.0} ms | numpy: not available | – |",
            stats_s * 1000.0
        ),
    }
    wire_rows();
}

/// Bytes of each wire's stream decoded per wire.
pub const WIRE_BYTES: usize = 16 << 20;

/// About [`WIRE_BYTES`] of `wire`'s stream, one token per event, and its tokens.
fn wire_input(wire: Wire) -> (Vec<u8>, usize) {
    let mut enc = WireEncoder::new(wire, "r1", "m", 0);
    let mut out = if wire == Wire::Chat { Vec::new() } else { enc.head(10, 0).into_bytes() };
    let mut tokens = 0;
    while out.len() < WIRE_BYTES {
        if wire == Wire::Chat {
            out.extend_from_slice(chat_event(tokens as u64).as_bytes());
        } else {
            out.extend_from_slice(enc.piece(ChunkKind::Content, &format!(" tok{tokens}"), None).as_bytes());
        }
        tokens += 1;
    }
    if wire == Wire::Chat {
        out.extend_from_slice(b"data: [DONE]\n\n");
    } else {
        let totals = Totals { prompt: 10, completion: tokens as u64, ..Totals::default() };
        out.extend_from_slice(enc.tail(Finish::Stop, totals).as_bytes());
    }
    (out, tokens)
}

/// Each wire decoded as Live decodes it: MB/s and tokens/s, best of 3.
fn wire_rows() {
    println!("\n| wire (as Live reads it) | MiB | tokens | MB/s | M tokens/s | vs Chat (MB/s) |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut chat = None;
    for wire in WIRES {
        let (input, tokens) = wire_input(wire);
        let (s, chunks) = best_of(3, || {
            let mut rec = Recorder::with_wire(0.0, wire);
            let mut n = 0usize;
            for (i, piece) in input.chunks(PIECE).enumerate() {
                n += rec.on_bytes(i as f64, piece).len();
            }
            n
        });
        // Plain text has no events: a read is one piece of text.
        if wire != Wire::Text {
            assert_eq!(chunks, tokens, "{wire:?}: every token read");
        }
        let mb = input.len() as f64 / (1 << 20) as f64;
        let rate = mb / s;
        let chat_rate = *chat.get_or_insert(rate);
        println!(
            "| {} | {mb:.0} | {tokens} | {rate:.0} | {:.2} | {:.2}× |",
            wire.name(),
            tokens as f64 / s / 1e6,
            rate / chat_rate
        );
    }
}

/// numpy's time (best of 3, computing only) and figures for the same values.
fn numpy_stats(values: &[f64]) -> Option<(f64, Vec<f64>)> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let path = std::env::temp_dir().join(format!("lab-values-{}.f64", std::process::id()));
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&path, bytes).ok()?;
    let script = "import sys,time,numpy as np\n\
v=np.fromfile(sys.argv[1],dtype='<f8')\n\
best=1e9\n\
for _ in range(3): t=time.perf_counter(); r=[np.mean(v),np.std(v)]+list(np.percentile(v,[50,90,95,99])); best=min(best,time.perf_counter()-t)\n\
print(best, *[repr(float(x)) for x in r])\n";
    let out = std::process::Command::new(python).args(["-c", script]).arg(&path).output().ok();
    let _ = std::fs::remove_file(&path);
    let out = out?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let nums: Vec<f64> = text.split_whitespace().filter_map(|t| t.parse().ok()).collect();
    (nums.len() == 7).then(|| (nums[0], nums[1..].to_vec()))
}
