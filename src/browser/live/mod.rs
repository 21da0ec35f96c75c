//! The live run hook ([`use_live_run`], shaped like leptos-use hooks):
//! runs one request, N in a row, N at once or a concurrency sweep
//! (`lab_core::measure::sweep::RunMode`), shows the first request of each
//! batch as it streams, and ends with a measured run.
//!
//! The request on screen writes its text into the elements of
//! [`UseLiveRunOptions`] and its figures into [`UseLiveRun::stats`]; the
//! others are measured but not drawn, so they have no paint times. While the
//! run streams, [`UseLiveRun::checkpoint`] holds the run so far (finished
//! requests and the partial one on screen) every second, for saving.

mod abort;
mod answer;
mod compare;
mod lane;
mod phase;
mod probe;
mod progress;
mod request;
mod run_spec;
mod screen;
mod shapes;
mod use_live_run;

use futures_util::future::join_all;
use lab_core::load::shape::RunShape;
use lab_core::measure::sweep::RunMode;
use lab_core::serve::protocol::ground_truth_url;
use lab_core::stream::live::LiveStats;
use lab_core::trace::{RequestTrace, Trace};
use leptos::prelude::*;
use leptos::task::spawn_local;

pub use abort::Abort;
pub use compare::{CompareSpec, MAX_ROUNDS};
use lab_core::replay::cadence::Contrast;
pub use phase::RunPhase;
use progress::Progress;
use request::stream_completion;
pub use request::{CHECKPOINT_MS, LiveRequest};
pub use run_spec::RunSpec;
use screen::OnScreen;
pub use screen::STATS_INTERVAL_MS;
pub use use_live_run::use_live_run;

use super::library::Library;
use super::paint::measure_refresh_hz;
use super::resource;
use super::use_session_runs::SessionRuns;

/// Where the request on screen is drawn, and where runs are kept.
#[derive(Clone, Copy)]
pub struct UseLiveRunOptions {
    /// Answer text.
    pub content: NodeRef<leptos::html::Div>,
    /// Shows the answer as Markdown (else as text); read when a request starts.
    pub markdown: Signal<bool>,
    /// Paces the answer onto the screen; read when a request starts.
    pub smoothing: Signal<lab_core::replay::smooth::Smoothing>,
    /// Reasoning text.
    pub reasoning: NodeRef<leptos::html::Pre>,
    /// Tool calls as they stream.
    pub tools: NodeRef<leptos::html::Div>,
    /// Where probes that overlap the one on screen are drawn, each in a
    /// small pane of its own while it streams (probe while loaded), so
    /// every probe has its paint times.
    pub lanes: NodeRef<leptos::html::Div>,
    /// Saves every checkpoint and the finished run (under one id: a tab
    /// closed mid-run leaves an "interrupted" entry).
    pub library: Library,
    /// Keeps finished runs for this page's replay panes and comparisons.
    pub runs: SessionRuns,
    /// Tells the view of its results (another module) about each finished run.
    pub announcer: crate::browser::use_run_announcer::RunAnnouncer,
}

/// The hook's signals and actions.
#[derive(Clone, Copy)]
pub struct UseLiveRun {
    /// Phase.
    pub phase: RwSignal<RunPhase>,
    /// Figures of the request on screen.
    pub stats: RwSignal<LiveStats>,
    /// A run or a comparison of endpoints finished: its results are shown
    /// (the runs module reads and measures them from the library:
    /// [`crate::browser::use_finished_run`]; this module keeps no copy).
    pub has_results: RwSignal<bool>,
    /// The smoothed answer's displayed cadence against the stream's, once
    /// it is all shown (`None` when not smoothed).
    pub cadence: RwSignal<Option<Contrast>>,
    /// A problem that prevented the run (bad config).
    pub error: RwSignal<Option<String>>,
    /// The running run so far, every [`CHECKPOINT_MS`] and after every
    /// batch; its `meta.created_at` names the run.
    pub checkpoint: RwSignal<Option<Trace>>,
    options: UseLiveRunOptions,
    abort: StoredValue<Option<Abort>, LocalStorage>,
    refresh_hz: StoredValue<Option<f64>>,
}

impl UseLiveRun {
    /// True while requests are in flight.
    pub fn running(&self) -> Signal<bool> {
        let phase = self.phase;
        Signal::derive(move || matches!(phase.get(), RunPhase::Running { .. }))
    }

    /// Stops every request of the current run.
    pub fn stop(&self) {
        if let Some(a) = self.abort.get_value() {
            a.abort();
        }
    }

    /// Starts a run (unless one is running).
    pub fn start(&self, spec: RunSpec) {
        if matches!(self.phase.get_untracked(), RunPhase::Running { .. }) {
            return;
        }
        let (url, body) = match (spec.config.completion_url(), spec.config.body()) {
            (Ok(u), Ok(b)) => (u, b),
            (Err(e), _) | (_, Err(e)) => return self.error.set(Some(e.to_string())),
        };
        let Some(abort) = Abort::new() else {
            return self.error.set(Some("this browser cannot abort requests (no AbortController)".into()));
        };
        if let RunShape::Rate { plan } = spec.mode
            && let Err(e) = plan.validate()
        {
            return self.error.set(Some(e.to_string()));
        }
        if let RunShape::Probe { plan } = spec.mode
            && let Err(e) = plan.validate()
        {
            return self.error.set(Some(e.to_string()));
        }
        self.error.set(None);
        self.abort.set_value(Some(abort.clone()));
        let req = spec.request(url, body);
        let run = *self;
        spawn_local(async move { run.run(spec, req, abort).await });
    }

    async fn run(self, spec: RunSpec, req: LiveRequest, abort: Abort) {
        self.clear_screen();
        let o = self.options;
        let mut progress = Progress::new(self, &spec);
        self.checkpoint.set(Some(progress.trace(Vec::new())));
        let levels = match spec.mode {
            RunShape::Levels { mode } => self.run_levels(&mut progress, mode, &req, &abort).await,
            RunShape::PromptSweep { max_tokens, rounds } => {
                shapes::prompt_sweep(self, &mut progress, max_tokens, rounds, &abort).await;
                Vec::new()
            }
            RunShape::Conversation { turns } => {
                shapes::conversation(self, &mut progress, turns, &abort).await;
                Vec::new()
            }
            RunShape::Rate { plan } => {
                shapes::rate(self, &mut progress, plan, &abort).await;
                Vec::new()
            }
            RunShape::Probe { plan } => {
                probe::probe(self, &mut progress, plan, &abort).await;
                Vec::new()
            }
        };
        let trace = progress.trace(progress.so_far.clone());
        // A checkpoint not saved yet would be written after the run and
        // mark it unfinished: the run itself is saved below.
        self.checkpoint.set(None);
        self.has_results.set(true);
        o.runs.add(trace.clone());
        // Its results are announced before the run says it finished.
        o.announcer.hand_over(o.library, vec![trace], levels).await;
        self.phase.set(if abort.aborted() { RunPhase::Stopped } else { RunPhase::Finished });
        self.abort.set_value(None);
    }

    /// The figures and the answer on the page are the next run's.
    fn clear_screen(&self) {
        self.stats.set(LiveStats::default());
        self.cadence.set(None);
        let o = self.options;
        let shown: [Option<web_sys::Element>; 3] = [
            o.content.get_untracked().map(Into::into),
            o.reasoning.get_untracked().map(Into::into),
            o.tools.get_untracked().map(Into::into),
        ];
        shown.iter().flatten().for_each(super::render::clear);
    }

    /// Concurrency levels: batches of requests started together.
    async fn run_levels(
        self,
        progress: &mut Progress<'_>,
        mode: RunMode,
        req: &LiveRequest,
        abort: &Abort,
    ) -> Vec<(u32, usize)> {
        let total = mode.requests();
        let mut levels = Vec::new();
        for (concurrency, rounds) in mode.levels() {
            let first = progress.so_far.len();
            for _ in 0..rounds {
                if abort.aborted() {
                    break;
                }
                self.phase.set(RunPhase::Running { done: progress.so_far.len(), total, concurrency });
                let traces = {
                    let publish = |partial: &RequestTrace| progress.publish(partial);
                    let on_stats = |s: LiveStats| self.stats.set(s);
                    let on_cadence = |c: Option<Contrast>| self.cadence.set(c);
                    let batch = (0..concurrency).map(|i| {
                        let screen =
                            (i == 0).then(|| self.screen(&on_stats, &publish, &on_cadence)).flatten();
                        self.one(req, abort, screen)
                    });
                    join_all(batch).await
                };
                progress.extend(traces);
            }
            levels.push((concurrency, progress.so_far.len() - first));
        }
        levels
    }

    /// One request drawn on the page.
    async fn one_on_screen(self, p: &Progress<'_>, req: &LiveRequest, abort: &Abort) -> RequestTrace {
        let publish = |partial: &RequestTrace| p.publish(partial);
        let on_stats = |s: LiveStats| self.stats.set(s);
        let on_cadence = |c: Option<Contrast>| self.cadence.set(c);
        let screen = self.screen(&on_stats, &publish, &on_cadence);
        self.one(req, abort, screen).await
    }

    pub(super) fn screen<'a>(
        &self,
        on_stats: &'a dyn Fn(LiveStats),
        on_checkpoint: &'a dyn Fn(&RequestTrace),
        on_cadence: &'a dyn Fn(Option<Contrast>),
    ) -> Option<OnScreen<'a>> {
        let content: web_sys::Element = self.options.content.get_untracked()?.into();
        let reasoning: web_sys::Element = self.options.reasoning.get_untracked()?.into();
        let tools: web_sys::Element = self.options.tools.get_untracked()?.into();
        Some(self.drawn_in(content, reasoning, tools, on_stats, on_checkpoint, on_cadence))
    }

    /// A pane of its own for a probe that finds the answer pane taken
    /// (`None` when the view has no place for lanes).
    fn lane(&self) -> Option<lane::Lane> {
        let lanes: web_sys::Element = self.options.lanes.get_untracked()?.into();
        lane::Lane::open(&lanes)
    }

    /// The screen of a request drawn in `lane`; the live figures stay the
    /// answer pane's, so this one's go nowhere.
    fn lane_screen<'a>(&self, lane: &lane::Lane, quiet: &'a lane::Quiet) -> OnScreen<'a> {
        let (content, reasoning, tools) = (lane.content.clone(), lane.reasoning.clone(), lane.tools.clone());
        self.drawn_in(content, reasoning, tools, &quiet.stats, &quiet.checkpoint, &quiet.cadence)
    }

    fn drawn_in<'a>(
        &self,
        content: web_sys::Element,
        reasoning: web_sys::Element,
        tools: web_sys::Element,
        on_stats: &'a dyn Fn(LiveStats),
        on_checkpoint: &'a dyn Fn(&RequestTrace),
        on_cadence: &'a dyn Fn(Option<Contrast>),
    ) -> OnScreen<'a> {
        let markdown = self.options.markdown.get_untracked();
        let smoothing = self.options.smoothing.get_untracked();
        OnScreen { content, markdown, smoothing, reasoning, tools, on_stats, on_checkpoint, on_cadence }
    }

    /// One request, with the server's ground truth and the browser's
    /// network timing when there are any.
    async fn one(&self, req: &LiveRequest, abort: &Abort, screen: Option<OnScreen<'_>>) -> RequestTrace {
        let (mut trace, ground_truth) = stream_completion(req, abort, screen).await;
        if let Some(id) = ground_truth
            && let Ok(text) = super::fetch::get_text(&ground_truth_url(&req.url, &id), None).await
        {
            trace.server = lab_core::measure::groundtruth::parse_server_timing(&text);
        }
        trace.network = resource::find(&req.url, trace.sent_ms);
        trace
    }
}
