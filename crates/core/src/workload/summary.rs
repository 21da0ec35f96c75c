//! What a workload holds, accumulated one request at a time in bounded
//! memory (a 1,000,000-row file is summarised without keeping its rows):
//!
//! - **request rate over time**: requests per second of the trace's own
//!   clock, from its first row ([`Summary::rate_series`]); the mean rate,
//!   the busiest second, and the burstiness as the coefficient of variation
//!   of the gaps between sends (1 for Poisson arrivals, above 1 bursty);
//! - **input and output lengths**: their distributions ([`Lengths`]:
//!   exact below 128 tokens, within 1/64 above);
//! - **sessions and turns**: conversations and how many requests each has;
//! - **prefix reuse**: the share of `hash_ids` blocks seen before in the
//!   file, which is what a prefix cache without a size limit would find,
//!   and the prompt tokens that saves.
//!
//! Why not the `hdrhistogram` crate for the lengths: forty lines do it
//! exactly below 128 and within 1.6% above, with no new dependency in the
//! app's WebAssembly (whose size has a budget).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::format::Layout;
use super::{Format, Request, WorkloadError};

/// Exact buckets (token counts below this are counted one by one).
const EXACT: u64 = 128;
/// Sub-buckets per power of two above [`EXACT`] (precision 1/64).
const SUB: u64 = 64;

/// A distribution of token counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lengths {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    max: u32,
}

fn bucket(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let exp = 63 - u64::from(v.leading_zeros());
    let sub = (v >> (exp - 6)) & (SUB - 1);
    (EXACT + (exp - 7) * SUB + sub) as usize
}

/// The smallest value of bucket `i`.
fn floor_of(i: usize) -> u64 {
    let i = i as u64;
    if i < EXACT {
        return i;
    }
    let exp = (i - EXACT) / SUB + 7;
    let sub = (i - EXACT) % SUB;
    (SUB + sub) << (exp - 6)
}

impl Lengths {
    /// Counts `v`.
    pub fn add(&mut self, v: u32) {
        let b = bucket(u64::from(v));
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
        self.sum += u128::from(v);
        self.max = self.max.max(v);
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Their mean.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// The largest.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// The `p`-th percentile (0–100): the smallest bucket holding it
    /// (exact below 128; above, the bucket's lower bound, within 1/64).
    pub fn percentile(&self, p: f64) -> Option<u32> {
        if self.n == 0 {
            return None;
        }
        let rank = ((p / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(u32::try_from(floor_of(i)).unwrap_or(u32::MAX).min(self.max));
            }
        }
        Some(self.max)
    }
}

/// Block ids seen so far. The formats number blocks with consecutive
/// integers from 0, so small ids go in a bitset (an id costs one bit: 9
/// million blocks in about a megabyte); any others in a set.
#[derive(Debug, Clone, Default)]
struct SeenBlocks {
    bits: Vec<u64>,
    others: HashSet<u64>,
}

/// Ids below this go in the bitset (at most 32 MiB of it).
const BITSET_IDS: u64 = 1 << 28;

impl SeenBlocks {
    /// Marks `id` seen; false when it was already.
    fn insert(&mut self, id: u64) -> bool {
        if id >= BITSET_IDS {
            return self.others.insert(id);
        }
        let (word, bit) = ((id / 64) as usize, 1u64 << (id % 64));
        if self.bits.len() <= word {
            self.bits.resize((word + 1).next_power_of_two(), 0);
        }
        let fresh = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        fresh
    }
}

/// A workload's summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// The format it was read as.
    pub format: Option<Format>,
    /// Requests.
    pub requests: u64,
    /// Its first row's send time (ms, the file's clock).
    pub start_ms: Option<f64>,
    /// The latest send time (ms).
    pub end_ms: f64,
    /// Rows sent before the first row (out of time order).
    pub out_of_order: u64,
    /// Requests per second of the trace, from `start_ms`.
    per_second: Vec<u32>,
    last_ms: Option<f64>,
    /// Gaps between consecutive sends: count, mean and M2 (Welford).
    gaps: (u64, f64, f64),
    /// Prompt lengths.
    pub input: Lengths,
    /// Answer lengths.
    pub output: Lengths,
    /// Requests of each session.
    sessions: HashMap<u64, u32>,
    /// Blocks seen so far.
    seen: SeenBlocks,
    /// Blocks in every request's `hash_ids`.
    pub blocks: u64,
    /// Blocks seen before in the file.
    pub blocks_reused: u64,
    /// Prompt tokens of the reused blocks (at most each prompt's length).
    pub tokens_reused: u64,
    /// Requests whose counts are approximations.
    pub approximate: u64,
    /// Requests asking for no output.
    pub zero_output: u64,
}

impl Summary {
    /// An empty summary of a `format` workload.
    pub fn new(format: Format) -> Self {
        Self { format: Some(format), ..Self::default() }
    }

    /// Whether the rows carry send times (ShareGPT has none).
    pub fn timed(&self) -> bool {
        self.format.is_none_or(Format::timed)
    }

    /// Counts one request.
    pub fn add(&mut self, r: &Request) {
        self.requests += 1;
        self.input.add(r.input_tokens);
        self.output.add(r.output_tokens);
        self.approximate += u64::from(r.approximate);
        self.zero_output += u64::from(r.output_tokens == 0);
        if let Some(s) = r.session {
            *self.sessions.entry(s).or_insert(0) += 1;
        }
        if !r.hash_ids.is_empty() {
            let block = u64::from(self.format.and_then(Format::block_tokens).unwrap_or(0));
            let mut reused = 0u64;
            for id in &r.hash_ids {
                if !self.seen.insert(*id) {
                    reused += 1;
                }
            }
            self.blocks += r.hash_ids.len() as u64;
            self.blocks_reused += reused;
            self.tokens_reused += (reused * block).min(u64::from(r.input_tokens));
        }
        if self.timed() {
            self.time(r.at_ms);
        }
    }

    fn time(&mut self, at: f64) {
        let start = *self.start_ms.get_or_insert(at);
        if at < start {
            self.out_of_order += 1;
        }
        self.end_ms = self.end_ms.max(at);
        let second = ((at - start).max(0.0) / 1000.0) as usize;
        if self.per_second.len() <= second {
            self.per_second.resize(second + 1, 0);
        }
        self.per_second[second] += 1;
        if let Some(last) = self.last_ms.replace(at) {
            let gap = (at - last).max(0.0);
            let (n, mean, m2) = &mut self.gaps;
            *n += 1;
            let d = gap - *mean;
            *mean += d / *n as f64;
            *m2 += d * (gap - *mean);
        }
    }

    /// From the first send to the last (s).
    pub fn duration_s(&self) -> f64 {
        self.start_ms.map_or(0.0, |s| (self.end_ms - s) / 1000.0)
    }

    /// Requests a second over the whole trace.
    pub fn mean_rate(&self) -> Option<f64> {
        let d = self.duration_s();
        (self.timed() && d > 0.0).then(|| self.requests as f64 / d)
    }

    /// The busiest second's requests.
    pub fn peak_rate(&self) -> u32 {
        self.per_second.iter().copied().max().unwrap_or(0)
    }

    /// Coefficient of variation of the gaps between sends (1: Poisson).
    pub fn burstiness(&self) -> Option<f64> {
        let (n, mean, m2) = self.gaps;
        (n > 1 && mean > 0.0).then(|| (m2 / (n - 1) as f64).sqrt() / mean)
    }

    /// Request rate over time in at most `points` steps: (step start in s
    /// from the first send, requests a second in it).
    pub fn rate_series(&self, points: usize) -> Vec<(f64, f64)> {
        let n = self.per_second.len();
        if n == 0 || points == 0 {
            return Vec::new();
        }
        let width = n.div_ceil(points);
        self.per_second
            .chunks(width)
            .enumerate()
            .map(|(i, c)| ((i * width) as f64, f64::from(c.iter().sum::<u32>()) / c.len() as f64))
            .collect()
    }

    /// Sessions (conversations).
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Requests per session: mean and most.
    pub fn turns(&self) -> Option<(f64, u32)> {
        let n = self.sessions.len();
        (n > 0).then(|| {
            let total: u64 = self.sessions.values().map(|&t| u64::from(t)).sum();
            (total as f64 / n as f64, self.sessions.values().copied().max().unwrap_or(0))
        })
    }

    /// Share of blocks seen before (what an unbounded prefix cache finds).
    pub fn prefix_reuse(&self) -> Option<f64> {
        (self.blocks > 0).then(|| self.blocks_reused as f64 / self.blocks as f64)
    }

    /// Share of all prompt tokens those reused blocks hold.
    pub fn tokens_saved_share(&self) -> Option<f64> {
        let total = self.input.sum;
        (self.blocks > 0 && total > 0).then(|| self.tokens_reused as f64 / total as f64)
    }
}

/// One length distribution as a digest shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthDigest {
    /// Mean.
    pub mean: Option<f64>,
    /// Median.
    pub p50: Option<u32>,
    /// 90th percentile.
    pub p90: Option<u32>,
    /// 99th percentile.
    pub p99: Option<u32>,
    /// Longest.
    pub max: u32,
}

impl LengthDigest {
    fn of(l: &Lengths) -> Self {
        Self {
            mean: l.mean(),
            p50: l.percentile(50.0),
            p90: l.percentile(90.0),
            p99: l.percentile(99.0),
            max: l.max(),
        }
    }
}

/// A point of the request rate over time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatePoint {
    /// Step start (s from the first send).
    pub t_s: f64,
    /// Requests a second in the step.
    pub per_s: f64,
}

/// What a workload holds, as `latency-lab analyze --json` and the Import
/// view show it (one definition for both).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    /// The format's name.
    pub format: Option<String>,
    /// Requests.
    pub requests: u64,
    /// From the first send to the last (s; untimed files: none).
    pub duration_s: Option<f64>,
    /// Requests a second.
    pub mean_rate: Option<f64>,
    /// The busiest second's requests.
    pub peak_rate_1s: Option<u32>,
    /// CV of the gaps between sends (Poisson = 1).
    pub burstiness_cv: Option<f64>,
    /// Request rate over time.
    pub rate_over_time: Vec<RatePoint>,
    /// Prompt lengths (tokens).
    pub input_tokens: LengthDigest,
    /// Answer lengths (tokens).
    pub output_tokens: LengthDigest,
    /// Requests whose counts are approximations.
    pub approximate_counts: u64,
    /// Requests asking for no output.
    pub zero_output: u64,
    /// Sessions (conversations).
    pub sessions: usize,
    /// Requests per session, mean.
    pub turns_mean: Option<f64>,
    /// Requests per session, most.
    pub turns_max: Option<u32>,
    /// Prefix blocks in all.
    pub blocks: u64,
    /// Share of blocks seen before.
    pub prefix_reuse: Option<f64>,
    /// Share of prompt tokens those blocks hold.
    pub prompt_tokens_saved: Option<f64>,
    /// Rows sent before the first row.
    pub out_of_order: u64,
}

impl Summary {
    /// The digest, with the rate over time in at most `points` steps.
    pub fn digest(&self, points: usize) -> Digest {
        let timed = self.mean_rate().is_some();
        Digest {
            format: self.format.map(|f| f.label().to_string()),
            requests: self.requests,
            duration_s: timed.then(|| self.duration_s()),
            mean_rate: self.mean_rate(),
            peak_rate_1s: timed.then(|| self.peak_rate()),
            burstiness_cv: self.burstiness(),
            rate_over_time: self
                .rate_series(points)
                .into_iter()
                .map(|(t_s, per_s)| RatePoint { t_s, per_s })
                .collect(),
            input_tokens: LengthDigest::of(&self.input),
            output_tokens: LengthDigest::of(&self.output),
            approximate_counts: self.approximate,
            zero_output: self.zero_output,
            sessions: self.sessions(),
            turns_mean: self.turns().map(|t| t.0),
            turns_max: self.turns().map(|t| t.1),
            blocks: self.blocks,
            prefix_reuse: self.prefix_reuse(),
            prompt_tokens_saved: self.tokens_saved_share(),
            out_of_order: self.out_of_order,
        }
    }
}

/// A workload summarised from its bytes as they are read (a file read a
/// slice at a time, as the browser's import worker does): line formats
/// chunk by chunk in bounded memory, a line split between chunks carried
/// over; ShareGPT (one JSON document) whole, its tokens counted as the
/// lab's pseudo tokens (marked approximate).
#[derive(Debug)]
pub struct Reading {
    lines: Option<super::read::LineReader>,
    carry: Vec<u8>,
    whole: Vec<u8>,
    summary: Summary,
}

impl Reading {
    /// A reading of a `format` workload.
    pub fn new(format: Format) -> Self {
        let lines = format.lines().then(|| super::read::LineReader::new(format));
        Self { lines, carry: Vec::new(), whole: Vec::new(), summary: Summary::new(format) }
    }

    /// The next bytes of the file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), WorkloadError> {
        if self.lines.is_none() {
            self.whole.extend_from_slice(chunk);
            return Ok(());
        }
        let mut start = 0;
        for (i, _) in chunk.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            self.carry.extend_from_slice(&chunk[start..=i]);
            self.line()?;
            start = i + 1;
        }
        self.carry.extend_from_slice(&chunk[start..]);
        if self.carry.len() > super::read::MAX_LINE_BYTES + 2 {
            let line = self.lines.as_ref().map_or(0, |l| l.lines()) + 1;
            let expected = format!("a line of at most {} bytes", super::read::MAX_LINE_BYTES);
            return Err(WorkloadError::row(line, expected));
        }
        Ok(())
    }

    fn line(&mut self) -> Result<(), WorkloadError> {
        let Some(reader) = self.lines.as_mut() else { return Ok(()) };
        let text = std::str::from_utf8(&self.carry)
            .map_err(|_| WorkloadError::row(reader.lines() + 1, "UTF-8 text"))?;
        if let Some(r) = reader.line(text)? {
            self.summary.add(&r);
        }
        self.carry.clear();
        Ok(())
    }

    /// The end of the file: the summary, or why there is none.
    pub fn finish(mut self) -> Result<Summary, WorkloadError> {
        if self.lines.is_some() && !self.carry.is_empty() {
            self.line()?;
        }
        if self.lines.is_none() {
            let summary = &mut self.summary;
            let mut de = serde_json::Deserializer::from_slice(&self.whole);
            match summary.format.map(|f| &f.spec().layout) {
                Some(Layout::Trace) => {
                    let text = std::str::from_utf8(&self.whole)
                        .map_err(|_| WorkloadError::Unknown("a lab trace is UTF-8 text".into()))?;
                    super::read::lab_trace(text)?.iter().for_each(|r| summary.add(r));
                }
                Some(Layout::Conversations) | None => {
                    super::read::sharegpt(&mut de, None, &mut |r| summary.add(&r))?;
                }
                // Read a line at a time as the bytes came.
                Some(Layout::JsonLines(_) | Layout::Csv { .. }) => {}
            }
        }
        if self.summary.requests == 0 {
            return Err(WorkloadError::Empty);
        }
        Ok(self.summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(at_ms: f64, input: u32, output: u32, ids: &[u64]) -> Request {
        Request {
            at_ms,
            input_tokens: input,
            output_tokens: output,
            hash_ids: ids.to_vec(),
            ..Request::default()
        }
    }

    #[test]
    fn lengths_are_exact_below_128_and_within_a_64th_above() {
        let mut l = Lengths::default();
        for v in 1..=100 {
            l.add(v);
        }
        assert_eq!(
            (l.percentile(50.0), l.percentile(99.0), l.percentile(100.0)),
            (Some(50), Some(99), Some(100))
        );
        assert_eq!(l.mean(), Some(50.5));
        for v in [128u64, 129, 1000, 6755, 100_000, 4_000_000_000] {
            let f = floor_of(bucket(v));
            assert!(f <= v && (v - f) as f64 <= v as f64 / 64.0, "{v} → {f}");
        }
        let mut big = Lengths::default();
        big.add(u32::MAX);
        assert_eq!(
            big.percentile(50.0).map(|p| p as f64 >= u32::MAX as f64 * (1.0 - 1.0 / 64.0)),
            Some(true)
        );
        assert_eq!(Lengths::default().percentile(50.0), None);
    }

    #[test]
    fn rate_sessions_and_prefix_reuse() {
        let mut s = Summary::new(Format::Mooncake);
        // 10 requests in the first second, then 1 a second for 10 s.
        for i in 0..10 {
            s.add(&req(f64::from(i) * 10.0, 1024, 10, &[0, 1]));
        }
        for i in 1..=10u32 {
            s.add(&req(f64::from(i) * 1000.0, 1536, 20, &[0, 100 + u64::from(i), 200 + u64::from(i)]));
        }
        assert_eq!(s.requests, 20);
        assert_eq!(s.duration_s(), 10.0);
        assert_eq!(s.mean_rate(), Some(2.0));
        assert_eq!(s.peak_rate(), 10);
        // Gaps: nine of 10 ms, one of 910 ms, nine of 1 s; their CV.
        let gaps: Vec<f64> = [vec![10.0; 9], vec![910.0], vec![1000.0; 9]].concat();
        let mean = gaps.iter().sum::<f64>() / 19.0;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / 18.0).sqrt();
        assert!((s.burstiness().unwrap() - sd / mean).abs() < 1e-12, "{:?}", s.burstiness());
        let series = s.rate_series(4);
        assert_eq!(series.len(), 4);
        assert_eq!(series[0], (0.0, 12.0 / 3.0), "seconds 0–2: the burst of 10, then 1 and 1");
        // Blocks: the first request's 2 are new; each of the other 9 of the
        // burst reuses 2; each trickle request reuses block 0 and adds 2.
        assert_eq!((s.blocks, s.blocks_reused), (20 + 30, 18 + 10));
        assert_eq!(s.prefix_reuse(), Some(28.0 / 50.0));
        assert_eq!(s.tokens_reused, 18 * 512 + 10 * 512);
        assert!(
            (s.tokens_saved_share().unwrap() - (28.0 * 512.0) / (10.0 * 1024.0 + 10.0 * 1536.0)).abs()
                < 1e-12
        );
        let mut b = Summary::new(Format::Bailian);
        for (session, n) in [(1u64, 3u32), (2, 1)] {
            for t in 0..n {
                b.add(&Request {
                    session: Some(session),
                    turn: Some(t + 1),
                    at_ms: f64::from(t),
                    ..Request::default()
                });
            }
        }
        assert_eq!((b.sessions(), b.turns()), (2, Some((2.0, 3))));
        assert_eq!(b.zero_output, 4);
    }

    #[test]
    fn block_ids_far_apart_are_counted_as_well_as_near_ones() {
        let mut seen = SeenBlocks::default();
        for id in [0, 63, 64, 5_000_000, BITSET_IDS, u64::MAX] {
            assert!(seen.insert(id), "{id} is new");
            assert!(!seen.insert(id), "{id} seen");
        }
        assert!(
            seen.bits.len() * 8 <= 2 * 5_000_000 / 8 + 64,
            "one bit an id: {} bytes",
            seen.bits.len() * 8
        );
    }

    #[test]
    fn untimed_and_out_of_order_rows() {
        let mut g = Summary::new(Format::ShareGpt);
        g.add(&req(0.0, 10, 10, &[]));
        assert_eq!((g.mean_rate(), g.rate_series(10).len(), g.prefix_reuse()), (None, 0, None));
        let mut s = Summary::new(Format::Azure);
        s.add(&req(5000.0, 1, 1, &[]));
        s.add(&req(4000.0, 1, 1, &[]));
        s.add(&req(7000.0, 1, 1, &[]));
        assert_eq!((s.out_of_order, s.duration_s()), (1, 2.0));
    }

    #[test]
    fn a_file_read_in_slices_sums_as_it_does_whole_and_names_a_bad_line() {
        let text = "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n\
                    {\"timestamp\": 500, \"input_length\": 600, \"output_length\": 7, \"hash_ids\": [1, 3]}\n\
                    {\"timestamp\": 900, \"input_length\": 100, \"output_length\": 9, \"hash_ids\": [4]}";
        let whole = {
            let mut r = Reading::new(Format::Mooncake);
            r.push(text.as_bytes()).unwrap();
            r.finish().unwrap().digest(10)
        };
        for size in [1, 7, 64] {
            let mut r = Reading::new(Format::Mooncake);
            text.as_bytes().chunks(size).for_each(|c| r.push(c).unwrap());
            assert_eq!(r.finish().unwrap().digest(10), whole, "slices of {size} bytes");
        }
        assert_eq!((whole.requests, whole.output_tokens.max), (3, 9));
        assert_eq!(whole.prefix_reuse, Some(0.2), "block 1 seen before, once of five");
        let mut r = Reading::new(Format::Mooncake);
        let bad = text.replace("\"output_length\": 7", "\"output_length\": \"seven\"");
        let e = bad.as_bytes().chunks(10).try_for_each(|c| r.push(c)).unwrap_err();
        assert!(e.to_string().starts_with("line 2:"), "{e}");
        assert_eq!(Reading::new(Format::Mooncake).finish().unwrap_err(), WorkloadError::Empty);
    }

    #[test]
    fn sharegpt_in_the_browser_counts_pseudo_tokens_and_says_so() {
        let text = r#"[{"conversations": [{"from": "human", "value": "hello there"}, {"from": "gpt", "value": "hi"}]}]"#;
        let mut r = Reading::new(Format::ShareGpt);
        text.as_bytes().chunks(5).for_each(|c| r.push(c).unwrap());
        let d = r.finish().unwrap().digest(10);
        assert_eq!((d.requests, d.approximate_counts, d.sessions), (1, 1, 1));
    }
}
