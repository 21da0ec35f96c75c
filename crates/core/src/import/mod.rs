//! Importing the results of the benchmark tools people already use, as they
//! are on disk. The format is detected from the content, never the file
//! name:
//!
//! | tool | file | per request |
//! |---|---|---|
//! | vLLM `vllm bench serve --save-result --save-detailed` | `*.json` (one object, or one per line with `--append-result`) | TTFT, every ITL, latency, start time, lengths, text, error |
//! | guidellm | `benchmarks.json` | start, first and last token time, token counts, text, error |
//! | AIPerf | `profile_export.jsonl` | start, TTFT, every inter-chunk latency, lengths, error |
//! | GenAI-Perf (perf_analyzer) | `profile_export.json` | request and every response timestamp, the raw responses |
//! | LLMPerf | `*_individual_responses.json` | TTFT, end-to-end latency, token counts, error |
//!
//! Each becomes one or more [`ImportedRun`]s: requests kept compactly (a run
//! of 10,000 requests with 10 M inter-token latencies fits in a few hundred
//! MB), lab metrics computed the lab's way ([`ImportedRun::metrics`]), a
//! full trace built for any single request on demand
//! ([`ImportedRun::request_trace`]) so it can be replayed, and the tool's
//! own summary figures kept beside the lab's ([`compare`]).

mod aiperf;
mod compare;
pub mod digest;
mod genai_perf;
mod guidellm;
mod llmperf;
mod reconstruct;
pub mod service;
mod vllm;

use serde::{Deserialize, Serialize};

pub use compare::{FigureComparison, FigureMetric, FigureStat, ToolFigure, compare, comparison_table};
pub use reconstruct::ImportedRequest;

use crate::measure::metrics::{MetricsConfig, RequestMetrics, RunMetrics};
use crate::measure::stats::Samples;
use crate::trace::{MAX_TRACE_BYTES, RequestTrace, SourceKind, Trace, TraceError, TraceMeta};

/// Largest file the importers accept (1 GiB).
pub const MAX_IMPORT_BYTES: usize = 1024 * 1024 * 1024;

/// How much of the file is looked at to recognise its format (1 MiB).
const SNIFF_BYTES: usize = 1024 * 1024;

/// The formats the lab reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A Latency Lab trace.
    LabTrace,
    /// vLLM `bench serve` result.
    Vllm,
    /// guidellm benchmark report.
    GuideLlm,
    /// AIPerf per-request records.
    AiPerf,
    /// GenAI-Perf / perf_analyzer profile export.
    GenAiPerf,
    /// LLMPerf individual responses.
    LlmPerf,
}

impl Format {
    /// Name for people.
    pub fn name(self) -> &'static str {
        match self {
            Self::LabTrace => "Latency Lab trace",
            Self::Vllm => "vLLM bench serve result",
            Self::GuideLlm => "guidellm benchmark report",
            Self::AiPerf => "AIPerf profile_export.jsonl",
            Self::GenAiPerf => "GenAI-Perf profile_export.json",
            Self::LlmPerf => "LLMPerf individual responses",
        }
    }
}

/// What the lab can read, for error messages.
pub const EXPECTED: &str = "a Latency Lab trace, a vLLM `bench serve --save-result --save-detailed` JSON, a guidellm benchmarks.json, an AIPerf profile_export.jsonl, a GenAI-Perf profile_export.json, an LLMPerf *_individual_responses.json, or OpenTelemetry GenAI spans (OTLP/JSON, a collector's file export, Tempo or Jaeger)";

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// Nothing in it.
    #[error("the file is empty; expected {EXPECTED}")]
    Empty,
    /// Too large.
    #[error("the file is {size} bytes; files over {limit} bytes are refused")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Not text.
    #[error("the file is not UTF-8 text; expected {EXPECTED}")]
    NotText,
    /// A format the lab does not know.
    #[error("not a format the lab reads ({found}); expected {EXPECTED}")]
    Unknown {
        /// What it looked like.
        found: String,
    },
    /// A file of a known tool that holds no per-request data.
    #[error("{what}: it holds only aggregate figures, no per-request timings; {instead}")]
    SummaryOnly {
        /// What it is.
        what: &'static str,
        /// What to import instead.
        instead: &'static str,
    },
    /// Recognised, but broken or cut off.
    #[error("this looks like a {format} but cannot be read: {message}")]
    Broken {
        /// The format it looked like.
        format: &'static str,
        /// What is wrong (with line and column when the JSON is cut).
        message: String,
    },
    /// A lab trace with a problem.
    #[error("{0}")]
    Trace(#[from] TraceError),
}

impl ImportError {
    pub(crate) fn broken(format: Format, message: impl Into<String>) -> Self {
        Self::Broken { format: format.name(), message: message.into() }
    }

    pub(crate) fn json(format: Format, e: &serde_json::Error) -> Self {
        Self::broken(format, crate::trace::json_error::plain(e))
    }

    /// A JSON error on line `line` (1-based) of a JSON-lines file.
    pub(crate) fn json_line(format: Format, e: &serde_json::Error, line: usize) -> Self {
        Self::broken(format, crate::trace::json_error::at_line(e, line))
    }
}

/// One imported run (a benchmark at one load level).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedRun {
    /// The tool's format.
    pub format: Format,
    /// Label: the tool's name for the run, or the model and load.
    pub label: String,
    /// Model, when the file says.
    pub model: Option<String>,
    /// Tool version, when the file says.
    pub tool_version: Option<String>,
    /// Requests, in the order the tool listed them.
    pub requests: Vec<ImportedRequest>,
    /// All inter-token gaps (ms), the requests index into it.
    pub itl_ms: Vec<f64>,
    /// The run's wall time (ms), when the tool recorded it.
    pub duration_ms: Option<f64>,
    /// Concurrency, when known.
    pub concurrency: Option<u32>,
    /// The tool's own summary figures.
    pub summary: Vec<ToolFigure>,
    /// What to know about this import (definitions, reconstructed data).
    pub notes: Vec<String>,
}

impl ImportedRun {
    /// Lab metrics of the run (failed requests excluded, as everywhere).
    ///
    /// The per-request entries keep their stalls and jitter but not their
    /// gaps (`itl` is empty: a 10,000-request run holds ~10 M of them, kept
    /// once in [`ImportedRun::itl_ms`]); [`ImportedRun::request_trace`] gives
    /// any request in full.
    pub fn metrics(&self, cfg: &MetricsConfig) -> RunMetrics {
        let mut scratch = Vec::new();
        let per_request: Vec<RequestMetrics> = self
            .requests
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut m = r.metrics(i, &self.itl_ms, &mut scratch, cfg);
                m.itl = Vec::new();
                m
            })
            .collect();
        let pooled = Samples::from_finite(self.completed_gaps(&per_request));
        RunMetrics::from_pooled(per_request, pooled, true, self.duration_ms, cfg)
    }

    /// The inter-token gaps of the completed requests (per-chunk, as the
    /// tools record them; spread requests give their even gaps).
    fn completed_gaps<'a>(&'a self, per_request: &'a [RequestMetrics]) -> impl Iterator<Item = f64> + 'a {
        self.requests
            .iter()
            .zip(per_request)
            .filter(|(_, m)| m.completed)
            .flat_map(move |(r, _)| r.gaps(&self.itl_ms))
    }

    /// The pooled ITL samples of the completed requests.
    pub fn itl_samples(&self, m: &RunMetrics) -> Samples {
        Samples::from_finite(self.completed_gaps(&m.per_request))
    }

    /// A full trace of request `i` (chunks reconstructed from its timings).
    pub fn request_trace(&self, i: usize) -> Option<RequestTrace> {
        self.requests.get(i).map(|r| r.to_trace(&self.itl_ms))
    }

    /// The whole run as a lab trace (every request reconstructed). Fine for
    /// ordinary runs; for huge ones prefer [`ImportedRun::metrics`] and
    /// [`ImportedRun::request_trace`].
    pub fn to_trace(&self) -> Trace {
        Trace {
            meta: self.meta(),
            requests: (0..self.requests.len()).filter_map(|i| self.request_trace(i)).collect(),
            ..Trace::default()
        }
    }

    /// Trace metadata of this run.
    pub fn meta(&self) -> TraceMeta {
        TraceMeta {
            label: Some(self.label.clone()),
            source: SourceKind::Import,
            model: self.model.clone(),
            tool: Some(match &self.tool_version {
                Some(v) => format!("{} {v}", self.format.name()),
                None => self.format.name().to_string(),
            }),
            concurrency: self.concurrency,
            duration_ms: self.duration_ms,
            ..TraceMeta::default()
        }
    }
}

/// Recognises the format from the start of the text.
pub fn detect(text: &str) -> Result<Format, ImportError> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.is_empty() {
        return Err(ImportError::Empty);
    }
    let head = head(t, SNIFF_BYTES);
    let has = |k: &str| head.contains(k);
    if has("\"latency-lab/trace\"") {
        return Ok(Format::LabTrace);
    }
    if has("\"aiperf_version\"") || (has("\"input_config\"") && has("\"time_to_first_token\"")) {
        return Err(ImportError::SummaryOnly {
            what: "an AIPerf profile_export_aiperf.json",
            instead: "import the profile_export.jsonl from the same artifacts folder (with it, the lab compares these figures)",
        });
    }
    if has("\"schema_version\"") && has("\"requests\"") {
        return Ok(Format::LabTrace);
    }
    if has("\"results_ttft_s_mean\"") || has("\"results_inter_token_latency_s_quantiles") {
        return Err(ImportError::SummaryOnly {
            what: "an LLMPerf *_summary.json",
            instead: "import the *_individual_responses.json written next to it (with it, the lab compares these figures)",
        });
    }
    if has("\"ttft_s\"") && has("\"end_to_end_latency_s\"") {
        return Ok(Format::LlmPerf);
    }
    if has("\"experiments\"") && has("\"response_timestamps\"") {
        return Ok(Format::GenAiPerf);
    }
    if has("\"benchmarks\"") && (has("\"generative_benchmark\"") || has("\"successful\"")) {
        return Ok(Format::GuideLlm);
    }
    let first_line = head.lines().next().unwrap_or("");
    if first_line.contains("\"metadata\"") && first_line.contains("\"metrics\"") {
        return Ok(Format::AiPerf);
    }
    if has("\"ttfts\"") || has("\"mean_ttft_ms\"") || (has("\"num_prompts\"") && has("\"backend\"")) {
        return Ok(Format::Vllm);
    }
    let found = match t.as_bytes()[0] {
        b'{' => "a JSON object with none of the expected fields",
        b'[' => "a JSON array with none of the expected fields",
        b'<' => "HTML or XML",
        _ => "text that is not JSON",
    };
    Err(ImportError::Unknown { found: found.to_string() })
}

/// Everything a file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Imported {
    /// A lab trace (already in the lab's own form).
    Trace(Box<Trace>),
    /// Runs of another tool.
    Runs(Vec<ImportedRun>),
    /// Field data: OpenTelemetry GenAI spans as a trace, with what the
    /// spans could not say ([`crate::field`]).
    Field(Box<crate::field::FieldRun>),
}

/// The name of OpenTelemetry span files in messages.
pub const FIELD_FORMAT: &str = "OpenTelemetry trace file (OTLP/JSON, Tempo or Jaeger)";

/// The first `max` bytes of a text, cut back to a character boundary (a
/// cut inside a multi-byte character would panic; the fuzzer found it).
pub(crate) fn head(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Imports a file's text.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge { size: text.len(), limit: MAX_IMPORT_BYTES });
    }
    if crate::field::otlp::looks_like(text) {
        return crate::field::FieldRun::read(text)
            .map(|run| Imported::Field(Box::new(run)))
            .map_err(|e| ImportError::Broken { format: FIELD_FORMAT, message: e.to_string() });
    }
    let format = detect(text)?;
    let runs = match format {
        Format::LabTrace => {
            if text.len() > MAX_TRACE_BYTES {
                return Err(ImportError::TooLarge { size: text.len(), limit: MAX_TRACE_BYTES });
            }
            return Ok(Imported::Trace(Box::new(Trace::from_json(text)?)));
        }
        Format::Vllm => vllm::import(text)?,
        Format::GuideLlm => guidellm::import(text)?,
        Format::AiPerf => aiperf::import(text)?,
        Format::GenAiPerf => genai_perf::import(text)?,
        Format::LlmPerf => llmperf::import(text)?,
    };
    if runs.is_empty() || runs.iter().all(|r| r.requests.is_empty()) {
        return Err(ImportError::broken(format, "it contains no requests"));
    }
    Ok(Imported::Runs(runs))
}

/// Imports a file as the given tool's result, without detection (the
/// fuzzer drives every importer this way; a lab trace is not a run list and
/// gives none).
pub fn import_as(format: Format, text: &str) -> Result<Vec<ImportedRun>, ImportError> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge { size: text.len(), limit: MAX_IMPORT_BYTES });
    }
    match format {
        Format::LabTrace => Ok(Vec::new()),
        Format::Vllm => vllm::import(text),
        Format::GuideLlm => guidellm::import(text),
        Format::AiPerf => aiperf::import(text),
        Format::GenAiPerf => genai_perf::import(text),
        Format::LlmPerf => llmperf::import(text),
    }
}

/// The tool whose aggregate-only file this is (AIPerf's
/// `profile_export_aiperf.json`, LLMPerf's `*_summary.json`), so it can be
/// paired with the per-request file of the same benchmark
/// ([`attach_summary`]).
pub fn summary_format(text: &str) -> Option<Format> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if llmperf::is_summary(t) {
        Some(Format::LlmPerf)
    } else if t.starts_with('{') && aiperf::is_summary(t) && !head(t, 4096).contains("\"metadata\"") {
        Some(Format::AiPerf)
    } else {
        None
    }
}

/// Adds a tool's aggregate file (see [`summary_format`]) to a run imported
/// from the same tool's per-request file: its figures are then compared with
/// the lab's.
pub fn attach_summary(run: &mut ImportedRun, text: &str) -> Result<(), ImportError> {
    match (summary_format(text), run.format) {
        (Some(Format::AiPerf), Format::AiPerf) => aiperf::attach_summary(run, text),
        (Some(Format::LlmPerf), Format::LlmPerf) => llmperf::attach_summary(run, text),
        (Some(f), _) => Err(ImportError::Broken {
            format: f.name(),
            message: format!("a {} summary cannot describe a {} run", f.name(), run.format.name()),
        }),
        (None, _) => Err(ImportError::Unknown { found: "not a summary file of AIPerf or LLMPerf".into() }),
    }
}

/// The file name of the aggregate file a tool writes next to this
/// per-request file, when it writes one (for pairing files on disk).
pub fn summary_sibling(format: Format, file_name: &str) -> Option<String> {
    match format {
        Format::AiPerf => Some(file_name.replace("profile_export.jsonl", "profile_export_aiperf.json"))
            .filter(|s| s != file_name),
        Format::LlmPerf => {
            Some(file_name.replace("_individual_responses.json", "_summary.json")).filter(|s| s != file_name)
        }
        _ => None,
    }
}

/// Imports raw bytes (checks size and UTF-8 first).
pub fn import_bytes(bytes: &[u8]) -> Result<Imported, ImportError> {
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge { size: bytes.len(), limit: MAX_IMPORT_BYTES });
    }
    let text = std::str::from_utf8(bytes).map_err(|_| ImportError::NotText)?;
    import(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_by_content() {
        assert_eq!(detect(r#"{"schema_version":1,"requests":[]}"#), Ok(Format::LabTrace));
        assert_eq!(detect(r#"{"date":"x","backend":"vllm","num_prompts":3,"ttfts":[]}"#), Ok(Format::Vllm));
        assert_eq!(
            detect(r#"[{"error_code":null,"ttft_s":1,"end_to_end_latency_s":2}]"#),
            Ok(Format::LlmPerf)
        );
        assert_eq!(
            detect(r#"{"experiments":[{"requests":[{"response_timestamps":[]}]}]}"#),
            Ok(Format::GenAiPerf)
        );
        assert_eq!(detect(r#"{"benchmarks":[{"type_":"generative_benchmark"}]}"#), Ok(Format::GuideLlm));
        assert_eq!(detect("{\"metadata\":{},\"metrics\":{}}\n{\"metadata\":{}}"), Ok(Format::AiPerf));
        assert!(matches!(detect(r#"{"results_ttft_s_mean": 1}"#), Err(ImportError::SummaryOnly { .. })));
        assert!(matches!(
            detect(r#"{"input_config":{},"time_to_first_token":{"avg":1}}"#),
            Err(ImportError::SummaryOnly { .. })
        ));
        assert!(matches!(detect("<html>"), Err(ImportError::Unknown { .. })));
        assert!(matches!(detect("   "), Err(ImportError::Empty)));
        let e = detect(r#"{"hello":"world"}"#).unwrap_err().to_string();
        assert!(e.contains("vLLM") && e.contains("guidellm") && e.contains("LLMPerf"), "{e}");
    }

    #[test]
    fn bytes_that_are_not_text() {
        assert_eq!(import_bytes(b"\xff\xfe\x00{").unwrap_err(), ImportError::NotText);
    }
}
