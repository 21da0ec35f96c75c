//! **Conversations**: what a growing context does to TTFT, turn by turn,
//! and what prefix caching saves.
//!
//! Rows group the completed requests of a trace by series (`group`, e.g.
//! "stable prefix") and turn (`turn`, 0-based). Per row: the median TTFT,
//! the median context length (prompt tokens), the median cached prompt
//! tokens (when the server reports `prompt_tokens_details.cached_tokens`)
//! and the median input tokens/s (prompt tokens / TTFT).
//!
//! **Prefix-cache saving**: over turns ≥ 1 (the second turn on, where a
//! stable prefix can be cached), the median TTFT of the "stable prefix"
//! series against that of the "changed prefix" series; saving = changed −
//! stable (ms) and its share of changed.

use serde::{Deserialize, Serialize};

use crate::measure::metrics::RunMetrics;
use crate::measure::stats::Samples;
use crate::trace::Trace;
use crate::trace::series::Prefix;

/// One turn of one series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRow {
    /// Series (`""` when the trace names none).
    pub group: String,
    /// Turn (0-based).
    pub turn: u32,
    /// Completed requests in the row.
    pub requests: usize,
    /// Median TTFT (ms).
    pub ttft_ms: Option<f64>,
    /// Median prompt tokens.
    pub context_tokens: Option<f64>,
    /// Median cached prompt tokens.
    pub cached_tokens: Option<f64>,
    /// Median input tokens/s.
    pub input_tokens_per_s: Option<f64>,
}

/// The saving of a stable prefix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CacheSaving {
    /// Median TTFT from turn 2 on, stable prefix (ms).
    pub stable_ms: f64,
    /// The same with a changed prefix (ms).
    pub changed_ms: f64,
}

/// Per-turn results of a conversation run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turns {
    /// Rows by series, then turn.
    pub rows: Vec<TurnRow>,
    /// Stable against changed prefix, when the run had both.
    pub saving: Option<CacheSaving>,
}

fn median(v: impl IntoIterator<Item = f64>) -> Option<f64> {
    Samples::from_finite(v).summary().map(|s| s.median)
}

/// The turns of a trace (`None` when no request has a turn).
pub fn turns(trace: &Trace, m: &RunMetrics) -> Option<Turns> {
    let done: Vec<_> = trace
        .requests
        .iter()
        .zip(&m.per_request)
        .filter(|(r, rm)| r.turn.is_some() && rm.completed)
        .collect();
    if done.is_empty() {
        return None;
    }
    let mut keys: Vec<(String, u32)> =
        done.iter().map(|(r, _)| (r.group.clone().unwrap_or_default(), r.turn.unwrap_or(0))).collect();
    keys.sort();
    keys.dedup();
    let rows = keys
        .into_iter()
        .map(|(group, turn)| {
            let these: Vec<_> = done
                .iter()
                .filter(|(r, _)| r.turn == Some(turn) && r.group.clone().unwrap_or_default() == group)
                .collect();
            TurnRow {
                requests: these.len(),
                ttft_ms: median(these.iter().filter_map(|(_, rm)| rm.ttft_ms)),
                context_tokens: median(these.iter().filter_map(|(_, rm)| rm.prompt_tokens.map(|p| p as f64))),
                cached_tokens: median(
                    these.iter().filter_map(|(r, _)| r.usage.and_then(|u| u.cached_tokens).map(|c| c as f64)),
                ),
                input_tokens_per_s: median(these.iter().filter_map(|(_, rm)| rm.input_tokens_per_s)),
                group,
                turn,
            }
        })
        .collect();
    let later = |prefix: Prefix| {
        median(
            done.iter()
                .filter(|(r, _)| r.turn.unwrap_or(0) >= 1 && r.group.as_deref() == Some(prefix.word()))
                .filter_map(|(_, rm)| rm.ttft_ms),
        )
    };
    let saving = match (later(Prefix::Stable), later(Prefix::Changed)) {
        (Some(stable_ms), Some(changed_ms)) => Some(CacheSaving { stable_ms, changed_ms }),
        _ => None,
    };
    Some(Turns { rows, saving })
}

impl Turns {
    /// The rows as text, then the saving.
    pub fn table(&self) -> String {
        let cell = |v: Option<f64>, d: usize| v.map_or("—".to_string(), |x| format!("{x:.d$}"));
        let mut out = format!(
            "  {:<16} {:>5} {:>9} {:>10} {:>9} {:>8} {:>12}\n",
            "series", "turn", "requests", "TTFT (ms)", "context", "cached", "input tok/s"
        );
        for r in &self.rows {
            out.push_str(&format!(
                "  {:<16} {:>5} {:>9} {:>10} {:>9} {:>8} {:>12}\n",
                if r.group.is_empty() { "—" } else { &r.group },
                r.turn + 1,
                r.requests,
                cell(r.ttft_ms, 1),
                cell(r.context_tokens, 0),
                cell(r.cached_tokens, 0),
                cell(r.input_tokens_per_s, 0),
            ));
        }
        if let Some(s) = &self.saving {
            out.push_str(&format!("  {}\n", s.describe()));
        }
        out
    }
}

impl CacheSaving {
    /// The saving in words.
    pub fn describe(&self) -> String {
        let saved = self.changed_ms - self.stable_ms;
        if saved > 0.0 {
            format!(
                "From the second turn on, the stable prefix answered in {:.0} ms (median TTFT) against {:.0} ms with a changed first message: prefix caching saves about {:.0} ms ({:.0}%).",
                self.stable_ms,
                self.changed_ms,
                saved,
                100.0 * saved / self.changed_ms
            )
        } else {
            format!(
                "From the second turn on, the stable prefix answered in {:.0} ms (median TTFT) against {:.0} ms with a changed first message: no saving from a prefix cache is visible.",
                self.stable_ms, self.changed_ms
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::metrics::MetricsConfig;
    use crate::trace::{Chunk, RequestTrace, Usage};

    fn req(group: Prefix, turn: u32, prompt: u64, cached: u64, ttft: f64) -> RequestTrace {
        RequestTrace {
            turn: Some(turn),
            group: Some(group.word().into()),
            chunks: vec![Chunk::content(ttft, "a", 1)],
            end_ms: Some(ttft),
            usage: Some(Usage {
                prompt_tokens: Some(prompt),
                completion_tokens: Some(1),
                cached_tokens: Some(cached),
                reasoning_tokens: None,
            }),
            ..RequestTrace::default()
        }
    }

    #[test]
    fn rows_by_series_and_turn_and_the_saving_of_a_stable_prefix() {
        use Prefix::*;
        let t = Trace {
            requests: vec![
                req(Stable, 0, 100, 0, 120.0),
                req(Stable, 1, 300, 96, 90.0),
                req(Stable, 2, 500, 288, 95.0),
                req(Changed, 0, 100, 0, 120.0),
                req(Changed, 1, 300, 0, 170.0),
                req(Changed, 2, 500, 0, 220.0),
            ],
            ..Trace::default()
        };
        let m = RunMetrics::of(&t, &MetricsConfig::default());
        let out = turns(&t, &m).unwrap();
        assert_eq!(out.rows.len(), 6);
        let r = &out.rows[4]; // "stable prefix" sorts after "changed prefix"
        assert_eq!(
            (r.group.as_str(), r.turn, r.context_tokens, r.cached_tokens),
            ("stable prefix", 1, Some(300.0), Some(96.0))
        );
        assert_eq!(r.input_tokens_per_s, Some(300.0 / 0.09));
        let s = out.saving.unwrap();
        assert_eq!((s.stable_ms, s.changed_ms), (92.5, 195.0));
        assert!(s.describe().contains("saves about 102 ms (53%)"), "{}", s.describe());
        assert_eq!(
            turns(&Trace::default(), &RunMetrics::of(&Trace::default(), &MetricsConfig::default())),
            None
        );
    }
}
