//! Spans out of the files tracing systems write, in one neutral shape
//! ([`RawSpan`]):
//!
//! - **OTLP/JSON** (`ExportTraceServiceRequest`: `resourceSpans[].
//!   scopeSpans[].spans[]`), one object or one per line as the
//!   OpenTelemetry Collector's file exporter writes them; the protobuf JSON
//!   mapping's spellings are all taken (camelCase or snake_case keys,
//!   64-bit integers as strings or numbers, the older
//!   `instrumentationLibrarySpans`);
//! - **Tempo**'s trace API (`{"batches": [resourceSpans…]}`);
//! - **Jaeger**'s JSON (`{"data": [{"spans": [{"tags": […]}],
//!   "processes": {…}}]}`, times in µs).
//!
//! Attributes that carry prompt or answer text ([`super::conventions::is_text`])
//! are dropped here, so nothing after this sees them.

use serde_json::Value;

use super::conventions::is_text;

/// Longest attribute array kept (a span with more chunk offsets is
/// refused: no real answer streams 100,000 chunks).
pub const MAX_ARRAY: usize = 100_000;

/// An attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    /// `stringValue`.
    Str(String),
    /// `boolValue`.
    Bool(bool),
    /// `intValue`.
    Int(i64),
    /// `doubleValue`.
    Double(f64),
    /// `arrayValue`.
    Array(Vec<AttrValue>),
}

impl AttrValue {
    /// As a number (ints and doubles; numeric strings too, as some
    /// exporters write them).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Int(i) => Some(*i as f64),
            Self::Double(d) => Some(*d),
            Self::Str(s) => s.parse().ok(),
            _ => None,
        }
        .filter(|x: &f64| x.is_finite())
    }

    /// As text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// One span, whatever file it came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawSpan {
    /// Span id (hex).
    pub span_id: String,
    /// Its name.
    pub name: String,
    /// Start, ns since 1970.
    pub start_ns: u64,
    /// End, ns since 1970.
    pub end_ns: u64,
    /// Status ERROR.
    pub error: bool,
    /// The status message.
    pub status_message: Option<String>,
    /// The span's attributes (text ones dropped), then its resource's.
    pub attrs: Vec<(String, AttrValue)>,
    /// Its resource's attributes (text ones dropped).
    pub resource: Vec<(String, AttrValue)>,
}

impl RawSpan {
    /// The span's attribute `key`, else its resource's.
    pub fn attr(&self, key: &str) -> Option<&AttrValue> {
        self.attrs.iter().chain(&self.resource).find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// Why a file's spans could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OtlpError {
    /// Not JSON.
    #[error(
        "line {line}: not JSON ({message}); expected OTLP/JSON (resourceSpans), a Tempo trace (batches) or a Jaeger JSON export (data)"
    )]
    NotJson {
        /// 1-based line.
        line: usize,
        /// The parser's words.
        message: String,
    },
    /// JSON of another shape.
    #[error("line {line}: {what}")]
    Shape {
        /// 1-based line (of the object that holds it).
        line: usize,
        /// What was expected.
        what: String,
    },
}

/// Whether `text` looks like spans this module reads (from its start).
pub fn looks_like(text: &str) -> bool {
    let head: String = text.trim_start().chars().take(4096).collect();
    head.starts_with('{')
        && (head.contains("\"resourceSpans\"")
            || head.contains("\"resource_spans\"")
            || head.contains("\"batches\"")
            || (head.contains("\"data\"") && head.contains("\"operationName\"")))
}

/// Every span of `text`: one JSON document, or one per line.
pub fn read(text: &str) -> Result<Vec<RawSpan>, OtlpError> {
    let text = text.trim_start_matches('\u{feff}');
    let mut out = Vec::new();
    // One document (pretty-printed over many lines) or JSON lines.
    match serde_json::from_str::<Value>(text) {
        Ok(v) => document(&v, 1, &mut out)?,
        Err(whole) => {
            let mut any = false;
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).map_err(|e| OtlpError::NotJson {
                    line: i + 1,
                    message: if any { e.to_string() } else { whole.to_string() },
                })?;
                any = true;
                document(&v, i + 1, &mut out)?;
            }
        }
    }
    Ok(out)
}

fn shape(line: usize, what: impl Into<String>) -> OtlpError {
    OtlpError::Shape { line, what: what.into() }
}

/// Field `a` or its snake_case spelling `b`.
fn get<'a>(v: &'a Value, a: &str, b: &str) -> Option<&'a Value> {
    v.get(a).or_else(|| v.get(b))
}

fn document(v: &Value, line: usize, out: &mut Vec<RawSpan>) -> Result<(), OtlpError> {
    if let Some(rs) = get(v, "resourceSpans", "resource_spans").or_else(|| v.get("batches")) {
        let rs = rs.as_array().ok_or_else(|| shape(line, "resourceSpans is not a list"))?;
        for r in rs {
            resource_spans(r, line, out)?;
        }
        Ok(())
    } else if let Some(data) = v.get("data").and_then(Value::as_array) {
        for t in data {
            jaeger_trace(t, line, out)?;
        }
        Ok(())
    } else {
        Err(shape(line, "no resourceSpans, batches or data: not OTLP/JSON, a Tempo trace or a Jaeger export"))
    }
}

fn resource_spans(r: &Value, line: usize, out: &mut Vec<RawSpan>) -> Result<(), OtlpError> {
    let resource = r.get("resource").map(|res| attributes(res, line)).transpose()?.unwrap_or_default();
    let scopes = get(r, "scopeSpans", "scope_spans")
        .or_else(|| get(r, "instrumentationLibrarySpans", "instrumentation_library_spans"))
        .and_then(Value::as_array);
    for scope in scopes.into_iter().flatten() {
        for s in scope.get("spans").and_then(Value::as_array).into_iter().flatten() {
            let status = s.get("status");
            let code = status.and_then(|st| st.get("code"));
            let error =
                code.is_some_and(|c| c.as_u64() == Some(2) || c.as_str() == Some("STATUS_CODE_ERROR"));
            out.push(RawSpan {
                span_id: get(s, "spanId", "span_id").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: s.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                start_ns: nanos(get(s, "startTimeUnixNano", "start_time_unix_nano"))
                    .ok_or_else(|| shape(line, "a span has no startTimeUnixNano"))?,
                end_ns: nanos(get(s, "endTimeUnixNano", "end_time_unix_nano"))
                    .ok_or_else(|| shape(line, "a span has no endTimeUnixNano"))?,
                error,
                status_message: status
                    .and_then(|st| st.get("message"))
                    .and_then(Value::as_str)
                    .filter(|m| !m.is_empty())
                    .map(str::to_string),
                attrs: attributes(s, line)?,
                resource: resource.clone(),
            });
        }
    }
    Ok(())
}

/// A 64-bit time as OTLP/JSON writes it: a string of digits or a number.
fn nanos(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    v.as_u64().or_else(|| v.as_str().and_then(|s| s.parse().ok())).or_else(|| v.as_f64().map(|f| f as u64))
}

/// `attributes: [{key, value: AnyValue}]`, text keys dropped.
fn attributes(holder: &Value, line: usize) -> Result<Vec<(String, AttrValue)>, OtlpError> {
    let mut out = Vec::new();
    for kv in holder.get("attributes").and_then(Value::as_array).into_iter().flatten() {
        let Some(key) = kv.get("key").and_then(Value::as_str) else { continue };
        if is_text(key) {
            continue;
        }
        if let Some(v) = kv.get("value").map(|v| any_value(v, key, line)).transpose()?.flatten() {
            out.push((key.to_string(), v));
        }
    }
    Ok(out)
}

fn any_value(v: &Value, key: &str, line: usize) -> Result<Option<AttrValue>, OtlpError> {
    Ok(if let Some(s) = get(v, "stringValue", "string_value").and_then(Value::as_str) {
        Some(AttrValue::Str(s.to_string()))
    } else if let Some(b) = get(v, "boolValue", "bool_value").and_then(Value::as_bool) {
        Some(AttrValue::Bool(b))
    } else if let Some(i) = get(v, "intValue", "int_value") {
        i.as_i64().or_else(|| i.as_str().and_then(|s| s.parse().ok())).map(AttrValue::Int)
    } else if let Some(d) = get(v, "doubleValue", "double_value") {
        d.as_f64().or_else(|| d.as_str().and_then(|s| s.parse().ok())).map(AttrValue::Double)
    } else if let Some(a) = get(v, "arrayValue", "array_value") {
        let values = a.get("values").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        if values.len() > MAX_ARRAY {
            return Err(shape(
                line,
                format!("attribute {key} holds {} values; at most {MAX_ARRAY} are read", values.len()),
            ));
        }
        let mut items = Vec::with_capacity(values.len());
        for x in values {
            if let Some(item) = any_value(x, key, line)? {
                items.push(item);
            }
        }
        Some(AttrValue::Array(items))
    } else {
        None
    })
}

/// One trace of a Jaeger JSON export.
fn jaeger_trace(t: &Value, line: usize, out: &mut Vec<RawSpan>) -> Result<(), OtlpError> {
    let processes = t.get("processes");
    for s in t.get("spans").and_then(Value::as_array).into_iter().flatten() {
        let start_us = s
            .get("startTime")
            .and_then(Value::as_u64)
            .ok_or_else(|| shape(line, "a Jaeger span has no startTime"))?;
        let duration_us = s.get("duration").and_then(Value::as_u64).unwrap_or(0);
        let attrs = jaeger_tags(s.get("tags"), line)?;
        let error = attrs.iter().any(|(k, v)| k == "error" && *v == AttrValue::Bool(true))
            || attrs.iter().any(|(k, v)| k == "otel.status_code" && v.as_str() == Some("ERROR"));
        let status_message = attrs
            .iter()
            .find(|(k, _)| k == "otel.status_description")
            .and_then(|(_, v)| v.as_str().map(str::to_string));
        let process = s.get("processID").and_then(Value::as_str).and_then(|p| processes?.get(p));
        let mut resource = jaeger_tags(process.and_then(|p| p.get("tags")), line)?;
        if let Some(name) = process.and_then(|p| p.get("serviceName")).and_then(Value::as_str) {
            resource.push((super::conventions::SERVICE_NAME.to_string(), AttrValue::Str(name.to_string())));
        }
        out.push(RawSpan {
            span_id: s.get("spanID").and_then(Value::as_str).unwrap_or_default().to_string(),
            name: s.get("operationName").and_then(Value::as_str).unwrap_or_default().to_string(),
            start_ns: start_us.saturating_mul(1000),
            end_ns: start_us.saturating_add(duration_us).saturating_mul(1000),
            error,
            status_message,
            attrs,
            resource,
        });
    }
    Ok(())
}

/// Jaeger's `tags: [{key, type, value}]`; arrays arrive as JSON text in a
/// string tag (Jaeger's own mapping of OTLP arrays).
fn jaeger_tags(tags: Option<&Value>, line: usize) -> Result<Vec<(String, AttrValue)>, OtlpError> {
    let mut out = Vec::new();
    for t in tags.and_then(Value::as_array).into_iter().flatten() {
        let Some(key) = t.get("key").and_then(Value::as_str) else { continue };
        if is_text(key) {
            continue;
        }
        let v = t.get("value");
        let value = match (t.get("type").and_then(Value::as_str), v) {
            (Some("bool"), Some(b)) => b.as_bool().map(AttrValue::Bool),
            (Some("int64"), Some(i)) => i.as_i64().map(AttrValue::Int),
            (Some("float64"), Some(d)) => d.as_f64().map(AttrValue::Double),
            (_, Some(Value::String(s))) if s.starts_with('[') => {
                match serde_json::from_str::<Vec<Value>>(s) {
                    Ok(items) if items.len() > MAX_ARRAY => {
                        return Err(shape(
                            line,
                            format!("tag {key} holds {} values; at most {MAX_ARRAY} are read", items.len()),
                        ));
                    }
                    Ok(items) => Some(AttrValue::Array(
                        items
                            .iter()
                            .filter_map(|x| match x {
                                Value::Number(n) if n.is_i64() => n.as_i64().map(AttrValue::Int),
                                Value::Number(n) => n.as_f64().map(AttrValue::Double),
                                Value::Bool(b) => Some(AttrValue::Bool(*b)),
                                Value::String(s) => Some(AttrValue::Str(s.clone())),
                                _ => None,
                            })
                            .collect(),
                    )),
                    Err(_) => Some(AttrValue::Str(s.clone())),
                }
            }
            (_, Some(Value::String(s))) => Some(AttrValue::Str(s.clone())),
            _ => None,
        };
        if let Some(value) = value {
            out.push((key.to_string(), value));
        }
    }
    Ok(out)
}
