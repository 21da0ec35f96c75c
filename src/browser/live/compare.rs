//! Endpoints compared (`lab_core::measure::compare`): the same prompt sent
//! to 2–4 endpoints (any wires) in turn, round after round, the endpoint
//! that goes first turning with the rounds (`compare::order`). One request at a time, each
//! drawn in the answer pane, so each has its paint times; every endpoint's
//! requests become a trace of their own, the traces of one comparison
//! grouped by a [`CompareInfo`] (one library row, one results table).

use lab_core::load::shape::RunShape;
use lab_core::measure::compare::{MAX_ENDPOINTS, letter, order};
use lab_core::measure::sweep::RunMode;
use lab_core::share::command::CompareSide;
use lab_core::trace::{CompareInfo, Trace};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::{Abort, LiveRequest, Progress, RunPhase, RunSpec, UseLiveRun};
use crate::browser::page;

/// Most rounds of one comparison.
pub const MAX_ROUNDS: u32 = 200;

/// A comparison to run.
#[derive(Debug, Clone)]
pub struct CompareSpec {
    /// The endpoints, the baseline (A) first, each with its own key and
    /// CORS advice.
    pub sides: Vec<RunSpec>,
    /// Rounds: each sends the prompt once to every endpoint.
    pub rounds: u32,
}

impl CompareSpec {
    /// The comparison its set-up asks for (`Command::Compare`): each side
    /// labelled with its letter and its endpoint in a few words.
    pub fn of(sides: Vec<CompareSide>, rounds: u32) -> Self {
        let sides = sides
            .into_iter()
            .take(MAX_ENDPOINTS + 1)
            .enumerate()
            .map(|(i, s)| RunSpec {
                label: format!("{} · {}", letter(i), s.config.describe()),
                api_key: s.key,
                cors_hint: s.cors_hint,
                mode: RunShape::Levels { mode: RunMode::Repeat { n: rounds } },
                config: s.config,
            })
            .collect();
        Self { sides, rounds }
    }

    /// Each endpoint's request, or what is wrong with the comparison.
    fn requests(&self) -> Result<Vec<LiveRequest>, String> {
        let n = self.sides.len();
        if !(2..=MAX_ENDPOINTS).contains(&n) {
            return Err(format!("Add 2 to {MAX_ENDPOINTS} endpoints to compare ({n} added)."));
        }
        if !(1..=MAX_ROUNDS).contains(&self.rounds) {
            return Err(format!("Rounds must be 1 to {MAX_ROUNDS} (got {}).", self.rounds));
        }
        self.sides
            .iter()
            .enumerate()
            .map(|(i, s)| match (s.config.completion_url(), s.config.body()) {
                (Ok(u), Ok(b)) => Ok(s.request(u, b)),
                (Err(e), _) | (_, Err(e)) => Err(format!("Endpoint {}: {e}", letter(i))),
            })
            .collect()
    }
}

impl UseLiveRun {
    /// Starts a comparison (unless a run is going); a bad one is said in
    /// [`UseLiveRun::error`].
    pub fn compare(&self, spec: CompareSpec) {
        if matches!(self.phase.get_untracked(), RunPhase::Running { .. }) {
            return;
        }
        let requests = match spec.requests() {
            Ok(r) => r,
            Err(e) => return self.error.set(Some(e)),
        };
        let Some(abort) = Abort::new() else {
            return self.error.set(Some("this browser cannot abort requests (no AbortController)".into()));
        };
        self.error.set(None);
        self.abort.set_value(Some(abort.clone()));
        let run = *self;
        spawn_local(async move { run.run_compare(spec, requests, abort).await });
    }

    async fn run_compare(self, spec: CompareSpec, requests: Vec<LiveRequest>, abort: Abort) {
        self.clear_screen();
        let k = spec.sides.len();
        let group = format!("compare-{:.0}-{:06.0}", page::epoch_ms(), page::random() * 1e6);
        let mut sides: Vec<Progress> = spec.sides.iter().map(|s| Progress::new(self, s)).collect();
        for (i, p) in sides.iter_mut().enumerate() {
            let (position, of, rounds) = (i as u32, k as u32, spec.rounds);
            p.compare = Some(CompareInfo { group: group.clone(), position, of, rounds });
        }
        let total = k * spec.rounds as usize;
        for i in order(k, spec.rounds as usize) {
            if abort.aborted() {
                break;
            }
            let done = sides.iter().map(Progress::done).sum();
            self.phase.set(RunPhase::Running { done, total, concurrency: 1 });
            let trace = self.one_on_screen(&sides[i], &requests[i], &abort).await;
            sides[i].extend([trace]);
        }
        let traces: Vec<Trace> = sides.iter().map(|p| p.trace(p.so_far.clone())).collect();
        drop(sides);
        self.checkpoint.set(None);
        self.has_results.set(true);
        for t in &traces {
            self.options.runs.add(t.clone());
        }
        self.options.announcer.hand_over(self.options.library, traces, Vec::new()).await;
        self.phase.set(if abort.aborted() { RunPhase::Stopped } else { RunPhase::Finished });
        self.abort.set_value(None);
    }
}
