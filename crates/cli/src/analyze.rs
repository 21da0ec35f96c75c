//! `latency-lab analyze`: read a file, analyse it, render it. Reading is the
//! only I/O; everything else is `lab_core`.
//!
//! The file is a lab trace, any result file `lab_core::import` reads, field
//! data (OpenTelemetry GenAI spans, `lab_core::field`), or a workload
//! ([`crate::workload`]: its summary, read row by row). For
//! an imported run the output adds `source` (format, tool version, notes) and
//! `tool_summary` (each of the tool's own figures beside the lab's, with
//! `differs` and `why`). A file holding several runs (guidellm sweeps, vLLM
//! `--append-result`, GenAI-Perf experiments) prints `{"runs": [...]}` with
//! `--json`, or one table per run; `--run N` picks one.

use std::path::{Path, PathBuf};

use lab_core::import::{self, ImportError, Imported, ImportedRun, MAX_IMPORT_BYTES};
use lab_core::measure::feel::{FeelConfig, FeelSpecError};
use lab_core::measure::metrics::MetricsConfig;
use lab_core::measure::score::{self, Scenario, ScenarioError};
use lab_core::measure::slo::{SloError, SloSet};
use lab_core::trace::{MAX_TRACE_BYTES, TraceError};
use lab_core::workload::probe::ProbeReport;
use lab_core::{Analysis, AnalysisOptions};

/// Why `analyze` could not produce a result (all exit with code 2).
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Shard traces that cannot be one run.
    #[error("cannot merge: {0}")]
    Merge(String),
    /// A workload file that could not be read.
    #[error(transparent)]
    Workload(#[from] crate::workload::WorkloadFileError),
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is too large.
    #[error("{path} is {size} bytes; files over {limit} bytes are refused")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: usize,
    },
    /// The file is not UTF-8 text.
    #[error("{path} is not UTF-8 text (is it a JSON trace?)")]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// The trace is invalid.
    #[error("{path}: {source}")]
    Trace {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: TraceError,
    },
    /// The file is not a trace or result file the lab reads.
    #[error("{path}: {source}")]
    Import {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: ImportError,
    },
    /// `--run` out of range.
    #[error("--run {wanted}: the file holds {available} run(s)")]
    NoSuchRun {
        /// Asked for.
        wanted: usize,
        /// Present.
        available: usize,
    },
    /// Bad `--slo`.
    #[error("--slo: {0}")]
    Slo(#[from] SloError),
    /// Bad `--scenario` / `--scenario-file`.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// Scenario file is not a scenario.
    #[error("{path} is not a scenario definition: {message}")]
    ScenarioFile {
        /// The file.
        path: PathBuf,
        /// Parser message.
        message: String,
    },
    /// Bad `--stall-ms`.
    #[error("--stall-ms must be a positive number of milliseconds")]
    StallThreshold,
    /// Bad `--fluidity`, `--qoe` or `--apdex`.
    #[error("{0}")]
    Feel(#[from] FeelSpecError),
    /// An OpenTelemetry file without field data.
    #[error("{path}: {source}")]
    Field {
        /// The file.
        path: PathBuf,
        /// Why.
        source: lab_core::field::FieldError,
    },
    /// `--load` could not be put beside the probe run.
    #[error("--load {path}: {source}")]
    LoadTrace {
        /// The load's trace.
        path: PathBuf,
        /// Why.
        source: lab_core::workload::load_trace::LoadTraceError,
    },
}

fn read_text(path: &Path) -> Result<String, AnalyzeError> {
    read_limited(path, MAX_TRACE_BYTES)
}

fn read_limited(path: &Path, limit: usize) -> Result<String, AnalyzeError> {
    let size =
        std::fs::metadata(path).map_err(|source| AnalyzeError::Read { path: path.into(), source })?.len();
    if size > limit as u64 {
        return Err(AnalyzeError::TooLarge { path: path.into(), size, limit });
    }
    let bytes = std::fs::read(path).map_err(|source| AnalyzeError::Read { path: path.into(), source })?;
    String::from_utf8(bytes).map_err(|_| AnalyzeError::NotText { path: path.into() })
}

/// Arguments of `analyze`.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// A Latency Lab trace, a result file of vLLM `bench serve`, guidellm,
    /// AIPerf, GenAI-Perf or LLMPerf, or a workload (Mooncake, Alibaba
    /// Bailian, Azure, BurstGPT, ShareGPT), recognised by content.
    pub file: PathBuf,
    /// More lab traces: the shards of one run (`latency-lab run --shard`),
    /// analysed together as one run.
    pub shards: Vec<PathBuf>,
    /// Also write the merged trace of FILE and the shards here.
    #[arg(long, value_name = "OUT")]
    pub merge: Option<PathBuf>,
    /// Summarise a lab trace as a workload (its send times and lengths).
    #[arg(long)]
    pub workload: bool,
    /// The load's own trace (`latency-lab run -o`) beside a probe run made
    /// against another engine: each window gets the load's offered rate,
    /// failures and TTFT, lined up by the two clocks.
    #[arg(long, value_name = "TRACE")]
    pub load: Option<PathBuf>,
    /// The tool's aggregate file to compare with (AIPerf
    /// `profile_export_aiperf.json`, LLMPerf `*_summary.json`); found
    /// automatically when it sits next to FILE under its usual name.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Analyse only run N (1-based) of a file holding several.
    #[arg(long)]
    pub run: Option<usize>,
    /// SLOs for goodput, e.g. `ttft:200,tpot:15,e2el:3000` (ms).
    #[arg(long)]
    pub slo: Option<String>,
    /// Score only this scenario: chat, code, rag, batch, streaming.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Score with a scenario defined in a JSON file (edited weights/tiers).
    #[arg(long, conflicts_with = "scenario")]
    pub scenario_file: Option<PathBuf>,
    /// Stall threshold in ms (gaps above it are stalls).
    #[arg(long, default_value_t = lab_core::measure::metrics::DEFAULT_STALL_MS)]
    pub stall_ms: f64,
    /// Fluidity-index deadlines: `ttft:MS,tbt:MS` (default ttft:500,tbt:50).
    #[arg(long)]
    pub fluidity: Option<String>,
    /// QoE expectation: `ttft:MS,tps:N` (default ttft:500,tps:20).
    #[arg(long)]
    pub qoe: Option<String>,
    /// Apdex threshold on TTFT in ms (default 500).
    #[arg(long)]
    pub apdex: Option<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// With --json, include per-request metrics.
    #[arg(long)]
    pub per_request: bool,
}

/// Runs the command; returns the text to print.
pub fn run(args: &AnalyzeArgs) -> Result<String, AnalyzeError> {
    if !(args.stall_ms.is_finite() && args.stall_ms > 0.0) {
        return Err(AnalyzeError::StallThreshold);
    }
    let slos = args.slo.as_deref().map(str::parse::<SloSet>).transpose()?;
    let scenarios: Vec<Scenario> = match (&args.scenario, &args.scenario_file) {
        (Some(name), _) => vec![score::preset(name)?],
        (None, Some(path)) => {
            let text = read_text(path)?;
            let s: Scenario = serde_json::from_str(&text)
                .map_err(|e| AnalyzeError::ScenarioFile { path: path.clone(), message: e.to_string() })?;
            s.validate()?;
            vec![s]
        }
        (None, None) => score::presets(),
    };
    if let Some(format) = crate::workload::sniff(&args.file)?
        && (format != lab_core::workload::Format::LabTrace || args.workload)
    {
        let summary = crate::workload::summarize(&args.file, format)?;
        return Ok(if args.json {
            serde_json::to_string_pretty(&crate::workload::to_json(&args.file, &summary)).unwrap_or_default()
        } else {
            crate::workload::render(&args.file, &summary)
        });
    }
    if !args.shards.is_empty() || args.merge.is_some() {
        return merged(args, &opts(args, slos, scenarios)?);
    }
    let text = read_limited(&args.file, MAX_IMPORT_BYTES)?;
    let opts = opts(args, slos, scenarios)?;
    if lab_core::field::otlp::looks_like(&text) {
        return field(&text, args, &opts);
    }
    let import_err = |source| AnalyzeError::Import { path: args.file.clone(), source };
    let mut runs = match import::import(&text) {
        Ok(Imported::Trace(mut trace)) => {
            if let Some(path) = &args.load {
                let load = lab_core::Trace::from_json(&read_limited(path, MAX_IMPORT_BYTES)?)
                    .map_err(|source| AnalyzeError::Trace { path: path.clone(), source })?;
                lab_core::workload::load_trace::add_load_trace(&mut trace, &load)
                    .map_err(|source| AnalyzeError::LoadTrace { path: path.clone(), source })?;
            }
            let analysis = Analysis::of(&trace, &opts);
            let out = with_notes(render(&analysis, None, args), &trace.meta.notes, args.json);
            return Ok(match probe_report(&trace, &opts) {
                None => out,
                Some(report) if args.json => {
                    let mut value: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
                    value["probe"] = serde_json::to_value(&report).unwrap_or_default();
                    serde_json::to_string_pretty(&value).unwrap_or_default()
                }
                Some(report) => format!("{out}\n{}", report.table()),
            });
        }
        Ok(Imported::Field(run)) => return Ok(field_run(&run, args, &opts)),
        Ok(Imported::Runs(runs)) => runs,
        Err(ImportError::Trace(source)) => {
            return Err(AnalyzeError::Trace { path: args.file.clone(), source });
        }
        Err(e) => return Err(import_err(e)),
    };
    drop(text);
    if let Some(summary) = summary_file(args, &runs) {
        let s = read_limited(&summary, MAX_TRACE_BYTES)?;
        for run in &mut runs {
            import::attach_summary(run, &s)
                .map_err(|source| AnalyzeError::Import { path: summary.clone(), source })?;
        }
    }
    if let Some(n) = args.run {
        if n == 0 || n > runs.len() {
            return Err(AnalyzeError::NoSuchRun { wanted: n, available: runs.len() });
        }
        runs = vec![runs.swap_remove(n - 1)];
    }
    let rendered: Vec<String> = runs.iter().map(|run| render_run(run, &opts, args)).collect();
    Ok(if args.json && rendered.len() > 1 {
        format!("{{\"runs\": [\n{}\n]}}", rendered.join(",\n"))
    } else {
        rendered.join("\n\n")
    })
}

/// A trace's analysis with what its source could not say (`meta.notes`)
/// first (`--json`: under `notes`).
fn with_notes(out: String, notes: &[String], json: bool) -> String {
    if notes.is_empty() {
        return out;
    }
    if json {
        let mut value: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        value["notes"] = serde_json::json!(notes);
        return serde_json::to_string_pretty(&value).unwrap_or_default();
    }
    notes.iter().map(|n| format!("note: {n}\n")).collect::<String>() + &out
}

/// Field data (OpenTelemetry GenAI spans), analysed as a run, with what
/// the spans could not say first, as an import's notes (`--json`: under
/// `source`).
fn field(text: &str, args: &AnalyzeArgs, opts: &AnalysisOptions) -> Result<String, AnalyzeError> {
    let run = lab_core::field::FieldRun::read(text)
        .map_err(|source| AnalyzeError::Field { path: args.file.clone(), source })?;
    Ok(field_run(&run, args, opts))
}

/// The analysis of field data, with where it came from and what it lacks.
fn field_run(run: &lab_core::field::FieldRun, args: &AnalyzeArgs, opts: &AnalysisOptions) -> String {
    let out = render(&Analysis::of(&run.trace, opts), None, args);
    let tool = run.trace.meta.tool.clone().unwrap_or_default();
    if args.json {
        let mut value: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        value["source"] =
            serde_json::json!({ "format": "otlp", "tool": tool, "notes": run.trace.meta.notes });
        return serde_json::to_string_pretty(&value).unwrap_or_default();
    }
    let mut head = format!("Source: {tool}\n");
    for n in &run.trace.meta.notes {
        head.push_str(&format!("  note: {n}\n"));
    }
    head + &out
}

/// A probe run's windows, judged by `--scenario` (or the file's), else
/// Interactive chat.
fn probe_report(trace: &lab_core::Trace, opts: &AnalysisOptions) -> Option<ProbeReport> {
    let judge = match opts.scenarios.as_slice() {
        [one] => Some(one),
        all => all.iter().find(|s| s.id == "chat").or(all.first()),
    }?;
    ProbeReport::of(trace, judge, &opts.metrics)
}

/// The analysis options of the flags.
fn opts(
    args: &AnalyzeArgs,
    slos: Option<SloSet>,
    scenarios: Vec<Scenario>,
) -> Result<AnalysisOptions, AnalyzeError> {
    let mut feel = FeelConfig::default();
    args.fluidity.as_deref().map(|s| feel.set_fluidity(s)).transpose()?;
    args.qoe.as_deref().map(|s| feel.set_qoe(s)).transpose()?;
    args.apdex.as_deref().map(|s| feel.set_apdex(s)).transpose()?;
    Ok(AnalysisOptions {
        metrics: MetricsConfig { stall_threshold_ms: args.stall_ms, feel },
        slos,
        scenarios,
    })
}

/// FILE and the shards as one run (written to `--merge` when given).
fn merged(args: &AnalyzeArgs, opts: &AnalysisOptions) -> Result<String, AnalyzeError> {
    let mut parts = Vec::new();
    for path in std::iter::once(&args.file).chain(&args.shards) {
        let text = read_limited(path, MAX_TRACE_BYTES)?;
        let trace = lab_core::Trace::from_json(&text)
            .map_err(|source| AnalyzeError::Trace { path: path.clone(), source })?;
        parts.push((path.display().to_string(), trace));
    }
    // Shards whose clocks disagree are refused, named by their files.
    let trace = lab_core::trace::merge::merge(parts).map_err(|e| AnalyzeError::Merge(e.to_string()))?;
    if let Some(out) = &args.merge {
        let json = serde_json::to_string(&trace).map_err(|e| AnalyzeError::Merge(e.to_string()))?;
        std::fs::write(out, json).map_err(|source| AnalyzeError::Read { path: out.clone(), source })?;
    }
    Ok(with_notes(render(&Analysis::of(&trace, opts), None, args), &trace.meta.notes, args.json))
}

/// `--summary`, or the tool's aggregate file next to FILE under its usual name.
fn summary_file(args: &AnalyzeArgs, runs: &[ImportedRun]) -> Option<PathBuf> {
    if args.summary.is_some() {
        return args.summary.clone();
    }
    let format = runs.first()?.format;
    let name = args.file.file_name()?.to_str()?;
    let sibling = args.file.with_file_name(import::summary_sibling(format, name)?);
    sibling.is_file().then_some(sibling)
}

fn render_run(run: &ImportedRun, opts: &AnalysisOptions, args: &AnalyzeArgs) -> String {
    let metrics = run.metrics(&opts.metrics);
    let comparison = import::compare(run, &metrics);
    let mut analysis = Analysis::from_metrics(metrics, Some(run.label.clone()), run.model.clone(), opts);
    // Conversations: the per-turn table needs the requests' turns.
    if run.requests.iter().any(|r| r.turn.is_some()) {
        analysis.turns = lab_core::measure::turns::turns(&run.to_trace(), &analysis.metrics);
    }
    render(&analysis, Some((run, &comparison)), args)
}

fn render(
    analysis: &Analysis,
    imported: Option<(&ImportedRun, &[import::FigureComparison])>,
    args: &AnalyzeArgs,
) -> String {
    if args.json {
        let mut value = serde_json::to_value(analysis).unwrap_or_default();
        if args.per_request {
            value["per_request"] = serde_json::to_value(&analysis.metrics.per_request).unwrap_or_default();
        }
        if let Some((run, comparison)) = imported {
            value["source"] = serde_json::json!({
                "format": run.format,
                "tool": run.format.name(),
                "tool_version": run.tool_version,
                "notes": run.notes,
            });
            value["tool_summary"] = serde_json::to_value(comparison).unwrap_or_default();
        }
        return serde_json::to_string_pretty(&value).unwrap_or_default();
    }
    let mut out = String::new();
    if let Some((run, _)) = imported {
        let version = run.tool_version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
        out.push_str(&format!("Source: {}{version}\n", run.format.name()));
        for n in &run.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
    }
    out.push_str(&analysis.to_table());
    if let Some((_, comparison)) = imported {
        if comparison.is_empty() {
            out.push_str("\nThe file holds no summary figures of the tool to compare with.\n");
        } else {
            out.push_str("\nThe tool's own summary beside the lab's recomputation:\n");
            out.push_str(&import::comparison_table(comparison));
        }
    }
    out
}
