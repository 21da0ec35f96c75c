//! Workload files on disk ([`lab_core::workload`]): read one row at a time
//! (a buffered reader, never the whole file), so a 1,000,000-row trace is
//! summarised or sent in bounded memory. ShareGPT's text is counted with a
//! real tokenizer here (`tiktoken-rs`, `cl100k_base`: OpenAI's); the
//! browser, which has none, counts pseudo tokens and says so.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use lab_core::workload::format::Layout;
use lab_core::workload::read::{LineReader, detect, lab_trace, sharegpt};
use lab_core::workload::summary::Summary;
use lab_core::workload::{Format, Request, WorkloadError};
use serde_json::json;

/// Bytes read to tell the format.
const HEAD_BYTES: usize = 64 * 1024;

/// Why a workload file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadFileError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A row or the file is not a workload.
    #[error("{path}: {source}")]
    Workload {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: WorkloadError,
    },
}

/// The tokens of `text` by OpenAI's `cl100k_base`.
pub fn count_tokens(text: &str) -> u32 {
    u32::try_from(tiktoken_rs::cl100k_base_singleton().encode_ordinary(text).len()).unwrap_or(u32::MAX)
}

/// The format of the file at `path`, if it is a workload.
pub fn sniff(path: &Path) -> Result<Option<Format>, WorkloadFileError> {
    let io = |source| WorkloadFileError::Read { path: path.to_path_buf(), source };
    let mut head = Vec::with_capacity(HEAD_BYTES);
    File::open(path).map_err(io)?.take(HEAD_BYTES as u64).read_to_end(&mut head).map_err(io)?;
    // A multi-byte character cut at the end of the head is dropped.
    let text = match std::str::from_utf8(&head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    Ok(detect(text))
}

/// Reads every request of the `format` file at `path`, in file order,
/// handing each to `each`; stops at the first bad row.
pub fn read(path: &Path, format: Format, each: &mut dyn FnMut(Request)) -> Result<(), WorkloadFileError> {
    let io = |source| WorkloadFileError::Read { path: path.to_path_buf(), source };
    let bad = |source| WorkloadFileError::Workload { path: path.to_path_buf(), source };
    let file = BufReader::with_capacity(1 << 20, File::open(path).map_err(io)?);
    match &format.spec().layout {
        Layout::Conversations => {
            let count: &dyn Fn(&str) -> u32 = &count_tokens;
            sharegpt(&mut serde_json::Deserializer::from_reader(file), Some(count), each).map_err(bad)?;
        }
        Layout::Trace => {
            let mut text = String::new();
            file.take(lab_core::trace::MAX_TRACE_BYTES as u64 + 1).read_to_string(&mut text).map_err(io)?;
            lab_trace(&text).map_err(bad)?.into_iter().for_each(each);
        }
        Layout::JsonLines(_) | Layout::Csv { .. } => {
            let mut reader = LineReader::new(format);
            let mut file = file;
            let mut line = String::new();
            loop {
                line.clear();
                let n = (&mut file)
                    .take(lab_core::workload::read::MAX_LINE_BYTES as u64 + 2)
                    .read_line(&mut line)
                    .map_err(io)?;
                if n == 0 {
                    break;
                }
                if let Some(r) = reader.line(&line).map_err(bad)? {
                    each(r);
                }
            }
        }
    }
    Ok(())
}

/// The summary of the workload at `path`.
pub fn summarize(path: &Path, format: Format) -> Result<Summary, WorkloadFileError> {
    let mut s = Summary::new(format);
    read(path, format, &mut |r| s.add(&r))?;
    if s.requests == 0 {
        return Err(WorkloadFileError::Workload { path: path.to_path_buf(), source: WorkloadError::Empty });
    }
    Ok(s)
}

fn tokens(s: &Summary, which: &lab_core::workload::summary::Lengths) -> String {
    let p = |q| which.percentile(q).map_or("–".into(), |v| v.to_string());
    let mean = which.mean().map_or("–".into(), |m| format!("{m:.0}"));
    let approx = if s.approximate > 0 { " (approximate)" } else { "" };
    format!("mean {mean}, P50 {}, P90 {}, P99 {}, max {}{approx}", p(50.0), p(90.0), p(99.0), which.max())
}

/// The summary as a terminal table.
pub fn render(path: &Path, s: &Summary) -> String {
    let format = s.format.map_or("workload", Format::label);
    let mut out = format!("{}: {format} workload, {} requests\n\n", path.display(), s.requests);
    let mut row = |k: &str, v: String| out.push_str(&format!("  {k:<22} {v}\n"));
    if let Some(rate) = s.mean_rate() {
        row("span", format!("{:.1} s", s.duration_s()));
        row("request rate", format!("mean {rate:.2}/s, busiest second {}", s.peak_rate()));
        if let Some(b) = s.burstiness() {
            row("burstiness", format!("{b:.2} (CV of the gaps between sends; Poisson = 1)"));
        }
    } else {
        row("send times", "none in the file (sent one after another, or at a rate you give)".into());
    }
    row("input tokens", tokens(s, &s.input));
    row("output tokens", tokens(s, &s.output));
    if s.zero_output > 0 {
        row("no output asked", format!("{} requests (failed in the source?)", s.zero_output));
    }
    if let Some((mean, most)) = s.turns() {
        row("sessions", format!("{}, {mean:.1} requests each, at most {most}", s.sessions()));
    }
    if let (Some(reuse), Some(saved)) = (s.prefix_reuse(), s.tokens_saved_share()) {
        row(
            "prefix reuse",
            format!(
                "{:.1}% of {} blocks seen before: an unbounded prefix cache skips {:.1}% of prompt tokens",
                reuse * 100.0,
                s.blocks,
                saved * 100.0
            ),
        );
    }
    if s.out_of_order > 0 {
        row("out of time order", format!("{} rows sent before the first", s.out_of_order));
    }
    let series = s.rate_series(12);
    if !series.is_empty() {
        out.push_str("\n  request rate over time (per second)\n");
        let top = series.iter().map(|(_, r)| *r).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
        for (t, r) in series {
            let bar = "█".repeat(((r / top) * 30.0).round() as usize);
            out.push_str(&format!("  {t:>8.0} s  {r:>8.2}  {bar}\n"));
        }
    }
    out
}

/// The summary as JSON (core's digest, as the Import view shows it).
pub fn to_json(path: &Path, s: &Summary) -> serde_json::Value {
    json!({"file": path.display().to_string(), "workload": s.digest(120)})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/workload").join(name)
    }

    #[test]
    fn sharegpt_is_counted_with_the_real_tokenizer() {
        assert_eq!(count_tokens("hello world"), 2);
        let s = summarize(&fixture("sharegpt.json"), Format::ShareGpt).unwrap();
        assert_eq!(s.approximate, 0);
        assert!(s.requests > 20);
    }

    #[test]
    fn a_bad_row_names_the_file_and_the_line() {
        let dir = std::env::temp_dir().join(format!("lab-workload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.jsonl");
        std::fs::write(&path, "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\n{\"timestamp\": 1, \"input_length\": \"five\", \"output_length\": 1}\n").unwrap();
        assert_eq!(sniff(&path).unwrap(), Some(Format::Mooncake));
        let e = summarize(&path, Format::Mooncake).unwrap_err().to_string();
        assert!(e.contains("bad.jsonl: line 2: \"input_length\""), "{e}");
        std::fs::write(&path, "").unwrap();
        assert!(summarize(&path, Format::Mooncake).unwrap_err().to_string().contains("no request"));
    }
}
