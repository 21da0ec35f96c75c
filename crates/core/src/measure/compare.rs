//! Endpoints compared: Live's "Compare endpoints" run, measured.
//!
//! **The run.** The same prompt is sent to 2–4 endpoints (any wires), one
//! request at a time, in rounds: every round sends it once to each
//! endpoint, and the endpoint that goes first turns with the rounds (round
//! 2 starts with B), so none is always first after a pause and the
//! machine's and the network's drift falls on all of them. Each endpoint's
//! requests are a trace of their own, and the traces of one comparison
//! share a [`crate::trace::CompareInfo`].
//!
//! **The table** ([`Comparison::of`]): per endpoint, its requests and
//! failures, the P50 of each of [`FIGURES`] over its completed requests
//! (TTFT, first paint and TPOT as the registry defines them; QoE as
//! [`crate::measure::feel`] does), and each preset scenario's score
//! ([`crate::measure::score`], as Live scores a run).
//!
//! **The differences**: every endpoint against the first (the baseline),
//! each figure's P50 by [`difference::difference`] and each scenario score
//! by [`difference::run_differences`] (resampling requests
//! [`SCORE_RESAMPLES`] times), with 95% intervals and in words
//! ([`Comparison::sentences`]): "B shows text 180 ms sooner at P50
//! (120–240 ms)". Failed requests are counted, never compared.

use crate::measure::difference::{self, Better, Difference};
use crate::measure::metrics::{MetricsConfig, RequestMetrics, RunMetrics};
use crate::measure::registry;
use crate::measure::score::{self, Scenario};
use crate::measure::stats::Samples;
use crate::trace::Trace;

/// Most endpoints in one comparison.
pub const MAX_ENDPOINTS: usize = 4;
/// Bootstrap resamples of a scenario score's difference (each one scores
/// a resampled run: fewer than a percentile's [`difference::RESAMPLES`]).
pub const SCORE_RESAMPLES: usize = 400;

/// One per-request figure of the comparison.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// Its id: a [`registry::LATENCY`] row's, or `qoe`.
    pub id: &'static str,
    /// How the sentence says B's lead ("shows text").
    pub verb: &'static str,
    /// Which way is better.
    pub better: Better,
    /// Decimals shown.
    pub decimals: usize,
    /// Its unit ("ms", or "" for a ratio).
    pub unit: &'static str,
    /// Its value for one request.
    pub get: fn(&RequestMetrics) -> Option<f64>,
}

impl Figure {
    /// Its label: the registry row's, or QoE's.
    pub fn label(&self) -> &'static str {
        registry::row(self.id).map_or("QoE (reading pace)", |r| r.label)
    }

    /// What it measures, in one sentence.
    pub fn what(&self) -> &'static str {
        registry::row(self.id).map_or(
            "Delivered against expected reading area, 0–1: 1 is every token by the time a reader needs it.",
            |r| r.what,
        )
    }

    /// A value with its unit ("182 ms", "0.93").
    pub fn format(&self, v: f64) -> String {
        let n = format!("{v:.*}", self.decimals);
        if self.unit.is_empty() { n } else { format!("{n} {}", self.unit) }
    }
}

/// The figures compared, in table order.
pub const FIGURES: [Figure; 4] = [
    Figure {
        id: "ttft",
        verb: "sends the first token",
        better: Better::Lower,
        decimals: 0,
        unit: "ms",
        get: |m| m.ttft_ms,
    },
    Figure {
        id: "ttfp",
        verb: "shows text",
        better: Better::Lower,
        decimals: 0,
        unit: "ms",
        get: |m| m.ttfp_ms,
    },
    Figure {
        id: "tpot",
        verb: "streams each token",
        better: Better::Lower,
        decimals: 1,
        unit: "ms",
        get: |m| m.tpot_ms,
    },
    Figure {
        id: "qoe",
        verb: "keeps up with a reader",
        better: Better::Higher,
        decimals: 2,
        unit: "",
        get: |m| m.qoe,
    },
];

/// One endpoint's column of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    /// Its letter: A, B, C, D (A is the baseline).
    pub letter: char,
    /// Its name (the trace's label).
    pub name: String,
    /// The wire's id (`crate::stream::wire::Wire::id`); `None` for OpenAI Chat.
    pub wire: Option<String>,
    /// The model asked for.
    pub model: Option<String>,
    /// Requests sent.
    pub requests: usize,
    /// Requests that failed (counted, not compared).
    pub failed: usize,
    /// P50 of each of [`FIGURES`] over the completed requests.
    pub p50: Vec<Option<f64>>,
    /// Each scenario's score (0–100), in [`Comparison::scenarios`] order.
    pub scores: Vec<Option<f64>>,
    /// The request a side-by-side replay plays (its index in the trace):
    /// the completed one whose TTFT is nearest the endpoint's P50 TTFT, the
    /// earlier on a tie.
    pub typical: Option<usize>,
}

/// One endpoint against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Versus {
    /// The endpoint's letter.
    pub letter: char,
    /// Each of [`FIGURES`]: its P50 difference (this − baseline).
    pub figures: Vec<Option<Difference>>,
    /// Each scenario: its score's difference (this − baseline).
    pub scores: Vec<Option<Difference>>,
}

/// A comparison of endpoints, measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The scenarios scored (id, name).
    pub scenarios: Vec<(String, String)>,
    /// Each endpoint, the baseline first.
    pub sides: Vec<Side>,
    /// Every endpoint but the baseline against it.
    pub versus: Vec<Versus>,
}

/// The letter of the endpoint at `position` (A for 0).
pub fn letter(position: usize) -> char {
    char::from(b'A' + (position.min(25) as u8))
}

/// The order a comparison of `k` endpoints sends in over `rounds`
/// rounds (module docs): each round every endpoint once, round `r`
/// starting with endpoint `r mod k`.
pub fn order(k: usize, rounds: usize) -> impl Iterator<Item = usize> {
    (0..rounds).flat_map(move |r| (0..k).map(move |j| (r + j) % k))
}

/// A seed from the requests' timing: the same requests, the same intervals.
fn seed_of(a: &[RequestMetrics], b: &[RequestMetrics]) -> u64 {
    a.iter().chain(b).fold(0x5EED, |h, m| {
        (h ^ m.ttft_ms.unwrap_or(0.0).to_bits() ^ m.e2el_ms.unwrap_or(0.0).to_bits())
            .wrapping_mul(0x0100_0000_01B3)
    })
}

/// One endpoint's completed requests as a scenario score's bootstrap draws
/// them: each request's metrics without its gap and paint-lag lists (a
/// draw copies them), and every gap of the endpoint sorted once with its
/// request, so a draw's pooled gaps come out sorted by one walk (no sort
/// of every gap on every draw: a 100-round comparison scores in
/// milliseconds, not seconds; BENCHMARKS.md, "Compare endpoints").
struct Drawable {
    bare: Vec<RequestMetrics>,
    gaps: Vec<(f64, usize)>,
    single_tokens: bool,
}

impl Drawable {
    fn of(reqs: &[RequestMetrics]) -> Self {
        let mut gaps: Vec<(f64, usize)> =
            reqs.iter().enumerate().flat_map(|(i, r)| r.itl.iter().map(move |g| (g.ms, i))).collect();
        gaps.sort_by(|a, b| a.0.total_cmp(&b.0));
        let single_tokens = reqs.iter().all(|r| r.itl.iter().all(|g| g.tokens <= 1));
        let bare = reqs
            .iter()
            .map(|r| RequestMetrics { itl: Vec::new(), paint_lags: Vec::new(), ..r.clone() })
            .collect();
        Self { bare, gaps, single_tokens }
    }

    /// Every scenario's score of the requests `picks` (positions, repeats
    /// allowed): the run summarised once, its pooled gaps those of the
    /// picks, each as often as it was picked.
    fn scores(&self, picks: &[usize], scenarios: &[Scenario], cfg: &MetricsConfig) -> Vec<Option<f64>> {
        if picks.is_empty() {
            return vec![None; scenarios.len()];
        }
        let mut times = vec![0usize; self.bare.len()];
        picks.iter().for_each(|&p| times[p] += 1);
        let mut pooled = Vec::with_capacity(self.gaps.len());
        for &(ms, r) in &self.gaps {
            for _ in 0..times[r] {
                pooled.push(ms);
            }
        }
        let reqs = picks.iter().map(|&p| self.bare[p].clone()).collect();
        let m = RunMetrics::from_pooled(reqs, Samples::from_sorted(pooled), self.single_tokens, None, cfg);
        scenarios.iter().map(|s| s.value(&m)).collect()
    }
}

/// The completed request nearest the P50 TTFT ([`Side::typical`]).
fn typical(reqs: &[RequestMetrics]) -> Option<usize> {
    let p50 = Samples::from_finite(reqs.iter().filter_map(|m| m.ttft_ms)).percentile(50.0)?;
    let off = |m: &RequestMetrics| m.ttft_ms.map_or(f64::INFINITY, |t| (t - p50).abs());
    reqs.iter().min_by(|a, b| off(a).total_cmp(&off(b))).map(|m| m.index)
}

impl Comparison {
    /// Measures a comparison from its endpoints' traces, the baseline first
    /// (at most [`MAX_ENDPOINTS`] are read).
    pub fn of(traces: &[Trace]) -> Self {
        Self::with(traces, &score::presets())
    }

    /// Like [`Comparison::of`], scoring `scenarios`.
    pub fn with(traces: &[Trace], scenarios: &[Scenario]) -> Self {
        let cfg = MetricsConfig::default();
        let done: Vec<Vec<RequestMetrics>> = traces
            .iter()
            .take(MAX_ENDPOINTS)
            .map(|t| {
                t.requests
                    .iter()
                    .enumerate()
                    .map(|(i, r)| RequestMetrics::of(i, r, &cfg))
                    .filter(|m| m.completed)
                    .collect()
            })
            .collect();
        // Every scenario's score of an endpoint's requests, as the analysis scores them.
        let scores_of = |reqs: &[RequestMetrics]| -> Vec<Option<f64>> {
            if reqs.is_empty() {
                return vec![None; scenarios.len()];
            }
            let m = RunMetrics::from_requests(reqs.to_vec(), None, &cfg);
            scenarios.iter().map(|s| s.value(&m)).collect()
        };
        let drawable: Vec<Drawable> = done.iter().map(|r| Drawable::of(r)).collect();
        let values =
            |reqs: &[RequestMetrics], f: &Figure| -> Vec<f64> { reqs.iter().filter_map(f.get).collect() };
        let sides = traces
            .iter()
            .zip(&done)
            .enumerate()
            .map(|(i, (t, reqs))| Side {
                letter: letter(i),
                name: t.meta.label.clone().unwrap_or_else(|| letter(i).to_string()),
                wire: t.meta.wire.clone(),
                model: t.meta.model.clone(),
                requests: t.requests.len(),
                failed: t.requests.len() - reqs.len(),
                p50: FIGURES.iter().map(|f| Samples::from_finite(values(reqs, f)).percentile(50.0)).collect(),
                scores: scores_of(reqs),
                typical: typical(reqs),
            })
            .collect();
        let versus = match done.split_first() {
            None => Vec::new(),
            Some((base, rest)) => rest
                .iter()
                .enumerate()
                .map(|(i, reqs)| Versus {
                    letter: letter(i + 1),
                    figures: FIGURES
                        .iter()
                        .map(|f| difference::difference(&values(base, f), &values(reqs, f), 50.0))
                        .collect(),
                    scores: {
                        // A draw is a list of (endpoint, request) pairs, all of one endpoint.
                        let pairs = |side: usize, n: usize| -> Vec<(usize, usize)> {
                            (0..n).map(|i| (side, i)).collect()
                        };
                        difference::run_differences(
                            &pairs(0, base.len()),
                            &pairs(i + 1, reqs.len()),
                            seed_of(base, reqs),
                            SCORE_RESAMPLES,
                            |draw: &[(usize, usize)]| {
                                let side = draw.first().map_or(0, |d| d.0);
                                let picks: Vec<usize> = draw.iter().map(|d| d.1).collect();
                                drawable[side].scores(&picks, scenarios, &cfg)
                            },
                        )
                    },
                })
                .collect(),
        };
        Self { scenarios: scenarios.iter().map(|s| (s.id.clone(), s.name.clone())).collect(), sides, versus }
    }

    /// Versus `v`'s differences in words, one sentence per figure and
    /// scenario ("B shows text 180 ms sooner at P50 (120–240 ms)").
    pub fn sentences(&self, v: &Versus) -> Vec<String> {
        let b = v.letter.to_string();
        let figures = FIGURES.iter().zip(&v.figures).filter_map(|(f, d)| {
            let d = d.as_ref()?;
            Some(format!("{}: {}.", f.label(), d.sentence(&b, f.verb, f.better, |x| f.format(x))))
        });
        let scores = self.scenarios.iter().zip(&v.scores).filter_map(|((_, name), d)| {
            let d = d.as_ref()?;
            Some(format!(
                "{name} score: {}.",
                d.sentence(&b, "scores", Better::Higher, |x| format!("{x:.1} points"))
            ))
        });
        figures.chain(scores).collect()
    }
}

#[cfg(test)]
mod tests;
