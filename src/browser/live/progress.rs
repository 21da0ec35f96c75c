//! A live run in progress: when it started, on which client, the requests
//! finished so far, and the checkpoint it publishes for saving.

use lab_core::stream::endpoint::{Checkpoints, ConfigError, live_meta};
use lab_core::trace::{ClientInfo, CompareInfo, LoadWindow, RequestTrace, Trace};
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
    /// The load beside a probe run, window by window.
    pub(super) load: Vec<LoadWindow>,
    /// What the run's trace should say it lacks (`meta.notes`).
    pub(super) notes: Vec<String>,
    /// The comparison this run is one endpoint of.
    pub(super) compare: Option<CompareInfo>,
    /// When the run so far is published next.
    checkpoints: Checkpoints,
}

impl<'a> Progress<'a> {
    pub(super) fn new(run: UseLiveRun, spec: &'a RunSpec) -> Self {
        Self {
            run,
            spec,
            started: Some(page::iso_now()),
            client: client_info(),
            so_far: Vec::new(),
            load: Vec::new(),
            notes: Vec::new(),
            compare: None,
            checkpoints: Checkpoints::every(CHECKPOINT_MS),
        }
    }

    /// The trace of `requests` run `concurrency` at once. The display's
    /// refresh rate is measured while the page starts; a run started at
    /// once learns it on the way.
    pub(super) fn trace_at(&self, requests: Vec<RequestTrace>, concurrency: u32) -> Trace {
        let client =
            ClientInfo { display_refresh_hz: self.run.refresh_hz.get_value(), ..self.client.clone() };
        let mut meta =
            live_meta(&self.spec.label, &self.spec.config, concurrency, self.started.clone(), client);
        meta.load = self.load.clone();
        meta.notes.extend(self.notes.iter().cloned());
        meta.compare = self.compare.clone();
        // `performance.now()` counts from here: a load's own trace lines up with it.
        meta.clock_epoch_ms = Some(page::opened_ms());
        Trace { meta, requests, ..Trace::default() }
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
        if self.checkpoints.due(clock::now_ms()) {
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
