//! What one module of the page asks another to do.
//!
//! The page is more than one wasm module: views fetched on demand run in
//! their own module, beside the main one, and share nothing in memory.
//! What they share is what both read (IndexedDB, Web Storage, the URL);
//! the few actions that cross, they ask for as a [`Command`], sent as JSON
//! in a DOM event and carried out by the module that owns the action.

use serde::{Deserialize, Serialize};

use crate::stream::endpoint::EndpointConfig;
use crate::study::Study;
use crate::trace::{RequestTrace, Trace};

/// The DOM event a command travels in (on `window`, its `detail` the JSON).
pub const EVENT: &str = "latency-lab:command";
/// The DOM event the main module announces Live's last finished run in (its
/// `detail` a [`FinishedRun`]'s JSON), for the view that shows its results,
/// which lives in another module.
pub const RUN_EVENT: &str = "latency-lab:finished-run";
/// The DOM event a module sends when it wrote Web Storage, so the others in
/// the same page read it again (`storage` events only reach other tabs);
/// its `detail` is the key.
pub const STORAGE_EVENT: &str = "latency-lab:storage";

/// An action one module asks another for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// Externally tagged (`{"compare": {…}}`, `"announce_run"`): an internally
// tagged enum buffers its variant and deserializes it a second way, which
// put a second copy of the endpoint config's and the study's readers into
// the page (about 7 kB of gzipped wasm in each module).
#[serde(rename_all = "snake_case")]
pub enum Command {
    /// Run this study as a test participant (the participant flow is the
    /// main module's).
    RunTest {
        /// The study, as the designer holds it.
        study: Box<Study>,
    },
    /// Play these recorded requests side by side in the Replay view, and
    /// show it (the replay lab is the main module's).
    Replay {
        /// The panes, left to right.
        panes: Vec<RecordedPane>,
    },
    /// Announce Live's last finished run again (the view that shows its
    /// results has just been mounted, after the announcement).
    AnnounceRun,
    /// Compare these endpoints (Live's comparison set-up lives in an
    /// on-demand module; the run is Live's, in the main module).
    Compare {
        /// The endpoints, the baseline (A) first.
        sides: Vec<CompareSide>,
        /// Rounds: each sends the prompt once to every endpoint.
        rounds: u32,
    },
}

/// One endpoint of a comparison as the set-up hands it to Live.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareSide {
    /// The endpoint and its request (no key).
    pub config: EndpointConfig,
    /// Its key, sent in its wire's auth header only: it crosses from one
    /// module to the other in this one in-page event, and is never stored,
    /// written into a trace or printed (not even by `Debug`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// CORS advice for its kind of server.
    pub cors_hint: String,
}

impl std::fmt::Debug for CompareSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompareSide")
            .field("config", &self.config)
            .field("key", &self.key.as_ref().map(|_| "(set)"))
            .field("cors_hint", &self.cors_hint)
            .finish()
    }
}

/// Live's last finished run, as announced on [`RUN_EVENT`] to the view that
/// shows its results, which lives in another module (sharing no memory
/// with Live): where the run is, not the run. Live saves it to the library
/// before announcing it; that view reads it back and measures it, the one
/// time a finished run is measured (`measure::run::MeasuredRun::of`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinishedRun {
    /// The library entries holding it: the run's, or each compared
    /// endpoint's, the baseline first.
    pub entries: Vec<String>,
    /// Its requests per concurrency level (a sweep's), in the order run:
    /// (concurrency, requests), consecutive stretches of its trace's
    /// requests ([`FinishedRun::levels_of`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<(u32, usize)>,
    /// A comparison of endpoints (each of [`FinishedRun::entries`] one).
    #[serde(default)]
    pub compare: bool,
    /// When the library could not keep it: why, and the traces themselves
    /// (the one case an announcement carries the run, so nothing is lost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsaved: Option<Unsaved>,
}

/// A finished run the library could not keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unsaved {
    /// What the library said.
    pub error: String,
    /// The run's trace, or each compared endpoint's.
    pub traces: Vec<Trace>,
}

impl FinishedRun {
    /// Its JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A run from JSON, or what is wrong with it.
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// `trace`'s requests per concurrency level, from `levels`' counts:
    /// each level a trace of its stretch of requests, its meta the run's
    /// with that concurrency (as Live wrote each level). Counts past the
    /// end are cut short.
    pub fn levels_of(trace: &Trace, levels: &[(u32, usize)]) -> Vec<(u32, Trace)> {
        let mut at: usize = 0;
        levels
            .iter()
            .map(|&(concurrency, n)| {
                let end = at.saturating_add(n).min(trace.requests.len());
                let mut meta = trace.meta.clone();
                meta.concurrency = Some(concurrency);
                let requests = trace.requests[at.min(end)..end].to_vec();
                at = end;
                (concurrency, Trace { meta, requests, ..Trace::default() })
            })
            .collect()
    }
}

/// A recorded request to replay in a pane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedPane {
    /// The pane's title ("worst (P99 TTFT) · request #7").
    pub title: String,
    /// Where it comes from, for the pane's label ("vllm.json · worst…").
    pub label: String,
    /// The request.
    pub request: RequestTrace,
}

impl Command {
    /// Its JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A command from JSON; `None` for anything else (an event of another
    /// version of the page, a damaged one): it is ignored.
    pub fn from_json(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_travel_as_json_and_strangers_are_ignored() {
        let c = Command::RunTest { study: Box::new(Study::example()) };
        let json = c.to_json();
        assert!(json.starts_with(r#"{"run_test":{"#), "{json}");
        assert_eq!(Command::from_json(&json), Some(c));
        let r = Command::Replay {
            panes: vec![RecordedPane {
                title: "typical".into(),
                label: "run · typical".into(),
                request: RequestTrace::default(),
            }],
        };
        assert_eq!(Command::from_json(&r.to_json()), Some(r));
        assert_eq!(Command::from_json(r#""announce_run""#), Some(Command::AnnounceRun));
        let side = CompareSide {
            config: EndpointConfig::default(),
            key: Some("sk-secret".into()),
            cors_hint: "".into(),
        };
        let c = Command::Compare { sides: vec![side.clone(), CompareSide { key: None, ..side }], rounds: 3 };
        assert_eq!(Command::from_json(&c.to_json()), Some(c.clone()));
        assert!(!format!("{c:?}").contains("sk-secret"), "Debug never prints a key");
        let run = FinishedRun {
            entries: vec!["live-1".into()],
            levels: vec![(1, 2), (2, 4)],
            compare: false,
            unsaved: None,
        };
        let json = run.to_json();
        assert!(json.len() < 80, "an announcement names the run, it does not carry it: {json}");
        assert_eq!(FinishedRun::from_json(&json), Ok(run));
        assert!(FinishedRun::from_json("{}").unwrap_err().contains("entries"), "what is wrong is said");
        for other in ["", "{}", r#"{"format_disk":{}}"#, r#""format_disk""#, "[1,2]"] {
            assert_eq!(Command::from_json(other), None, "{other}");
        }
    }

    #[test]
    fn a_sweep_s_levels_are_stretches_of_its_trace() {
        let mut t = Trace::default();
        t.meta.concurrency = Some(4);
        t.meta.label = Some("sweep".into());
        t.requests =
            (0..7).map(|i| RequestTrace { sent_ms: f64::from(i), ..RequestTrace::default() }).collect();
        let levels = FinishedRun::levels_of(&t, &[(1, 1), (2, 2), (4, 8)]);
        let shape: Vec<(u32, Option<u32>, Vec<f64>)> = levels
            .iter()
            .map(|(c, l)| (*c, l.meta.concurrency, l.requests.iter().map(|r| r.sent_ms).collect()))
            .collect();
        assert_eq!(
            shape,
            [(1, Some(1), vec![0.0]), (2, Some(2), vec![1.0, 2.0]), (4, Some(4), vec![3.0, 4.0, 5.0, 6.0])],
            "the last level cut at the trace's end"
        );
        assert_eq!(levels[1].1.meta.label.as_deref(), Some("sweep"));
        assert!(FinishedRun::levels_of(&t, &[]).is_empty());
    }
}
