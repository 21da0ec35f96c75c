//! `latency-lab analyze`: read a file, analyse it, render it. Reading is the
//! only I/O; everything else is `lab_core`.

use std::path::{Path, PathBuf};

use lab_core::metrics::MetricsConfig;
use lab_core::score::{self, Scenario, ScenarioError};
use lab_core::slo::{SloError, SloSet};
use lab_core::trace::{MAX_TRACE_BYTES, Trace, TraceError};
use lab_core::{Analysis, AnalysisOptions};

use crate::AnalyzeArgs;

/// Why `analyze` could not produce a result (all exit with code 2).
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
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
}

fn read_text(path: &Path) -> Result<String, AnalyzeError> {
    let size =
        std::fs::metadata(path).map_err(|source| AnalyzeError::Read { path: path.into(), source })?.len();
    if size > MAX_TRACE_BYTES as u64 {
        return Err(AnalyzeError::TooLarge { path: path.into(), size, limit: MAX_TRACE_BYTES });
    }
    let bytes = std::fs::read(path).map_err(|source| AnalyzeError::Read { path: path.into(), source })?;
    String::from_utf8(bytes).map_err(|_| AnalyzeError::NotText { path: path.into() })
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
    let text = read_text(&args.file)?;
    let trace =
        Trace::from_json(&text).map_err(|source| AnalyzeError::Trace { path: args.file.clone(), source })?;
    let opts =
        AnalysisOptions { metrics: MetricsConfig { stall_threshold_ms: args.stall_ms }, slos, scenarios };
    let analysis = Analysis::of(&trace, &opts);
    Ok(if args.json {
        let mut value = serde_json::to_value(&analysis).unwrap_or_default();
        if args.per_request {
            value["per_request"] = serde_json::to_value(&analysis.metrics.per_request).unwrap_or_default();
        }
        serde_json::to_string_pretty(&value).unwrap_or_default()
    } else {
        analysis.to_table()
    })
}
