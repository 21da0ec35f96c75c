//! What the replay endpoint can play, by model name:
//!
//! - `profile:<name>`: a named preset profile (`lab_core::replay::profile::presets`).
//! - `profile:<spec>`: any profile, e.g. `profile:ttft=300,tpot=20,jitter=gamma:0.5`.
//! - `trace:<name>`: the requests of a trace file loaded with `--trace`
//!   (name = file stem), replayed in turn; `trace:<name>#<i>` one request.
//!
//! Faults (`lab_core::serve::fault`) follow a `|`: `profile:fast-start|drop_after=5`.
//! The header `X-Latency-Lab-Profile` overrides the model name. A name the
//! catalog does not know falls back to `--profile` when one was given (so
//! any chat UI works whatever model it sends), else it is an error that lists
//! what is available.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use lab_core::replay::profile::{self, Profile};
use lab_core::serve::fault::{Fault, FaultError};
use lab_core::trace::{RequestTrace, Trace};

/// A resolved source for one request.
#[derive(Debug, Clone)]
pub enum Source {
    /// A synthetic profile, with the sequence number of this request.
    Profile(Profile, u64),
    /// One recorded request.
    Recorded(Box<RequestTrace>),
}

/// Why a model name did not resolve.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// Unknown name.
    #[error(
        "model \"{0}\" is not served here; GET /v1/models lists profile:<name>, profile:<spec> and trace:<name>"
    )]
    Unknown(String),
    /// A profile spec that does not parse.
    #[error("bad profile spec: {0}")]
    Spec(#[from] profile::ProfileError),
    /// A fault spec that does not parse.
    #[error("bad fault spec: {0}")]
    Fault(#[from] FaultError),
    /// Request index out of range.
    #[error("trace \"{name}\" has {count} request(s); #{index} does not exist")]
    Index {
        /// Trace name.
        name: String,
        /// Requests in it.
        count: usize,
        /// Index asked for.
        index: usize,
    },
    /// A trace file could not be loaded at start-up.
    #[error("--trace {path}: {message}")]
    Load {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

/// The sources known to the server.
pub struct Catalog {
    traces: Vec<(String, Arc<Trace>)>,
    fallback: Option<Profile>,
    counters: Mutex<HashMap<String, u64>>,
}

impl Catalog {
    /// Builds the catalog, loading trace files.
    pub fn new(trace_files: &[impl AsRef<Path>], fallback: Option<Profile>) -> Result<Self, CatalogError> {
        let mut traces = Vec::new();
        for path in trace_files {
            let path = path.as_ref();
            let load = |message: String| CatalogError::Load { path: path.display().to_string(), message };
            let text = std::fs::read_to_string(path).map_err(|e| load(e.to_string()))?;
            let trace = Trace::from_json(&text).map_err(|e| load(e.to_string()))?;
            if trace.requests.is_empty() {
                return Err(load("the trace has no requests".into()));
            }
            let name = path.file_stem().map_or("trace".into(), |s| s.to_string_lossy().into_owned());
            let name = name.trim_end_matches(".trace").to_string();
            traces.push((name, Arc::new(trace)));
        }
        Ok(Self { traces, fallback, counters: Mutex::new(HashMap::new()) })
    }

    /// Model ids for `/v1/models`.
    pub fn model_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> =
            profile::presets().into_iter().map(|p| format!("profile:{}", p.name)).collect();
        ids.extend(self.traces.iter().map(|(n, _)| format!("trace:{n}")));
        ids
    }

    /// The profile used for unknown names (`--profile`).
    pub fn fallback(&self) -> Option<&Profile> {
        self.fallback.as_ref()
    }

    /// The profile a `profile:` name plays (without counting a request).
    pub fn profile_named(&self, name: &str) -> Option<Profile> {
        let rest = name.trim().strip_prefix("profile:")?;
        profile::preset(rest).or_else(|| rest.parse().ok())
    }

    fn next_index(&self, key: &str) -> u64 {
        let mut c = self.counters.lock().unwrap_or_else(PoisonError::into_inner);
        let n = c.entry(key.to_string()).or_insert(0);
        let i = *n;
        *n += 1;
        i
    }

    /// Resolves a model name (or header value) to a source and the faults
    /// written after its `|`.
    pub fn resolve_with_fault(&self, name: &str) -> Result<(Source, Option<Fault>), CatalogError> {
        match name.split_once('|') {
            Some((src, fault)) => Ok((self.resolve(src)?, Some(fault.parse()?))),
            None => Ok((self.resolve(name)?, None)),
        }
    }

    /// Resolves a model name (or header value) to a source.
    pub fn resolve(&self, name: &str) -> Result<Source, CatalogError> {
        let name = name.trim();
        if let Some(rest) = name.strip_prefix("profile:") {
            let p = match profile::preset(rest) {
                Some(p) => p,
                None => rest.parse::<Profile>()?,
            };
            return Ok(Source::Profile(p, self.next_index(name)));
        }
        if let Some(rest) = name.strip_prefix("trace:") {
            let (tname, index) = match rest.rsplit_once('#') {
                Some((n, i)) => (n, i.parse::<usize>().ok()),
                None => (rest, None),
            };
            if let Some((_, t)) = self.traces.iter().find(|(n, _)| n == tname) {
                let count = t.requests.len();
                let i = match index {
                    Some(i) if i >= count => {
                        return Err(CatalogError::Index { name: tname.to_string(), count, index: i });
                    }
                    Some(i) => i,
                    None => (self.next_index(name) % count as u64) as usize,
                };
                return Ok(Source::Recorded(Box::new(t.requests[i].clone())));
            }
        }
        match &self.fallback {
            Some(p) => Ok(Source::Profile(p.clone(), self.next_index("--profile"))),
            None => Err(CatalogError::Unknown(name.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_presets_specs_traces_and_fallback() {
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/hand.trace.json");
        let c = Catalog::new(&[fixture], None).unwrap();
        assert!(c.model_ids().contains(&"trace:hand".to_string()));
        assert!(c.model_ids().contains(&"profile:fast-start".to_string()));
        assert!(matches!(c.resolve("profile:fast-start"), Ok(Source::Profile(p, 0)) if p.ttft_ms == 150.0));
        assert!(matches!(c.resolve("profile:fast-start"), Ok(Source::Profile(_, 1))));
        assert!(matches!(c.resolve("profile:ttft=5,tpot=1"), Ok(Source::Profile(p, _)) if p.ttft_ms == 5.0));
        assert!(matches!(c.resolve("profile:ttft=-5"), Err(CatalogError::Spec(_))));
        assert!(matches!(c.resolve("trace:hand#1"), Ok(Source::Recorded(r)) if r.sent_ms == 1000.0));
        assert!(matches!(c.resolve("trace:hand#9"), Err(CatalogError::Index { count: 6, .. })));
        let first = c.resolve("trace:hand").unwrap();
        let second = c.resolve("trace:hand").unwrap();
        assert!(
            matches!((first, second), (Source::Recorded(a), Source::Recorded(b)) if a.sent_ms != b.sent_ms)
        );
        assert!(matches!(c.resolve("gpt-4o"), Err(CatalogError::Unknown(_))));
        let lenient = Catalog::new(&[] as &[&str], Some(Profile::simple("x", 1.0, 1.0, 2))).unwrap();
        assert!(matches!(lenient.resolve("gpt-4o"), Ok(Source::Profile(p, 0)) if p.name == "x"));
        assert!(Catalog::new(&["/nonexistent.json"], None).is_err());
        let (_, fault) = c.resolve_with_fault("profile:fast-start|drop_after=3").unwrap();
        assert_eq!(fault.unwrap().drop_after, Some(3));
        assert!(matches!(c.resolve_with_fault("profile:fast-start|boom=1"), Err(CatalogError::Fault(_))));
    }
}
