//! One pane's playback state, releases and finished trace.

use lab_core::measure::metrics::DEFAULT_STALL_MS;
use lab_core::replay::player::Replay;
use lab_core::stream::live::LiveStats;
use lab_core::trace::{Chunk, ChunkKind, ReplayInfo, RequestTrace, SourceKind, Trace, TraceMeta, Usage};

use super::PaneInput;
use crate::browser::clock::client_info;
use crate::browser::sink::Sink;

/// A pane being played.
pub(super) struct PaneRt {
    pub(super) input: PaneInput,
    pub(super) replay: Replay,
    pub(super) sink: Option<Sink>,
    pub(super) start_clock: Option<f64>,
    pub(super) due: Vec<f64>,
    pub(super) emitted: Vec<f64>,
    pub(super) painted: Vec<Option<f64>>,
    pub(super) pending: String,
    pub(super) painted_upto: usize,
    pub(super) naive_next: usize,
    pub(super) naive_timer: Option<i32>,
    pub(super) render_ms: f64,
    pub(super) finalized: bool,
    pub(super) stats: LiveStats,
}

impl PaneRt {
    pub(super) fn finished_and_flushed(&self) -> bool {
        self.emitted.len() == self.input.chunks.len() && self.painted_upto == self.emitted.len()
    }
}

/// The due times still ahead, `(due_at, pane, index)` sorted, on the page clock.
pub(super) fn remaining_due(panes: &[PaneRt]) -> Vec<(f64, usize, usize)> {
    let mut due: Vec<(f64, usize, usize)> = Vec::new();
    for (p, pane) in panes.iter().enumerate() {
        for i in pane.replay.emitted()..pane.replay.len() {
            if let Some(at) = pane.replay.due_clock(i) {
                due.push((at, p, i));
            }
        }
    }
    due.sort_by(|a, b| a.0.total_cmp(&b.0));
    due
}

pub(super) fn new_pane(input: PaneInput, speed: f64) -> PaneRt {
    let n = input.chunks.len();
    let mut replay = Replay::new(input.chunks.iter().map(|c| c.0).collect());
    replay.set_speed(0.0, speed);
    PaneRt {
        input,
        replay,
        sink: None,
        start_clock: None,
        due: Vec::with_capacity(n),
        emitted: Vec::with_capacity(n),
        painted: Vec::with_capacity(n),
        pending: String::new(),
        painted_upto: 0,
        naive_next: 0,
        naive_timer: None,
        render_ms: 0.0,
        finalized: false,
        stats: LiveStats::default(),
    }
}

/// Releases chunk `i` of a pane at `now` (due at `due`).
pub(super) fn release(p: &mut PaneRt, i: usize, due: f64, now: f64) {
    let Some((_, text, tokens)) = p.input.chunks.get(i) else { return };
    p.pending.push_str(text);
    if let Some(&prev) = p.emitted.last() {
        let gap = now - prev;
        if gap > DEFAULT_STALL_MS {
            p.stats.stalls += 1;
        }
        p.stats.longest_gap_ms = p.stats.longest_gap_ms.max(gap);
        if p.stats.recent_gaps_ms.len() >= lab_core::stream::live::RECENT_GAPS {
            p.stats.recent_gaps_ms.remove(0);
        }
        p.stats.recent_gaps_ms.push(gap);
    } else {
        p.stats.ttft_ms = p.start_clock.map(|s| now - s);
    }
    p.due.push(due);
    p.emitted.push(now);
    p.painted.push(None);
    p.stats.tokens += u64::from(*tokens);
    if let (Some(&first), Some(first_tokens)) = (p.emitted.first(), p.input.chunks.first().map(|c| c.2))
        && now > first
    {
        p.stats.tokens_per_s =
            Some((p.stats.tokens - u64::from(first_tokens)) as f64 * 1000.0 / (now - first));
    }
}

pub(super) fn finish_trace(p: &PaneRt, info: &ReplayInfo, now: f64) -> Trace {
    let start = p.start_clock.unwrap_or(now);
    let tokens: u64 = p.input.chunks.iter().map(|c| u64::from(c.2)).sum();
    let chunks = p
        .input
        .chunks
        .iter()
        .zip(p.due.iter().zip(&p.emitted).zip(&p.painted))
        .map(|(c, ((due, emitted), painted))| Chunk {
            arrived_ms: *emitted,
            text: c.1.clone(),
            tokens: c.2,
            kind: ChunkKind::Content,
            painted_ms: *painted,
            due_ms: Some(*due),
        })
        .collect();
    let request = RequestTrace {
        id: Some(p.input.title.clone()),
        sent_ms: start,
        chunks,
        end_ms: Some(now),
        usage: Some(Usage { prompt_tokens: None, completion_tokens: Some(tokens) }),
        ..RequestTrace::default()
    };
    let mut info = info.clone();
    info.render_us_per_token = (tokens > 0).then(|| p.render_ms * 1000.0 / tokens as f64);
    Trace {
        meta: TraceMeta {
            label: Some(p.input.title.clone()),
            created_at: js_sys::Date::new_0().to_iso_string().as_string(),
            source: SourceKind::Replay,
            model: Some(p.input.source.clone()),
            tool: Some(format!("latency-lab {}", env!("CARGO_PKG_VERSION"))),
            client: client_info(),
            replay: Some(info),
            ..TraceMeta::default()
        },
        requests: vec![request],
        ..Trace::default()
    }
}
