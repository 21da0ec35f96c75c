//! The run library's records and its export bundle.
//!
//! - An [`Entry`] describes one saved item (a live run, a replay, an
//!   imported result file, a study's answers) with a name, tags and a short
//!   summary for the list; the trace or file itself is stored beside it under
//!   the same id.
//! - An entry with `complete: false` is a live run saved while it was still
//!   streaming (checkpoints): **recording** while the page that runs it is
//!   open (saved since that page started), **interrupted** once that page
//!   is gone ([`Entry::status`]).
//! - Ids: a live run keeps one id across its checkpoints, `live-<start>`
//!   from its `created_at`; everything else gets a fresh id,
//!   `<kind>-<ms since the epoch>-<6 random digits>` ([`trace_id`],
//!   [`fresh_id`]).
//! - A [`Bundle`] (`format: "latency-lab/bundle"`) carries entries with their
//!   traces or file texts, to move a library between browsers.
//! - The panes of one replay playback are one [`Entry::group`] (the
//!   playback's id from its traces), and so are the endpoints of one
//!   comparison (`crate::trace::CompareInfo::group`): the list shows them
//!   as one row ([`rows`]) that opens onto its entries.

use serde::{Deserialize, Serialize};

use crate::measure::metrics::{MetricsConfig, RunMetrics};
use crate::measure::registry;
use crate::trace::{SourceKind, Trace, TraceError};

/// The `format` of bundles.
pub const BUNDLE_FORMAT: &str = "latency-lab/bundle";
/// Current bundle version.
pub const BUNDLE_VERSION: u32 = 1;
/// Most tags on an entry.
pub const MAX_TAGS: usize = 12;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A live run.
    Live,
    /// A replay.
    Replay,
    /// An imported result file.
    Import,
    /// A study's collected answers.
    Study,
}

impl EntryKind {
    /// Word for people.
    pub fn word(self) -> &'static str {
        match self {
            Self::Live => "live run",
            Self::Replay => "replay",
            Self::Import => "imported file",
            Self::Study => "study results",
        }
    }
}

impl EntryKind {
    /// The kind of a trace: a live run, or else a replay played here.
    pub fn of_trace(trace: &Trace) -> Self {
        match trace.meta.source {
            SourceKind::Live => Self::Live,
            _ => Self::Replay,
        }
    }
}

/// A new unique id for an entry of `kind`, from the time (ms since the
/// epoch) and a random number in `[0, 1)`.
pub fn fresh_id(kind: EntryKind, now_ms: f64, random: f64) -> String {
    format!("{}-{}-{:06}", kind.word().replace(' ', "-"), now_ms as u64, (random * 1e6) as u64)
}

/// The id of a trace's entry: stable for a live run across its checkpoints,
/// else fresh.
pub fn trace_id(trace: &Trace, now_ms: f64, random: f64) -> String {
    let kind = EntryKind::of_trace(trace);
    match &trace.meta.created_at {
        // One id per endpoint of a comparison: they start together.
        Some(at) if kind == EntryKind::Live => match &trace.meta.compare {
            Some(c) => format!("live-{at}-{}", crate::measure::compare::letter(c.position as usize)),
            None => format!("live-{at}"),
        },
        _ => fresh_id(kind, now_ms, random),
    }
}

/// Whether an entry holds a whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryStatus {
    /// Finished.
    Complete,
    /// Still streaming in the page that runs it.
    Recording,
    /// Cut before it finished (its page closed).
    Interrupted,
}

impl EntryStatus {
    /// Word for people (and the list's `data-status`).
    pub fn word(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Recording => "recording",
            Self::Interrupted => "interrupted",
        }
    }

    /// What a report of such an entry must say first, if anything.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            Self::Complete => None,
            Self::Recording => Some(
                "Partial: this run was still recording when the report was made. It holds the requests finished by then and what the running one had received; the figures will change.",
            ),
            Self::Interrupted => Some(
                "Partial: this run was interrupted (its tab closed before it finished). It holds the requests finished by then and what the running one had received.",
            ),
        }
    }
}

/// One saved item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Id (the key of its data too).
    pub id: String,
    /// Kind.
    pub kind: EntryKind,
    /// Name (editable).
    pub name: String,
    /// Tags (editable).
    #[serde(default)]
    pub tags: Vec<String>,
    /// Saved at (ms since the Unix epoch).
    pub saved_ms: f64,
    /// False while (or if) a live run was cut before it finished.
    #[serde(default = "yes")]
    pub complete: bool,
    /// Requests in it.
    #[serde(default)]
    pub requests: usize,
    /// Failed requests.
    #[serde(default)]
    pub failed: usize,
    /// Median TTFT (ms).
    #[serde(default)]
    pub ttft_p50_ms: Option<f64>,
    /// Median E2EL (ms).
    #[serde(default)]
    pub e2el_p50_ms: Option<f64>,
    /// Median QoE (0–1) with the default reader ([`crate::measure::feel`]);
    /// absent in entries saved before it was listed.
    #[serde(default)]
    pub qoe_p50: Option<f64>,
    /// Apdex of TTFT (0–1) with the default threshold.
    #[serde(default)]
    pub apdex_ttft: Option<f64>,
    /// Original file name (imports).
    #[serde(default)]
    pub file_name: Option<String>,
    /// File size (imports).
    #[serde(default)]
    pub file_bytes: Option<u64>,
    /// The playback a replay pane belongs to (its panes share it), or the
    /// comparison a live run's endpoint was part of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Its place in its group: the pane's place in a playback, the
    /// endpoint's in a comparison (0 first). Entries of one group are often
    /// saved in the same millisecond, so their saved time cannot order them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
}

fn yes() -> bool {
    true
}

/// The statistic the registry says a library entry keeps of row `id`.
fn kept_of(m: &RunMetrics, id: &str) -> Option<f64> {
    let r = registry::row(id)?;
    let stat = r.places.library?;
    (r.get)(m).map(|s| stat.of(&s))
}

impl Entry {
    /// The value kept of a latency row whose
    /// [`registry::Places::library`] is set (its field in the entry).
    pub fn kept(&self, id: &str) -> Option<f64> {
        match id {
            "ttft" => self.ttft_p50_ms,
            "e2el" => self.e2el_p50_ms,
            _ => None,
        }
    }

    /// An entry for a trace.
    pub fn for_trace(id: String, kind: EntryKind, trace: &Trace, complete: bool, saved_ms: f64) -> Self {
        let m = RunMetrics::of(trace, &MetricsConfig::default());
        Self {
            id,
            kind,
            name: trace.meta.label.clone().unwrap_or_else(|| kind.word().to_string()),
            tags: Vec::new(),
            saved_ms,
            complete,
            requests: m.requests,
            failed: m.failed,
            ttft_p50_ms: kept_of(&m, "ttft"),
            e2el_p50_ms: kept_of(&m, "e2el"),
            qoe_p50: m.qoe.map(|s| s.p50),
            apdex_ttft: m.apdex_ttft,
            file_name: None,
            file_bytes: None,
            group: trace
                .meta
                .replay
                .as_ref()
                .and_then(|r| r.playback.clone())
                .or_else(|| trace.meta.compare.as_ref().map(|c| c.group.clone())),
            place: match (&trace.meta.replay, &trace.meta.compare) {
                (Some(r), _) if r.playback.is_some() => r.pane,
                (_, Some(c)) => Some(c.position),
                _ => None,
            },
        }
    }

    /// An entry for an imported file.
    pub fn for_file(id: String, name: &str, bytes: u64, saved_ms: f64) -> Self {
        Self {
            id,
            kind: EntryKind::Import,
            name: name.to_string(),
            tags: Vec::new(),
            saved_ms,
            complete: true,
            requests: 0,
            failed: 0,
            ttft_p50_ms: None,
            e2el_p50_ms: None,
            qoe_p50: None,
            apdex_ttft: None,
            file_name: Some(name.to_string()),
            file_bytes: Some(bytes),
            group: None,
            place: None,
        }
    }
}

/// One row of the library's list: an entry, or the panes of one replay
/// playback.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The playback, for a group of panes.
    pub group: Option<String>,
    /// Its entries (one, or the playback's panes in the order saved).
    pub entries: Vec<Entry>,
}

impl Row {
    /// A key that changes when anything the row shows changes.
    pub fn key(&self) -> String {
        self.entries
            .iter()
            .map(|e| format!("{}|{}|{}|{}|{}", e.id, e.complete, e.name, e.tags.join(","), e.requests))
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The group's name for people: "replay: A vs B" for a playback's
    /// panes, "compare: A vs B" for a comparison's endpoints.
    pub fn title(&self) -> String {
        let names: Vec<&str> = self.entries.iter().map(|e| e.name.as_str()).collect();
        format!("{}: {}", self.what(), names.join(" vs "))
    }

    /// What the group is: `replay` (a playback's panes) or `compare` (a
    /// comparison's endpoints, live runs).
    pub fn what(&self) -> &'static str {
        if self.entries.iter().all(|e| e.kind == EntryKind::Live) { "compare" } else { "replay" }
    }
}

/// The whole runs (live runs and replays) among `entries` saved since
/// `since_ms` (a page's opening: its session's runs), oldest first, the
/// last `keep` of them.
pub fn runs_since(entries: &[Entry], since_ms: f64, keep: usize) -> Vec<&Entry> {
    let mut runs: Vec<&Entry> = entries
        .iter()
        .filter(|e| {
            matches!(e.kind, EntryKind::Live | EntryKind::Replay) && e.complete && e.saved_ms >= since_ms
        })
        .collect();
    runs.sort_by(|a, b| a.saved_ms.total_cmp(&b.saved_ms));
    runs.split_off(runs.len().saturating_sub(keep))
}

/// `entries` (newest first) as the list shows them: each group's entries
/// (a replay playback's panes, a comparison's endpoints) together, at the
/// place of its newest, in their [`Entry::place`] (those without one after,
/// oldest first); everything else one row each. A group with one entry left
/// is a plain row.
pub fn rows(entries: &[Entry]) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    for e in entries {
        match &e.group {
            Some(g) => match out.iter_mut().find(|r| r.group.as_ref() == Some(g)) {
                Some(r) => r.entries.push(e.clone()),
                None => out.push(Row { group: Some(g.clone()), entries: vec![e.clone()] }),
            },
            None => out.push(Row { group: None, entries: vec![e.clone()] }),
        }
    }
    for r in &mut out {
        // Saved newest first: oldest first, then by place (a stable sort
        // keeps the saved order where places tie or are missing).
        r.entries.reverse();
        r.entries.sort_by_key(|e| e.place.unwrap_or(u32::MAX));
        if r.entries.len() < 2 {
            r.group = None;
        }
    }
    out
}

impl Entry {
    /// Complete, recording (saved since `page_start_ms`, the start of the
    /// page that records) or interrupted.
    pub fn status(&self, page_start_ms: f64) -> EntryStatus {
        match (self.complete, self.saved_ms >= page_start_ms) {
            (true, _) => EntryStatus::Complete,
            (false, true) => EntryStatus::Recording,
            (false, false) => EntryStatus::Interrupted,
        }
    }
}

/// Tags from what a person typed: split at commas, trimmed, lower-cased,
/// without duplicates or empties, at most [`MAX_TAGS`] of 40 characters.
pub fn parse_tags(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in text.split(',') {
        let t: String = t.trim().to_lowercase().chars().take(40).collect();
        if !t.is_empty() && !out.contains(&t) && out.len() < MAX_TAGS {
            out.push(t);
        }
    }
    out
}

/// One entry with its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleItem {
    /// The entry.
    pub entry: Entry,
    /// Its trace (live runs, replays).
    #[serde(default)]
    pub trace: Option<Trace>,
    /// Its file text (imports, study results).
    #[serde(default)]
    pub text: Option<String>,
}

/// Entries moved between browsers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    /// Always [`BUNDLE_FORMAT`].
    pub format: String,
    /// [`BUNDLE_VERSION`].
    pub version: u32,
    /// The items.
    pub items: Vec<BundleItem>,
}

/// Why a bundle could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BundleError {
    /// Not JSON, or not a bundle.
    #[error("not a Latency Lab bundle: {0}")]
    Parse(String),
    /// From a newer lab.
    #[error("bundle version {0} is newer than this lab reads ({BUNDLE_VERSION})")]
    Version(u32),
    /// A trace inside is invalid.
    #[error("entry \"{name}\": {source}")]
    Trace {
        /// The entry.
        name: String,
        /// What is wrong.
        source: TraceError,
    },
}

impl Bundle {
    /// A bundle of items.
    pub fn new(items: Vec<BundleItem>) -> Self {
        Self { format: BUNDLE_FORMAT.into(), version: BUNDLE_VERSION, items }
    }

    /// JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads and checks a bundle (every trace is validated).
    pub fn from_json(text: &str) -> Result<Self, BundleError> {
        let b: Bundle = serde_json::from_str(text)
            .map_err(|e| BundleError::Parse(crate::trace::json_error::plain(&e)))?;
        if b.format != BUNDLE_FORMAT {
            return Err(BundleError::Parse(format!(
                "format is \"{}\", expected \"{BUNDLE_FORMAT}\"",
                b.format
            )));
        }
        if b.version > BUNDLE_VERSION {
            return Err(BundleError::Version(b.version));
        }
        for item in &b.items {
            if let Some(t) = &item.trace {
                t.validate()
                    .map_err(|source| BundleError::Trace { name: item.entry.name.clone(), source })?;
            }
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::profile::Profile;

    #[test]
    fn a_sessions_runs_are_its_pages_whole_runs_oldest_first_up_to_a_count() {
        let t = Trace::default();
        let entry =
            |id: &str, kind, saved_ms, complete| Entry::for_trace(id.into(), kind, &t, complete, saved_ms);
        let mut all = vec![
            entry("before", EntryKind::Live, 90.0, true),
            entry("import", EntryKind::Import, 150.0, true),
            entry("recording", EntryKind::Live, 160.0, false),
            entry("b", EntryKind::Replay, 130.0, true),
            entry("a", EntryKind::Live, 120.0, true),
        ];
        let ids = |l: &[Entry], keep| {
            runs_since(l, 100.0, keep).into_iter().map(|e| e.id.clone()).collect::<Vec<_>>()
        };
        assert_eq!(ids(&all, 12), ["a", "b"]);
        all.extend((0..20).map(|i| entry(&format!("r{i}"), EntryKind::Replay, 200.0 + f64::from(i), true)));
        let kept = ids(&all, 12);
        assert_eq!(kept.len(), 12);
        assert_eq!((kept[0].as_str(), kept[11].as_str()), ("r8", "r19"));
    }

    #[test]
    fn ids_status_and_kinds() {
        let mut t = Trace::default();
        t.meta.created_at = Some("2026-12-03T10:00:00.000Z".into());
        t.meta.source = SourceKind::Replay;
        assert_eq!(EntryKind::of_trace(&t), EntryKind::Replay);
        assert_eq!(trace_id(&t, 1_764_756_000_123.9, 0.25), "replay-1764756000123-250000");
        t.meta.source = SourceKind::Live;
        assert_eq!(EntryKind::of_trace(&t), EntryKind::Live);
        let id = "live-2026-12-03T10:00:00.000Z";
        assert_eq!(trace_id(&t, 1.0, 0.5), id, "a live run keeps its id across checkpoints");
        assert_eq!(trace_id(&t, 2.0, 0.7), id);
        t.meta.created_at = None;
        assert_eq!(trace_id(&t, 5.0, 0.999_999_9), "live-run-5-999999");
        assert_eq!(fresh_id(EntryKind::Study, 7.0, 0.0), "study-results-7-000000");

        let mut e = Entry::for_trace("x".into(), EntryKind::Live, &t, false, 1000.0);
        assert_eq!(e.status(900.0), EntryStatus::Recording);
        assert_eq!(e.status(1500.0), EntryStatus::Interrupted);
        e.complete = true;
        assert_eq!(e.status(1500.0), EntryStatus::Complete);
        assert!(EntryStatus::Complete.caveat().is_none());
        assert!(EntryStatus::Recording.caveat().unwrap().starts_with("Partial"));
    }

    #[test]
    fn a_playback_s_panes_are_one_row() {
        // The walk of 2026-12-04: 16 entries after a few stories, one per pane.
        let pane = |title: &str, playback: Option<&str>, n: usize| {
            let mut t = Profile::simple(title, 100.0, 10.0, 5).to_trace(1, 10);
            t.meta.source = SourceKind::Replay;
            t.meta.label = Some(title.into());
            t.meta.replay =
                playback.map(|p| crate::trace::ReplayInfo { playback: Some(p.into()), ..Default::default() });
            Entry::for_trace(format!("e{n}"), EntryKind::Replay, &t, true, n as f64)
        };
        // Newest first, as the library lists them.
        let list = vec![
            pane("slow", Some("b"), 4),
            pane("fast", Some("b"), 3),
            pane("live run", None, 2),
            pane("jittery", Some("a"), 1),
            pane("smooth", Some("a"), 0),
            pane("alone", Some("c"), 5),
        ];
        let r = rows(&list);
        assert_eq!(r.len(), 4);
        assert_eq!((r[0].group.as_deref(), r[0].title().as_str()), (Some("b"), "replay: fast vs slow"));
        assert_eq!(r[1].entries[0].name, "live run");
        assert_eq!(r[2].entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["smooth", "jittery"]);
        assert_eq!(r[3].group, None, "one pane left is a plain row");
        assert_ne!(r[0].key(), rows(&list[1..])[0].key());
        // A comparison's endpoints (live runs) are one row too.
        let side = |name: &str, position: u32, n: usize| {
            let mut t = Profile::simple(name, 100.0, 10.0, 5).to_trace(2, 10);
            t.meta.label = Some(name.into());
            let group = "compare-1".to_string();
            t.meta.compare = Some(crate::trace::CompareInfo { group, position, of: 2, rounds: 2 });
            Entry::for_trace(format!("l{n}"), EntryKind::Live, &t, true, n as f64)
        };
        let r = rows(&[side("B · anthropic", 1, 11), side("A · chat", 0, 10)]);
        assert_eq!((r.len(), r[0].what()), (1, "compare"));
        assert_eq!(r[0].title(), "compare: A · chat vs B · anthropic");
        // Saved in the same millisecond, in either order: their places order
        // them (the Firefox run of f1bf701 listed "B … vs A …").
        let (a, mut b) = (side("A · chat", 0, 10), side("B · anthropic", 1, 10));
        b.saved_ms = a.saved_ms;
        for list in [[a.clone(), b.clone()], [b, a]] {
            assert_eq!(rows(&list)[0].title(), "compare: A · chat vs B · anthropic");
        }
        // A playback's panes by their place, whatever order they ended in.
        let placed = |title: &str, place: u32| {
            let mut e = pane(title, Some("p"), 7);
            e.place = Some(place);
            e
        };
        let r = rows(&[placed("left", 0), placed("right", 2), placed("middle", 1)]);
        assert_eq!(r[0].title(), "replay: left vs middle vs right");
    }

    #[test]
    fn entries_summarize_traces() {
        let t = Profile::simple("p", 100.0, 10.0, 5).to_trace(3, 10);
        let e = Entry::for_trace("a".into(), EntryKind::Replay, &t, true, 1.0);
        assert_eq!((e.requests, e.failed), (3, 0));
        assert!((e.ttft_p50_ms.unwrap() - 100.0).abs() < 1e-9);
        // 100 ms TTFT and 100 tokens/s beat the default reader (500 ms, 20 tokens/s).
        assert_eq!((e.qoe_p50, e.apdex_ttft), (Some(1.0), Some(1.0)));
        let slow = Profile::simple("s", 900.0, 100.0, 5).to_trace(2, 10);
        let e = Entry::for_trace("b".into(), EntryKind::Replay, &slow, true, 1.0);
        assert_eq!(e.apdex_ttft, Some(0.5)); // 500 < 900 ≤ 2000: tolerating
        assert!(e.qoe_p50.unwrap() < 1.0);
        assert_eq!(parse_tags(" Fast, fast,  demo ,,GPU-A "), ["fast", "demo", "gpu-a"]);
    }

    #[test]
    fn bundles_round_trip_and_refuse_bad_input() {
        let t = Profile::simple("p", 100.0, 10.0, 5).to_trace(1, 10);
        let b = Bundle::new(vec![
            BundleItem {
                entry: Entry::for_trace("a".into(), EntryKind::Live, &t, false, 5.0),
                trace: Some(t),
                text: None,
            },
            BundleItem {
                entry: Entry::for_file("b".into(), "x.json", 3, 6.0),
                trace: None,
                text: Some("{}".into()),
            },
        ]);
        assert_eq!(Bundle::from_json(&b.to_json()).unwrap(), b);
        assert!(matches!(Bundle::from_json("[]"), Err(BundleError::Parse(_))));
        let mut newer = b.clone();
        newer.version = 99;
        assert_eq!(Bundle::from_json(&newer.to_json()), Err(BundleError::Version(99)));
        let mut broken = b;
        broken.items[0].trace.as_mut().unwrap().requests[0].sent_ms = 1e9;
        assert!(matches!(Bundle::from_json(&broken.to_json()), Err(BundleError::Trace { .. })));
    }

    /// Every latency row the registry keeps in the library has its field in
    /// an entry, and nothing else is kept: adding `library` to a row fails
    /// here until the entry holds it.
    #[test]
    fn entries_keep_what_the_registry_names() {
        let t = Trace::from_json(
            r#"{"schema_version":1,"requests":[{"sent_ms":0,"end_ms":300,"chunks":[{"arrived_ms":100,"text":"a"},{"arrived_ms":200,"text":"b"}]}]}"#,
        )
        .unwrap();
        let e = Entry::for_trace("x".into(), EntryKind::Live, &t, true, 0.0);
        for r in crate::measure::registry::LATENCY {
            assert_eq!(e.kept(r.id).is_some(), r.places.library.is_some(), "row {}", r.id);
        }
        assert_eq!(e.kept("ttft"), Some(100.0));
        assert_eq!(e.kept("e2el"), Some(200.0));
    }
}
