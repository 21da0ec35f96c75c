//! The import service the app runs in a worker, away from the page's main
//! thread: it holds the imported runs (a 10,000-request benchmark with 10 M
//! gaps stays there) and answers the page with small digests and single
//! requests. Pure: the worker glue passes messages and file bytes in and
//! posts what comes out.
//!
//! Messages travel as JSON ([`ToWorker`], [`FromWorker`]); a file comes
//! with its message as raw bytes.
//!
//! Aggregate-only files (AIPerf `profile_export_aiperf.json`, LLMPerf
//! `*_summary.json`) attach to the latest run of the same tool that has no
//! tool figures yet, or wait for it, so dropping both files at once works in
//! any order.

use serde::{Deserialize, Serialize};

use super::digest::RunDigest;
use super::{ImportError, Imported, ImportedRun, attach_summary, import_bytes, summary_format};
use crate::measure::analysis::AnalysisOptions;
use crate::measure::metrics::RunMetrics;
use crate::measure::slo::SloSet;
use crate::trace::{RequestTrace, Trace};

/// Key of a run the worker holds.
pub type RunKey = u32;

/// Page → worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToWorker {
    /// Import the attached file.
    Import {
        /// The page's number for this file.
        job: u32,
        /// File name (for messages).
        name: String,
        /// SLOs for goodput (`ttft:200,tpot:15`), if any.
        slos: Option<String>,
    },
    /// Recompute a run's analysis under other SLOs.
    Analyze {
        /// The run.
        key: RunKey,
        /// SLOs, if any.
        slos: Option<String>,
    },
    /// Send one request of a run in full, for replay.
    Request {
        /// The run.
        key: RunKey,
        /// Request index.
        index: usize,
        /// What the page will do with it (echoed back).
        purpose: String,
    },
    /// Forget a run.
    Remove {
        /// The run.
        key: RunKey,
    },
    /// Score with these custom scenarios too (beside the presets) from
    /// now on; the page sends `Analyze` for the runs it holds after it.
    Scenarios {
        /// The custom scenarios (`measure::score::custom`).
        custom: Vec<crate::measure::score::Scenario>,
    },
}

/// Worker → page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// Loaded and listening.
    Ready,
    /// Work on a file advanced.
    Progress {
        /// The page's number for the file.
        job: u32,
        /// What is happening, for people.
        phase: String,
        /// 0–1.
        fraction: f64,
    },
    /// A file gave these runs.
    Imported {
        /// The page's number for the file.
        job: u32,
        /// File name.
        name: String,
        /// Runs, with their keys.
        runs: Vec<(RunKey, RunDigest)>,
        /// Time the worker spent (ms), for the record.
        took_ms: f64,
    },
    /// A workload file, summarised as it was read (nothing is kept: a
    /// workload is sent with `latency-lab run`).
    Workload {
        /// The page's number for the file.
        job: u32,
        /// File name.
        name: String,
        /// What it holds.
        digest: Box<crate::workload::summary::Digest>,
        /// Time the worker spent (ms).
        took_ms: f64,
        /// The worker's memory when it was done (bytes).
        memory_bytes: f64,
    },
    /// A run's digest changed (a summary file was attached, or SLOs changed).
    Updated {
        /// The run.
        key: RunKey,
        /// Its new digest.
        digest: Box<RunDigest>,
    },
    /// A summary file is held until the matching per-request file arrives.
    Waiting {
        /// The page's number for the file.
        job: u32,
        /// File name.
        name: String,
        /// What it waits for.
        message: String,
    },
    /// One request in full.
    Request {
        /// The run.
        key: RunKey,
        /// Request index.
        index: usize,
        /// Echo of the page's purpose.
        purpose: String,
        /// The request.
        trace: Box<RequestTrace>,
    },
    /// A request could not be sent.
    RequestFailed {
        /// Echo of the page's purpose.
        purpose: String,
        /// Why, for people.
        message: String,
    },
    /// Something could not be done.
    Failed {
        /// The file's job, when it was about a file.
        job: Option<u32>,
        /// File name or run label.
        name: String,
        /// Why, for people.
        message: String,
    },
}

/// One run held by the service.
enum Held {
    Imported { run: Box<ImportedRun>, metrics: Box<RunMetrics> },
    Trace { trace: Box<Trace>, label: String },
}

/// The service's state.
#[derive(Default)]
pub struct ImportService {
    runs: Vec<(RunKey, Held)>,
    next_key: RunKey,
    /// Summary files waiting for their per-request file: (job, name, text).
    waiting: Vec<(u32, String, String)>,
    /// Custom scenarios scored beside the presets.
    custom: Vec<crate::measure::score::Scenario>,
}

fn options(
    slos: Option<&str>,
    custom: &[crate::measure::score::Scenario],
) -> Result<AnalysisOptions, String> {
    let slos = match slos.filter(|s| !s.trim().is_empty()) {
        Some(s) => Some(s.parse::<SloSet>().map_err(|e| format!("SLOs: {e}"))?),
        None => None,
    };
    Ok(AnalysisOptions {
        slos,
        scenarios: crate::measure::score::custom::all(custom),
        ..AnalysisOptions::default()
    })
}

impl ImportService {
    /// A fresh service.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs held.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// True when no run is held.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Handles one message (`file` with `Import`); `progress(phase,
    /// fraction)` is called as work advances. Never panics on bad input:
    /// every failure becomes a [`FromWorker::Failed`].
    pub fn handle(
        &mut self,
        msg: ToWorker,
        file: Option<&[u8]>,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Vec<FromWorker> {
        match msg {
            ToWorker::Import { job, name, slos } => match file {
                Some(bytes) => self.import(job, name, bytes, slos.as_deref(), progress),
                None => vec![FromWorker::Failed {
                    job: Some(job),
                    name,
                    message: "no file came with the message".into(),
                }],
            },
            ToWorker::Analyze { key, slos } => self.analyze(key, slos.as_deref()),
            ToWorker::Request { key, index, purpose } => self.request(key, index, purpose),
            ToWorker::Remove { key } => {
                self.runs.retain(|(k, _)| *k != key);
                Vec::new()
            }
            ToWorker::Scenarios { custom } => {
                self.custom = custom;
                Vec::new()
            }
        }
    }

    fn import(
        &mut self,
        job: u32,
        name: String,
        bytes: &[u8],
        slos: Option<&str>,
        progress: &mut dyn FnMut(&str, f64),
    ) -> Vec<FromWorker> {
        let opts = match options(slos, &self.custom) {
            Ok(o) => o,
            Err(message) => return vec![FromWorker::Failed { job: Some(job), name, message }],
        };
        let fail = |name: String, e: ImportError| FromWorker::Failed {
            job: Some(job),
            name,
            message: e.to_string(),
        };
        // Aggregate-only files attach to a run, or wait for one.
        let sniff = &bytes[..bytes.len().min(1 << 20)];
        // A cut inside a multi-byte character is not an error: sniff up to it.
        let sniffed = std::str::from_utf8(sniff).or_else(|e| match e.error_len() {
            None => std::str::from_utf8(&sniff[..e.valid_up_to()]),
            Some(_) => Err(e),
        });
        if let Ok(text) = sniffed
            && let Some(format) = summary_format(text)
        {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return vec![fail(name, ImportError::NotText)];
            };
            return match self.attach_latest(format, text, &opts) {
                Some(Ok(update)) => vec![update],
                Some(Err(e)) => vec![fail(name, e)],
                None => {
                    self.waiting.push((job, name.clone(), text.to_string()));
                    vec![FromWorker::Waiting {
                        job,
                        name,
                        message: format!(
                            "{} summary: kept until its per-request file is loaded, then compared with it",
                            format.name()
                        ),
                    }]
                }
            };
        }
        progress("parsing", 0.15);
        let imported = match import_bytes(bytes) {
            Ok(i) => i,
            Err(e) => return vec![fail(name, e)],
        };
        let mut out = Vec::new();
        let mut runs = Vec::new();
        match imported {
            Imported::Trace(trace) => {
                progress("computing metrics", 0.7);
                let label = trace.meta.label.clone().unwrap_or_else(|| name.clone());
                let digest = RunDigest::of_trace(&trace, &label, &opts);
                let key = self.key();
                self.runs.push((key, Held::Trace { trace, label }));
                runs.push((key, digest));
            }
            Imported::Field(run) => {
                progress("computing metrics", 0.7);
                // Its notes travel in the trace (`meta.notes`): the digest reads them there.
                let trace = run.trace;
                let label = trace.meta.label.clone().unwrap_or_else(|| name.clone());
                let digest = RunDigest::of_trace(&trace, &label, &opts);
                let key = self.key();
                self.runs.push((key, Held::Trace { trace: Box::new(trace), label }));
                runs.push((key, digest));
            }
            Imported::Runs(list) => {
                let n = list.len();
                for (i, mut run) in list.into_iter().enumerate() {
                    progress("computing metrics", 0.6 + 0.35 * i as f64 / n as f64);
                    if let Some(pos) =
                        self.waiting.iter().position(|(_, _, t)| summary_format(t) == Some(run.format))
                    {
                        let (_, sname, text) = self.waiting.remove(pos);
                        if let Err(e) = attach_summary(&mut run, &text) {
                            out.push(fail(sname, e));
                        }
                    }
                    let metrics = run.metrics(&opts.metrics);
                    let digest = RunDigest::of_import(&run, metrics.clone(), &opts);
                    let key = self.key();
                    self.runs.push((key, Held::Imported { run: Box::new(run), metrics: Box::new(metrics) }));
                    runs.push((key, digest));
                }
            }
        }
        progress("done", 1.0);
        out.insert(0, FromWorker::Imported { job, name, runs, took_ms: 0.0 });
        out
    }

    fn key(&mut self) -> RunKey {
        self.next_key += 1;
        self.next_key
    }

    /// Attaches a summary to the latest run of its tool without tool figures.
    fn attach_latest(
        &mut self,
        format: super::Format,
        text: &str,
        opts: &AnalysisOptions,
    ) -> Option<Result<FromWorker, ImportError>> {
        let (key, held) = self.runs.iter_mut().rev().find(|(_, h)| {
            matches!(h, Held::Imported { run, .. } if run.format == format && run.summary.is_empty())
        })?;
        let Held::Imported { run, metrics } = held else { return None };
        if let Err(e) = attach_summary(run, text) {
            return Some(Err(e));
        }
        // Duration may have come with the summary: recompute.
        **metrics = run.metrics(&opts.metrics);
        let digest = RunDigest::of_import(run, (**metrics).clone(), opts);
        Some(Ok(FromWorker::Updated { key: *key, digest: Box::new(digest) }))
    }

    fn analyze(&mut self, key: RunKey, slos: Option<&str>) -> Vec<FromWorker> {
        let opts = match options(slos, &self.custom) {
            Ok(o) => o,
            Err(message) => return vec![FromWorker::Failed { job: None, name: String::new(), message }],
        };
        let Some((_, held)) = self.runs.iter().find(|(k, _)| *k == key) else {
            return vec![FromWorker::Failed {
                job: None,
                name: format!("run {key}"),
                message: "that run is no longer loaded".into(),
            }];
        };
        let digest = match held {
            Held::Imported { run, metrics } => RunDigest::of_import(run, (**metrics).clone(), &opts),
            Held::Trace { trace, label } => RunDigest::of_trace(trace, label, &opts),
        };
        vec![FromWorker::Updated { key, digest: Box::new(digest) }]
    }

    fn request(&self, key: RunKey, index: usize, purpose: String) -> Vec<FromWorker> {
        let found = self.runs.iter().find(|(k, _)| *k == key).and_then(|(_, held)| match held {
            Held::Imported { run, .. } => run.request_trace(index),
            Held::Trace { trace, .. } => trace.requests.get(index).cloned(),
        });
        match found {
            Some(t) => vec![FromWorker::Request { key, index, purpose, trace: Box::new(t) }],
            None => vec![FromWorker::RequestFailed {
                purpose,
                message: format!("request {index} is not in that run (was it removed?)"),
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../../tests/fixtures/import/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    fn import(s: &mut ImportService, job: u32, name: &str) -> Vec<FromWorker> {
        let msg = ToWorker::Import { job, name: name.into(), slos: Some("ttft:200".into()) };
        let mut phases = Vec::new();
        let out = s.handle(msg, Some(&fixture(name)), &mut |p, f| phases.push((p.to_string(), f)));
        assert!(phases.windows(2).all(|w| w[0].1 <= w[1].1), "progress only rises: {phases:?}");
        out
    }

    #[test]
    fn summary_first_then_records_in_one_drop() {
        let mut s = ImportService::new();
        let out = import(&mut s, 1, "aiperf_0.13.0_profile_export_aiperf.json");
        assert!(matches!(&out[0], FromWorker::Waiting { .. }), "{out:?}");
        let out = import(&mut s, 2, "aiperf_0.13.0_profile_export.jsonl");
        let FromWorker::Imported { runs, .. } = &out[0] else { panic!("{out:?}") };
        assert!(!runs[0].1.comparison.is_empty(), "the waiting summary was attached");
        assert!(runs[0].1.analysis.goodput.is_some());
    }

    #[test]
    fn records_first_then_summary() {
        let mut s = ImportService::new();
        let out = import(&mut s, 1, "llmperf_lab_48_32_individual_responses.json");
        let FromWorker::Imported { runs, .. } = &out[0] else { panic!() };
        let key = runs[0].0;
        assert!(runs[0].1.comparison.is_empty());
        let out = import(&mut s, 2, "llmperf_lab_48_32_summary.json");
        let FromWorker::Updated { key: k, digest } = &out[0] else { panic!("{out:?}") };
        assert_eq!(*k, key);
        assert!(digest.comparison.iter().any(|c| c.key == "results_ttft_s_quantiles_p99"));
    }

    #[test]
    fn saved_scenarios_score_imports_beside_the_presets() {
        let mut s = ImportService::new();
        let mut mine = crate::measure::score::preset("chat").unwrap();
        mine.id = "chat-perceived".into();
        mine.targets[0].tiers = vec![
            crate::measure::score::Tier { at: 1.0, score: 100.0 },
            crate::measure::score::Tier { at: 2.0, score: 0.0 },
        ];
        assert!(s.handle(ToWorker::Scenarios { custom: vec![mine] }, None, &mut |_, _| {}).is_empty());
        let out = import(&mut s, 1, "vllm_bench_serve.json");
        let FromWorker::Imported { runs, .. } = &out[0] else { panic!() };
        let ids: Vec<&str> = runs[0].1.analysis.scores.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids.len(), crate::measure::score::presets().len() + 1);
        let score = |id: &str| runs[0].1.analysis.scores.iter().find(|x| x.id == id).unwrap().score.unwrap();
        assert!(score("chat-perceived") < score("chat"), "its TTFT target scores 0 past 2 ms");
        s.handle(ToWorker::Scenarios { custom: Vec::new() }, None, &mut |_, _| {});
        let out = s.handle(ToWorker::Analyze { key: runs[0].0, slos: None }, None, &mut |_, _| {});
        let FromWorker::Updated { digest, .. } = &out[0] else { panic!() };
        assert_eq!(digest.analysis.scores.len(), crate::measure::score::presets().len(), "removed again");
    }

    #[test]
    fn requests_analysis_and_failures() {
        let mut s = ImportService::new();
        let out = import(&mut s, 1, "vllm_bench_serve.json");
        let FromWorker::Imported { runs, .. } = &out[0] else { panic!() };
        let (key, digest) = &runs[0];
        let worst = digest.request_at(super::super::digest::PickBy::Ttft, 99.0).unwrap().index;
        let out = s.handle(
            ToWorker::Request { key: *key, index: worst, purpose: "replay".into() },
            None,
            &mut |_, _| {},
        );
        let FromWorker::Request { trace, .. } = &out[0] else { panic!() };
        assert_eq!(trace.chunks.first().map(|c| c.arrived_ms - trace.sent_ms), digest.rows[worst].ttft_ms);
        let out =
            s.handle(ToWorker::Analyze { key: *key, slos: Some("ttft:100".into()) }, None, &mut |_, _| {});
        let FromWorker::Updated { digest: d2, .. } = &out[0] else { panic!() };
        assert!(
            d2.analysis.goodput.as_ref().unwrap().ratio < digest.analysis.goodput.as_ref().unwrap().ratio
        );
        // Broken input and stale keys answer with a reason; the loaded run stays.
        let out = s.handle(
            ToWorker::Import { job: 9, name: "cut.json".into(), slos: None },
            Some(b"{\"backend\": \"vllm\", \"ttfts\": [0.1,"),
            &mut |_, _| {},
        );
        let FromWorker::Failed { message, .. } = &out[0] else { panic!() };
        assert!(message.contains("ends early"), "{message}");
        let out =
            s.handle(ToWorker::Request { key: 999, index: 0, purpose: "p".into() }, None, &mut |_, _| {});
        assert!(matches!(&out[0], FromWorker::RequestFailed { purpose, .. } if purpose == "p"));
        let out =
            s.handle(ToWorker::Analyze { key: *key, slos: Some("ttft=fast".into()) }, None, &mut |_, _| {});
        assert!(matches!(&out[0], FromWorker::Failed { message, .. } if message.starts_with("SLOs")));
        assert_eq!(s.len(), 1);
        s.handle(ToWorker::Remove { key: *key }, None, &mut |_, _| {});
        assert!(s.is_empty());
    }
}
