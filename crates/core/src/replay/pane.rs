//! One replay pane: what it plays, and the record of how it played.
//!
//! - A pane plays a **source** ([`PaneSource`]): a synthetic profile (with
//!   the prompt length its prefill model sees) or one recorded request,
//!   replayed exactly. [`PaneConfig::chunks`] is what gets scheduled: each
//!   chunk's due offset (ms from the start), text and tokens. A recorded
//!   request plays its chunks that carry tokens or text, at their arrival
//!   offsets from `sent_ms`.
//! - A [`PaneRecording`] is how one playback went: for every chunk, when it
//!   was due and released (on the page clock) and when the frame that showed
//!   it ran. Its live figures are [`LiveStats`], updated as chunks are
//!   released and painted: the very definition live requests use, with time
//!   counted from the start of playback. [`PaneRecording::finish`] turns it
//!   into a trace (`source: replay`) whose chunks carry `due_ms`, so the
//!   scheduler's fidelity ([`super::player::Fidelity`]) can be computed.
//! - A [`FrameCounter`] counts the animation frames during playback and the
//!   **late** ones: a frame that comes more than [`LATE_FRAME_FACTOR`]
//!   refresh intervals after the previous one (a dropped frame at least).
//!
//! Pane sources in the app's source picker are named `profile:<preset>` or
//! `run:<run>:<request>` ([`PaneChoice`]).

pub use super::draft::ProfileDraft;
use crate::replay::cadence::{self, Contrast};
pub use crate::replay::chunk::PaneChunk;
use crate::replay::profile::{self, Profile};
use crate::replay::shared::SharedPane;
use crate::replay::smooth::{self, Smoothing};
use crate::replay::story::Story;
use crate::stream::live::LiveStats;
use crate::trace::{
    Chunk, ClientInfo, ReplayInfo, RequestTrace, SourceKind, ToolCallRef, Trace, TraceMeta, Usage,
};

/// A frame later than this many refresh intervals is late.
pub const LATE_FRAME_FACTOR: f64 = 1.5;
/// Prompt tokens a preset profile's pane starts with.
pub const DEFAULT_PROMPT_TOKENS: u64 = 200;

/// What a pane plays.
#[derive(Debug, Clone, PartialEq)]
pub enum PaneSource {
    /// A synthetic profile.
    Profile(ProfileDraft),
    /// A recorded request, replayed exactly.
    Recorded {
        /// Where it came from.
        label: String,
        /// The request.
        request: Box<RequestTrace>,
    },
}

/// A pane's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneConfig {
    /// Caption.
    pub title: String,
    /// Source.
    pub source: PaneSource,
    /// How its text is paced onto the screen ([`smooth`]).
    pub smoothing: Smoothing,
}

/// What a pane shows of a chunk: its text; a tool call's first fragment
/// starts a line that names the call (its arguments follow as text).
fn shown(text: String, tool: Option<&ToolCallRef>) -> String {
    match tool.and_then(|t| t.name.as_deref()) {
        Some(name) => format!("\n→ tool call {name} {text}"),
        None => text,
    }
}

impl PaneConfig {
    /// A preset (or any) profile, titled with its name.
    pub fn profile(profile: Profile) -> Self {
        Self {
            title: profile.name.clone(),
            source: PaneSource::Profile(ProfileDraft { profile, prompt_tokens: DEFAULT_PROMPT_TOKENS }),
            smoothing: Smoothing::Off,
        }
    }

    /// A recorded request.
    pub fn recorded(title: String, label: String, request: RequestTrace) -> Self {
        Self {
            title,
            source: PaneSource::Recorded { label, request: Box::new(request) },
            smoothing: Smoothing::Off,
        }
    }

    /// Chunks to play: as shown, after smoothing.
    pub fn chunks(&self) -> Vec<PaneChunk> {
        smooth::smooth_chunks(&self.network_chunks(), self.smoothing)
    }

    /// What the pane's displayed cadence is against its source's (`None`
    /// with fewer than two pieces shown).
    pub fn cadence(&self, stall_ms: f64) -> Option<Contrast> {
        cadence::chunk_contrast(&self.network_chunks(), &self.chunks(), stall_ms)
    }

    /// Chunks as the source delivers them (before smoothing).
    pub fn network_chunks(&self) -> Vec<PaneChunk> {
        match &self.source {
            PaneSource::Profile(d) => d
                .profile
                .schedule(0, d.prompt_tokens, None)
                .chunks
                .into_iter()
                .map(|c| PaneChunk {
                    due_ms: c.due_ms,
                    text: shown(c.text, c.tool.as_ref()),
                    tokens: c.tokens,
                    kind: c.kind,
                })
                .collect(),
            PaneSource::Recorded { request, .. } => {
                let mut sample = SampleText::new();
                request
                    .chunks
                    .iter()
                    .filter(|c| c.tokens > 0 || !c.text.is_empty())
                    .map(|c| PaneChunk {
                        // As recorded (a loaded trace's chunks never precede
                        // its send; the player plays a negative offset at 0).
                        due_ms: c.arrived_ms - request.sent_ms,
                        text: if c.text.is_empty() && c.tool.is_none() {
                            sample.next(c)
                        } else {
                            shown(c.text.clone(), c.tool.as_ref())
                        },
                        tokens: c.tokens,
                        kind: c.kind,
                    })
                    .collect()
            }
        }
    }

    /// Source description for the trace (`profile:…` / `trace:…`).
    pub fn source_name(&self) -> String {
        match &self.source {
            PaneSource::Profile(d) => format!("profile:{}", d.profile),
            PaneSource::Recorded { label, .. } => format!("trace:{label}"),
        }
    }

    /// The profile draft, when the pane plays a profile.
    pub fn draft(&self) -> Option<&ProfileDraft> {
        match &self.source {
            PaneSource::Profile(d) => Some(d),
            PaneSource::Recorded { .. } => None,
        }
    }

    /// The pane as it travels in a share link (profiles only: a recorded
    /// request does not fit in a link).
    pub fn to_shared(&self) -> Result<SharedPane, String> {
        match &self.source {
            PaneSource::Profile(d) => Ok(SharedPane {
                title: self.title.clone(),
                profile: d.profile.to_string(),
                prompt_tokens: d.prompt_tokens,
                smoothing: self.smoothing,
            }),
            PaneSource::Recorded { .. } => Err(format!(
                "“{}” replays a recorded request, which does not fit in a link: download its trace and send the file instead.",
                self.title
            )),
        }
    }
}

/// The panes of a story.
pub fn story_panes(story: &Story) -> Vec<PaneConfig> {
    story
        .panes
        .iter()
        .map(|p| PaneConfig {
            title: p.title.clone(),
            source: PaneSource::Profile(ProfileDraft {
                profile: p.profile.clone(),
                prompt_tokens: p.prompt_tokens,
            }),
            smoothing: Smoothing::Off,
        })
        .collect()
}

/// The panes of a shared link (at most `max`): each a preset name or a
/// profile spec.
pub fn shared_panes(panes: &[SharedPane], max: usize) -> Result<Vec<PaneConfig>, String> {
    panes
        .iter()
        .take(max)
        .map(|p| {
            let profile = profile::preset(&p.profile)
                .map_or_else(|| p.profile.parse::<Profile>(), Ok)
                .map_err(|e| format!("pane “{}”: {e}", p.title))?;
            Ok(PaneConfig {
                title: p.title.clone(),
                source: PaneSource::Profile(ProfileDraft { profile, prompt_tokens: p.prompt_tokens }),
                smoothing: p.smoothing,
            })
        })
        .collect()
}

/// The story whose panes a link carries (the same titles, profiles and
/// prompt lengths), if any: a shared story keeps its explanation.
pub fn story_of<'a>(panes: &[SharedPane], stories: &'a [Story]) -> Option<&'a Story> {
    stories.iter().find(|s| {
        let own: Result<Vec<SharedPane>, String> = story_panes(s).iter().map(PaneConfig::to_shared).collect();
        own.is_ok_and(|own| own == panes)
    })
}

/// A choice of the pane source picker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneChoice<'a> {
    /// `profile:<preset name>`.
    Preset(&'a str),
    /// `run:<run>:<request>` (0-based request; `run:<run>` is its first).
    Run {
        /// The session run's number.
        run: usize,
        /// The request's index in it.
        request: usize,
    },
}

impl<'a> PaneChoice<'a> {
    /// Reads a picker value; `None` for anything else (such as "keep").
    pub fn parse(value: &'a str) -> Option<Self> {
        if let Some(name) = value.strip_prefix("profile:") {
            return (!name.is_empty()).then_some(Self::Preset(name));
        }
        let rest = value.strip_prefix("run:")?;
        let (run, request) = rest.split_once(':').unwrap_or((rest, "0"));
        Some(Self::Run { run: run.parse().ok()?, request: request.parse().ok()? })
    }

    /// The picker value of a session run's request.
    pub fn run_value(run: usize, request: usize) -> String {
        format!("run:{run}:{request}")
    }
}

/// How one playback of a pane went.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneRecording {
    chunks: Vec<PaneChunk>,
    start: Option<f64>,
    due: Vec<f64>,
    released: Vec<f64>,
    painted: Vec<Option<f64>>,
    painted_upto: usize,
    pending: String,
    render_ms: f64,
    stats: LiveStats,
}

impl PaneRecording {
    /// A playback of `chunks`, not started.
    pub fn new(chunks: Vec<PaneChunk>) -> Self {
        let n = chunks.len();
        Self {
            chunks,
            start: None,
            due: Vec::with_capacity(n),
            released: Vec::with_capacity(n),
            painted: Vec::with_capacity(n),
            painted_upto: 0,
            pending: String::new(),
            render_ms: 0.0,
            stats: LiveStats::default(),
        }
    }

    /// Chunks to play.
    pub fn chunks(&self) -> &[PaneChunk] {
        &self.chunks
    }

    /// Notes the start of playback (the first call counts).
    pub fn start(&mut self, now: f64) {
        self.start.get_or_insert(now);
    }

    /// Chunks released so far.
    pub fn released(&self) -> usize {
        self.released.len()
    }

    /// Releases the next chunk (index `i`, due at `due`) at `now`: its text
    /// waits for the next frame ([`Self::take_pending`]).
    pub fn release(&mut self, i: usize, due: f64, now: f64) {
        let Some(c) = self.chunks.get(i) else { return };
        self.pending.push_str(&c.text);
        let start = *self.start.get_or_insert(now);
        self.stats.on_chunk(now - start, c.tokens);
        self.due.push(due);
        self.released.push(now);
        self.painted.push(None);
    }

    /// The text released since the last frame (emptied).
    pub fn take_pending(&mut self) -> Option<String> {
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending))
    }

    /// The frame at `now` shows every chunk released so far; `render_ms` is
    /// what putting its text on the page cost.
    pub fn painted(&mut self, now: f64, render_ms: f64) {
        let start = self.start.unwrap_or(now);
        for k in self.painted_upto..self.released.len() {
            // As measured: a frame stamped before a release is flagged
            // (`trace::stamps`), never moved.
            self.painted[k] = Some(now);
            if self.chunks.get(k).is_some_and(|c| c.tokens > 0) {
                self.stats.on_paint(now - start);
            }
        }
        self.painted_upto = self.released.len();
        self.render_ms += render_ms;
    }

    /// Every chunk released and on screen.
    pub fn is_done(&self) -> bool {
        self.released.len() == self.chunks.len() && self.painted_upto == self.released.len()
    }

    /// The live figures at `now`.
    pub fn stats(&self, now: f64) -> LiveStats {
        self.stats.clone().at(self.start.map_or(0.0, |s| now - s))
    }

    /// The trace of the playback, ended at `now`. `info` describes the
    /// scheduler (its render cost per token is filled in here).
    pub fn finish(&self, meta: PaneMeta, info: &ReplayInfo, now: f64) -> Trace {
        let start = self.start.unwrap_or(now);
        let tokens: u64 = self.chunks.iter().map(|c| u64::from(c.tokens)).sum();
        let chunks = self
            .chunks
            .iter()
            .zip(self.due.iter().zip(&self.released).zip(&self.painted))
            .map(|(c, ((due, released), painted))| Chunk {
                arrived_ms: *released,
                text: c.text.clone(),
                tokens: c.tokens,
                kind: c.kind,
                painted_ms: *painted,
                due_ms: Some(*due),
                tool: None,
                chars: None,
            })
            .collect();
        let request = RequestTrace {
            id: Some(meta.title.clone()),
            sent_ms: start,
            chunks,
            end_ms: Some(now),
            usage: Some(Usage { completion_tokens: Some(tokens), ..Usage::default() }),
            ..RequestTrace::default()
        };
        let mut info = info.clone();
        info.render_us_per_token = (tokens > 0).then(|| self.render_ms * 1000.0 / tokens as f64);
        Trace {
            meta: TraceMeta {
                label: Some(meta.title),
                created_at: meta.created_at,
                source: SourceKind::Replay,
                model: Some(meta.source),
                tool: Some(meta.tool),
                client: meta.client,
                replay: Some(info),
                ..TraceMeta::default()
            },
            requests: vec![request],
            ..Trace::default()
        }
    }
}

/// What a pane's trace says about where it came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PaneMeta {
    /// The pane's caption (trace label and request id).
    pub title: String,
    /// Its source (`profile:…` / `trace:…`).
    pub source: String,
    /// When it played (ISO 8601).
    pub created_at: Option<String>,
    /// The tool that played it (`latency-lab 0.1.0`).
    pub tool: String,
    /// The measuring client.
    pub client: ClientInfo,
}

/// Frames during playback, and the late ones.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameCounter {
    /// Frame intervals counted.
    pub frames: u32,
    /// Intervals longer than [`LATE_FRAME_FACTOR`] refresh intervals.
    pub late: u32,
    last: Option<f64>,
}

impl FrameCounter {
    /// A frame ran at `now` while playing, on a display refreshing every
    /// `refresh_ms`.
    pub fn on_frame(&mut self, now: f64, refresh_ms: f64) {
        if let Some(last) = self.last {
            self.frames += 1;
            if now - last > LATE_FRAME_FACTOR * refresh_ms {
                self.late += 1;
            }
        }
        self.last = Some(now);
    }

    /// Playback paused: the time until it resumes is no frame interval.
    pub fn pause(&mut self) {
        self.last = None;
    }
}

/// Stand-in text for chunks recorded without their text (field data keeps
/// how many characters each chunk added, never the text; other sources only
/// their tokens): the lab's chat sample, in order and cycling, so a replay
/// shows text in the recorded rhythm.
struct SampleText {
    chars: std::iter::Cycle<std::str::Chars<'static>>,
}

impl SampleText {
    fn new() -> Self {
        let text = crate::replay::text::sample("chat").map_or("The answer streams here. ", |s| s.text);
        Self { chars: text.chars().cycle() }
    }

    /// The next piece for `c`: its recorded characters, or about four a token.
    fn next(&mut self, c: &Chunk) -> String {
        let n = c.chars.map_or(c.tokens.saturating_mul(4), |n| n) as usize;
        self.chars.by_ref().take(n.min(100_000)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::story::stories;
    use crate::trace::ChunkKind;

    fn chunk(due: f64, text: &str, tokens: u32) -> PaneChunk {
        PaneChunk { due_ms: due, text: text.into(), tokens, kind: ChunkKind::Content }
    }

    /// Releases chunk i at `start + times[i]`, painting each one frame later.
    fn play(chunks: &[PaneChunk], start: f64, times: &[f64]) -> PaneRecording {
        let mut rec = PaneRecording::new(chunks.to_vec());
        rec.start(start);
        for (i, t) in times.iter().enumerate() {
            rec.release(i, start + chunks[i].due_ms, start + t);
            rec.take_pending();
            rec.painted(start + t + 16.0, 0.01);
        }
        rec
    }

    #[test]
    fn pane_figures_are_the_live_figures_of_the_same_chunks() {
        // Zero-token chunks with and without text, a stall, a burst of 3.
        let chunks = vec![
            chunk(100.0, "", 0),
            chunk(120.0, "Hel", 1),
            chunk(140.0, "", 0),
            chunk(160.0, "lo", 1),
            chunk(700.0, " wor", 3),
            chunk(720.0, "", 0),
            chunk(740.0, "ld", 1),
            chunk(745.0, "!", 0),
        ];
        let times = [101.0, 121.5, 140.2, 161.0, 703.0, 720.4, 741.0, 746.0];
        let start = 5000.0;
        let rec = play(&chunks, start, &times);
        let now = start + 800.0;
        let trace = rec.finish(PaneMeta::default(), &ReplayInfo::default(), now);
        let live = LiveStats::of(&trace.requests[0], now);
        assert_eq!(rec.stats(now), live);
        assert_eq!(live.tokens, 6);
        assert_eq!(live.ttft_ms, Some(121.5));
        assert_eq!(live.recent_gaps_ms, [161.0 - 121.5, 703.0 - 161.0, 741.0 - 703.0]);
        assert_eq!((live.stalls, live.longest_gap_ms), (1, 542.0));
        assert_eq!(live.ttfp_ms, Some(121.5 + 16.0));
        assert!((live.tokens_per_s.unwrap() - 5.0 * 1000.0 / (741.0 - 121.5)).abs() < 1e-9);
        // Part way through, both ways agree too.
        let part = play(&chunks, start, &times[..4]);
        let partial = part.finish(PaneMeta::default(), &ReplayInfo::default(), start + 200.0);
        assert_eq!(part.stats(start + 200.0), LiveStats::of(&partial.requests[0], start + 200.0));
    }

    #[test]
    fn finished_trace_keeps_due_release_and_paint_times() {
        let chunks = vec![chunk(10.0, "a", 1), chunk(30.0, "b", 2)];
        let rec = play(&chunks, 100.0, &[10.5, 31.0]);
        assert!(rec.is_done());
        let meta = PaneMeta { title: "Fast".into(), source: "profile:fast".into(), ..PaneMeta::default() };
        let t = rec.finish(meta, &ReplayInfo::default(), 200.0);
        let r = &t.requests[0];
        assert_eq!(t.meta.source, SourceKind::Replay);
        assert_eq!((t.meta.label.as_deref(), t.meta.model.as_deref()), (Some("Fast"), Some("profile:fast")));
        assert_eq!(r.sent_ms, 100.0);
        assert_eq!(r.chunks.iter().map(|c| c.due_ms).collect::<Vec<_>>(), [Some(110.0), Some(130.0)]);
        assert_eq!(r.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [110.5, 131.0]);
        assert_eq!(r.chunks.iter().map(|c| c.painted_ms).collect::<Vec<_>>(), [Some(126.5), Some(147.0)]);
        assert_eq!(r.usage.and_then(|u| u.completion_tokens), Some(3));
        let us = t.meta.replay.unwrap().render_us_per_token.unwrap();
        assert!((us - 0.02 * 1000.0 / 3.0).abs() < 1e-9, "{us}");
    }

    #[test]
    fn a_frame_stamped_before_a_release_is_kept_and_flagged() {
        // A worker's release converted to the page clock 0.3 ms after the
        // frame that showed it: the paint stays at the frame's stamp.
        let chunks = vec![chunk(10.0, "a", 1), chunk(30.0, "b", 1)];
        let mut rec = PaneRecording::new(chunks);
        rec.start(100.0);
        rec.release(0, 110.0, 110.2);
        rec.painted(126.0, 0.01);
        rec.release(1, 130.0, 130.3);
        rec.painted(130.0, 0.01);
        let t = rec.finish(PaneMeta::default(), &ReplayInfo::default(), 140.0);
        let r = &t.requests[0];
        assert_eq!(r.chunks[1].painted_ms, Some(130.0), "not moved to the release at 130.3");
        let f = crate::replay::player::Fidelity::of(r).unwrap();
        assert_eq!(f.early_stamps.paints, 1);
        assert!(f.paint_lag_ms.unwrap().min < 0.0, "the lag is negative, as measured");
    }

    #[test]
    fn late_frames_are_longer_than_one_and_a_half_intervals() {
        let mut f = FrameCounter::default();
        for t in [0.0, 16.7, 33.4, 70.0, 86.7] {
            f.on_frame(t, 16.7);
        }
        assert_eq!((f.frames, f.late), (4, 1));
        f.pause();
        f.on_frame(500.0, 16.7);
        assert_eq!((f.frames, f.late), (4, 1), "a pause is no frame interval");
    }

    #[test]
    fn picker_values_name_presets_and_session_requests() {
        assert_eq!(PaneChoice::parse("profile:fast-start"), Some(PaneChoice::Preset("fast-start")));
        assert_eq!(PaneChoice::parse("run:3:1"), Some(PaneChoice::Run { run: 3, request: 1 }));
        assert_eq!(PaneChoice::parse("run:3"), Some(PaneChoice::Run { run: 3, request: 0 }));
        assert_eq!(
            PaneChoice::parse(&PaneChoice::run_value(12, 4)),
            Some(PaneChoice::Run { run: 12, request: 4 })
        );
        for bad in ["", "profile:", "run:x:1", "run:1:y", "keep"] {
            assert_eq!(PaneChoice::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn shared_story_panes_find_their_story() {
        let all = stories();
        let s = &all[1];
        let shared: Vec<SharedPane> = story_panes(s).iter().map(|p| p.to_shared().unwrap()).collect();
        let back = shared_panes(&shared, 4).unwrap();
        assert_eq!(back.len(), s.panes.len());
        assert_eq!(story_of(&shared, &all).map(|s| s.id.as_str()), Some(s.id.as_str()));
        let mut edited = shared.clone();
        edited[0].prompt_tokens += 1;
        assert_eq!(story_of(&edited, &all), None, "an edited pane is no longer the story");
        let bad = [SharedPane {
            title: "x".into(),
            profile: "ttft=fast".into(),
            prompt_tokens: 0,
            smoothing: Smoothing::Off,
        }];
        assert!(shared_panes(&bad, 4).unwrap_err().starts_with("pane “x”"));
        let rec = PaneConfig::recorded("r".into(), "r".into(), RequestTrace::default());
        assert!(rec.to_shared().is_err());
    }
}
