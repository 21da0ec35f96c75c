//! A live run in progress: when it started, on which client, the requests
//! finished so far, and the checkpoint it publishes for saving.

use lab_core::stream::endpoint::ConfigError;
use lab_core::trace::{ClientInfo, RequestTrace, SourceKind, Trace, TraceMeta, redact_endpoint};
use leptos::prelude::*;

use super::{CHECKPOINT_MS, LiveRequest, RunSpec, UseLiveRun};
use crate::browser::clock::{self, client_info};
use crate::browser::page;

/// A run in progress: when it started, on which client, and the requests
/// so far (published as the checkpoint).
pub(super) struct Progress<'a> {
    pub(super) run: UseLiveRun,
    pub(super) spec: &'a RunSpec,
    started: Option<String>,
    client: ClientInfo,
    pub(super) so_far: Vec<RequestTrace>,
    /// When the run so far was last published.
    published_ms: f64,
}

impl<'a> Progress<'a> {
    pub(super) fn new(run: UseLiveRun, spec: &'a RunSpec) -> Self {
        Self {
            run,
            spec,
            started: Some(page::iso_now()),
            client: client_info(),
            so_far: Vec::new(),
            published_ms: f64::NEG_INFINITY,
        }
    }

    /// The trace of `requests` run `concurrency` at once. The display's
    /// refresh rate is measured while the page starts; a run started at
    /// once learns it on the way.
    pub(super) fn trace_at(&self, requests: Vec<RequestTrace>, concurrency: u32) -> Trace {
        let client =
            ClientInfo { display_refresh_hz: self.run.refresh_hz.get_value(), ..self.client.clone() };
        trace_of(self.spec, requests, concurrency, self.started.clone(), client)
    }

    /// The trace of `requests` at the run's concurrency.
    pub(super) fn trace(&self, requests: Vec<RequestTrace>) -> Trace {
        self.trace_at(requests, self.spec.mode.max_concurrency().max(1))
    }

    /// Publishes the run so far with the partial request on screen.
    pub(super) fn publish(&self, partial: &RequestTrace) {
        let mut reqs = self.so_far.clone();
        reqs.push(partial.clone());
        self.run.checkpoint.set(Some(self.trace(reqs)));
    }

    /// Adds finished requests and publishes the run so far, at most every
    /// [`CHECKPOINT_MS`] (publishing copies and saves the whole run: doing
    /// it per request would load the page while a rate run sends).
    pub(super) fn extend(&mut self, traces: impl IntoIterator<Item = RequestTrace>) {
        self.so_far.extend(traces);
        let now = clock::now_ms();
        if now - self.published_ms >= CHECKPOINT_MS {
            self.published_ms = now;
            self.run.checkpoint.set(Some(self.trace(self.so_far.clone())));
        }
    }

    /// Requests finished so far.
    pub(super) fn done(&self) -> usize {
        self.so_far.len()
    }

    /// A request of the run with `body`, or `None` (and the error shown)
    /// when the body cannot be made.
    pub(super) fn request_with(&self, body: Result<String, ConfigError>) -> Option<LiveRequest> {
        match (body, self.spec.config.completion_url()) {
            (Ok(b), Ok(u)) => Some(self.spec.request(u, b)),
            (Err(e), _) | (_, Err(e)) => {
                self.run.error.set(Some(e.to_string()));
                None
            }
        }
    }
}

/// The trace of a live run (or of one of its levels).
fn trace_of(
    spec: &RunSpec,
    requests: Vec<RequestTrace>,
    concurrency: u32,
    at: Option<String>,
    client: ClientInfo,
) -> Trace {
    Trace {
        meta: TraceMeta {
            label: Some(spec.label.clone()),
            created_at: at,
            source: SourceKind::Live,
            endpoint: spec.config.completion_url().ok().map(|u| redact_endpoint(&u)),
            api: Some(spec.config.api),
            model: Some(spec.config.model.clone()),
            tool: Some(format!("latency-lab {}", env!("CARGO_PKG_VERSION"))),
            concurrency: Some(concurrency),
            client,
            ..TraceMeta::default()
        },
        requests,
        ..Trace::default()
    }
}
