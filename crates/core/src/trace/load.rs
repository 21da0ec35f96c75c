//! Loading a trace: JSON parsing, version handling and validation, each
//! failure a [`TraceError`] that says what is wrong and where.

use super::{FORMAT, MAX_TRACE_BYTES, SCHEMA_VERSION, Trace};

/// Why a trace could not be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TraceError {
    /// The file is larger than [`MAX_TRACE_BYTES`].
    #[error("the file is {size} bytes; traces larger than {limit} bytes are refused")]
    TooLarge {
        /// Size of the input.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Not JSON at all, or cut off.
    #[error("not valid JSON: {message}")]
    Json {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        message: String,
    },
    /// JSON, but not a lab trace.
    #[error(
        "this JSON is not a Latency Lab trace (expected an object with \"schema_version\" and \"requests\"{hint})"
    )]
    NotATrace {
        /// Extra hint such as a recognised foreign format.
        hint: String,
    },
    /// Written by a newer lab in a way this build cannot read.
    #[error(
        "trace schema {found} is newer than this lab understands ({supported}) and does not fit: {message}"
    )]
    TooNew {
        /// Version in the file.
        found: u32,
        /// Version this build writes.
        supported: u32,
        /// What did not fit.
        message: String,
    },
    /// Structurally a trace, but a field has the wrong shape.
    #[error("trace field has the wrong shape: {message}")]
    Shape {
        /// Parser message naming the field.
        message: String,
    },
    /// Well-formed, but its times make no sense.
    #[error("request {request}: {message}")]
    Invalid {
        /// Index of the request.
        request: usize,
        /// What is wrong.
        message: String,
    },
}

impl Trace {
    /// Parses and validates a trace from JSON text.
    pub fn from_json(text: &str) -> Result<Self, TraceError> {
        if text.len() > MAX_TRACE_BYTES {
            return Err(TraceError::TooLarge { size: text.len(), limit: MAX_TRACE_BYTES });
        }
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| TraceError::Json {
            line: e.line(),
            column: e.column(),
            message: super::json_error::plain(&e),
        })?;
        Self::from_value(value)
    }

    /// Validates an already-parsed JSON value as a trace.
    pub fn from_value(value: serde_json::Value) -> Result<Self, TraceError> {
        let obj = value
            .as_object()
            .ok_or_else(|| TraceError::NotATrace { hint: format!(", found {}", json_kind(&value)) })?;
        let version = obj.get("schema_version").and_then(serde_json::Value::as_u64);
        let Some(version) = version else {
            return Err(TraceError::NotATrace { hint: String::new() });
        };
        if let Some(format) = obj.get("format").and_then(serde_json::Value::as_str)
            && format != FORMAT
        {
            return Err(TraceError::NotATrace { hint: format!(", found format \"{format}\"") });
        }
        let trace: Trace = serde_json::from_value(value).map_err(|e| {
            if version > u64::from(SCHEMA_VERSION) {
                TraceError::TooNew {
                    found: u32::try_from(version).unwrap_or(u32::MAX),
                    supported: SCHEMA_VERSION,
                    message: e.to_string(),
                }
            } else {
                TraceError::Shape { message: e.to_string() }
            }
        })?;
        trace.validate()?;
        Ok(trace)
    }

    /// Serialises the trace as pretty JSON (always with the current version).
    pub fn to_json(&self) -> String {
        let mut out = self.clone();
        out.schema_version = SCHEMA_VERSION;
        out.format = FORMAT.to_string();
        // A trace holds only plain data; serialisation cannot fail.
        serde_json::to_string_pretty(&out).unwrap_or_default()
    }

    /// The name of a file of this trace, ending in `suffix`
    /// (`.trace.json`, `.report.html`): its label and creation time, with
    /// anything but ASCII letters and digits made `-`.
    pub fn file_name(&self, suffix: &str) -> String {
        let label: String = self
            .meta
            .label
            .as_deref()
            .unwrap_or("run")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect();
        let date = self.meta.created_at.as_deref().unwrap_or("").replace([':', '.'], "-");
        format!("latency-lab-{label}-{date}{suffix}")
    }

    /// Checks that times are finite, non-negative where they are durations,
    /// and ordered: headers after sending, chunks after headers and in order.
    pub fn validate(&self) -> Result<(), TraceError> {
        for (i, r) in self.requests.iter().enumerate() {
            let bad = |message: String| TraceError::Invalid { request: i, message };
            if !r.sent_ms.is_finite() {
                return Err(bad(format!("sent_ms is not a finite number ({})", r.sent_ms)));
            }
            let mut floor = r.sent_ms;
            if let Some(h) = r.headers_ms {
                if !h.is_finite() || h < floor {
                    return Err(bad(format!(
                        "headers_ms ({h}) must be a finite time after sent_ms ({floor})"
                    )));
                }
                floor = h;
            }
            let mut prev = r.sent_ms;
            for (j, c) in r.chunks.iter().enumerate() {
                if !c.arrived_ms.is_finite() || c.arrived_ms < prev {
                    return Err(bad(format!(
                        "chunk {j}: arrived_ms ({}) must be finite and not earlier than the previous event ({prev})",
                        c.arrived_ms
                    )));
                }
                if c.arrived_ms < floor {
                    return Err(bad(format!(
                        "chunk {j}: arrived_ms ({}) is before the response headers ({floor})",
                        c.arrived_ms
                    )));
                }
                // A paint stamp before its chunk's arrival loads: it is kept
                // as measured and flagged (`stamps::EarlyStamps`).
                if let Some(p) = c.painted_ms
                    && (!p.is_finite() || p < r.sent_ms)
                {
                    return Err(bad(format!(
                        "chunk {j}: painted_ms ({p}) must be finite and not before sent_ms ({})",
                        r.sent_ms
                    )));
                }
                prev = c.arrived_ms;
            }
            if let Some(e) = r.end_ms
                && (!e.is_finite() || e < prev)
            {
                return Err(bad(format!(
                    "end_ms ({e}) must be finite and not before the last chunk ({prev})"
                )));
            }
        }
        Ok(())
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
