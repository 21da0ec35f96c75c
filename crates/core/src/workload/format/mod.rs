//! # Workload formats: one file each, one list
//!
//! Each format's file says what a reader needs to know of it: its name,
//! its [`Layout`] (JSON lines, CSV, or one JSON document), whether its rows
//! carry send times ([`Spec::timed`]), the tokens of a prefix block where it
//! has blocks, how its first bytes are recognised ([`Spec::detect`]) and how
//! one row becomes a [`Request`]. [`Format::spec`] is the one list: a new
//! format is a new file, a variant and its arm there (no arm stands for
//! another format), and [`Format::ALL`] holds the order detection tries.
//!
//! | file | format | layout | timed | blocks |
//! |---|---|---|---|---|
//! | [`mooncake`] | Mooncake (FAST'25) | JSON lines | ms from start | 512 tokens |
//! | [`bailian`] | Alibaba Bailian | JSON lines | s | 16 tokens |
//! | [`azure`] | Azure LLM inference 2023 / 2024 | CSV | date and time, UTC | – |
//! | [`burstgpt`] | BurstGPT | CSV | s | – |
//! | [`sharegpt`] | ShareGPT | a JSON list of conversations | no: one after another | – |
//! | [`lab_trace`] | the lab's own trace | a JSON document | each request's send time | – |

pub mod azure;
pub mod bailian;
pub mod burstgpt;
pub mod lab_trace;
pub mod mooncake;
pub mod sharegpt;

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Request, WorkloadError};

/// Which kind of workload file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Mooncake / FAST'25 JSONL.
    Mooncake,
    /// Alibaba Bailian usage traces (JSONL).
    Bailian,
    /// Azure LLM inference trace, 2023 or 2024 (CSV).
    Azure,
    /// BurstGPT (CSV).
    BurstGpt,
    /// ShareGPT conversations (JSON).
    ShareGpt,
    /// A Latency Lab trace.
    LabTrace,
}

impl Format {
    /// Every format, in the table's order, which is the order detection
    /// tries them.
    pub const ALL: [Format; 6] = [
        Format::Mooncake,
        Format::Bailian,
        Format::Azure,
        Format::BurstGpt,
        Format::ShareGpt,
        Format::LabTrace,
    ];

    /// What its file says of it: the one list.
    pub fn spec(self) -> &'static Spec {
        match self {
            Format::Mooncake => &mooncake::SPEC,
            Format::Bailian => &bailian::SPEC,
            Format::Azure => &azure::SPEC,
            Format::BurstGpt => &burstgpt::SPEC,
            Format::ShareGpt => &sharegpt::SPEC,
            Format::LabTrace => &lab_trace::SPEC,
        }
    }

    /// The name people know it by.
    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// Tokens a prefix block (`hash_ids` entry) stands for, where the format
    /// has blocks.
    pub fn block_tokens(self) -> Option<u32> {
        self.spec().block_tokens
    }

    /// Whether its rows carry send times (the runner sends them then;
    /// untimed rows go one after another).
    pub fn timed(self) -> bool {
        self.spec().timed
    }

    /// Whether it is read a line at a time ([`super::read::LineReader`]).
    pub fn lines(self) -> bool {
        matches!(self.spec().layout, Layout::JsonLines(_) | Layout::Csv { .. })
    }
}

/// What a format's file says of it.
#[derive(Debug)]
pub struct Spec {
    /// The name people know it by.
    pub label: &'static str,
    /// How its rows are laid out, and read.
    pub layout: Layout,
    /// Whether its rows carry send times.
    pub timed: bool,
    /// Tokens a `hash_ids` block stands for, where it has blocks.
    pub block_tokens: Option<u32>,
    /// Whether a file whose first bytes are `head` is this format.
    pub detect: fn(&Head<'_>) -> bool,
}

/// How a format's rows are laid out.
#[derive(Debug)]
pub enum Layout {
    /// One JSON object a line, each made a request by this.
    JsonLines(fn(&JsonRow<'_>, &mut Sessions) -> Result<Request, WorkloadError>),
    /// CSV whose header names `fields` (in any order, among others); `row`
    /// reads one line's values, given in `fields`' order.
    Csv {
        /// The columns read.
        fields: &'static [&'static str],
        /// One line's values as a request.
        row: fn(&CsvRow<'_>) -> Result<Request, WorkloadError>,
    },
    /// A JSON list of conversations, read one at a time
    /// ([`sharegpt::read`]).
    Conversations,
    /// The lab's own trace, read whole ([`lab_trace::read`]).
    Trace,
}

/// A file's first bytes, as detection reads them.
#[derive(Debug)]
pub struct Head<'a> {
    /// The text, without a byte-order mark or leading white space.
    pub text: &'a str,
    /// Its first line, trimmed.
    pub first: &'a str,
    /// The first line as a JSON object, when it is one.
    pub object: Option<Map<String, Value>>,
    /// The first line's CSV columns, trimmed.
    pub columns: Vec<String>,
}

impl<'a> Head<'a> {
    /// Reads `head` (at least a file's first line; 64 KiB is plenty).
    pub fn new(head: &'a str) -> Self {
        let text = head.trim_start_matches('\u{feff}').trim_start();
        let first = text.lines().next().unwrap_or("").trim();
        let object = match serde_json::from_str::<Value>(first) {
            Ok(Value::Object(o)) if first.starts_with('{') => Some(o),
            _ => None,
        };
        let columns = if first.starts_with(['{', '[']) {
            Vec::new()
        } else {
            split_csv(first).into_iter().map(|c| c.trim().to_string()).collect()
        };
        Self { text, first, object, columns }
    }

    /// Whether the first line is a JSON object with every one of `keys`.
    pub fn object_has(&self, keys: &[&str]) -> bool {
        self.object.as_ref().is_some_and(|o| keys.iter().all(|k| o.contains_key(*k)))
    }

    /// Whether the first line is a CSV header naming every one of `names`.
    pub fn columns_have(&self, names: &[&str]) -> bool {
        names.iter().all(|n| self.columns.iter().any(|c| c == n))
    }
}

/// The format of a file from its first bytes, or `None`: the first of
/// [`Format::ALL`] whose [`Spec::detect`] says yes.
pub fn detect(head: &str) -> Option<Format> {
    let head = Head::new(head);
    Format::ALL.into_iter().find(|f| (f.spec().detect)(&head))
}

/// One row of a JSON lines format.
#[derive(Debug)]
pub struct JsonRow<'a> {
    /// The row's object.
    pub object: &'a Map<String, Value>,
    /// Its line (1-based).
    pub line: usize,
}

impl JsonRow<'_> {
    /// A refusal of this row.
    pub fn bad(&self, expected: impl Into<String>) -> WorkloadError {
        WorkloadError::row(self.line, expected)
    }

    /// `key`'s whole number of tokens.
    pub fn tokens(&self, key: &str) -> Result<u32, WorkloadError> {
        let n =
            self.object.get(key).ok_or_else(|| self.bad(format!("\"{key}\": a whole number of tokens")))?;
        n.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| self.bad(format!("\"{key}\": a whole number of tokens ≥ 0, found {n}")))
    }

    /// `key`'s time ≥ 0, in the file's unit.
    pub fn time(&self, key: &str) -> Result<f64, WorkloadError> {
        let t = self.object.get(key).and_then(Value::as_f64).filter(|t| t.is_finite() && *t >= 0.0);
        t.ok_or_else(|| self.bad(format!("\"{key}\": a time ≥ 0")))
    }

    /// `key`'s whole number (negative allowed).
    pub fn int(&self, key: &str) -> Result<i64, WorkloadError> {
        self.object
            .get(key)
            .and_then(Value::as_i64)
            .ok_or_else(|| self.bad(format!("\"{key}\": a whole number")))
    }

    /// The request of a row in Mooncake's shape, which Bailian shares:
    /// `timestamp` (× `ms_per_unit`), `hash_ids`, `input_length` and
    /// `output_length`, refused in that order.
    pub fn blocks_request(&self, ms_per_unit: f64) -> Result<Request, WorkloadError> {
        let at_ms = self.time("timestamp")? * ms_per_unit;
        let hash_ids = self.hash_ids()?;
        Ok(Request {
            hash_ids,
            input_tokens: self.tokens("input_length")?,
            output_tokens: self.tokens("output_length")?,
            at_ms,
            line: self.line,
            ..Request::default()
        })
    }

    /// `hash_ids`: the prefix blocks (none when absent or null).
    pub fn hash_ids(&self) -> Result<Vec<u64>, WorkloadError> {
        match self.object.get("hash_ids") {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|i| {
                    i.as_u64().ok_or_else(|| self.bad(format!("\"hash_ids\": whole numbers ≥ 0, found {i}")))
                })
                .collect(),
            Some(other) => Err(self.bad(format!("\"hash_ids\": a list of block ids, found {other}"))),
        }
    }
}

/// One line of a CSV format: its values in the order of the format's
/// `fields`.
#[derive(Debug)]
pub struct CsvRow<'a> {
    /// The values, trimmed.
    pub values: Vec<&'a str>,
    /// The columns they are (the format's `fields`).
    pub fields: &'static [&'static str],
    /// Its line (1-based).
    pub line: usize,
}

impl CsvRow<'_> {
    /// The `i`-th field's value ("" when the line is short).
    pub fn get(&self, i: usize) -> &str {
        self.values.get(i).copied().unwrap_or("")
    }

    /// A refusal of this row.
    pub fn bad(&self, expected: impl Into<String>) -> WorkloadError {
        WorkloadError::row(self.line, expected)
    }

    /// The `i`-th field's whole number of tokens.
    pub fn tokens(&self, i: usize) -> Result<u32, WorkloadError> {
        let v = self.get(i);
        v.parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= f64::from(u32::MAX))
            .map(|n| n as u32)
            .ok_or_else(|| {
                let name = self.fields.get(i).copied().unwrap_or("?");
                self.bad(format!("{name}: a whole number of tokens ≥ 0, found \"{v}\""))
            })
    }

    /// The `i`-th field, `None` when empty.
    pub fn text(&self, i: usize) -> Option<String> {
        Some(self.get(i).to_string()).filter(|m| !m.is_empty())
    }
}

/// Splits one CSV line (fields may be quoted, `""` is a quote).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    out.push(field);
    out
}

/// What a line reader keeps between rows: each chat's root chat (Bailian's
/// sessions).
#[derive(Debug, Default)]
pub struct Sessions {
    roots: HashMap<u64, u64>,
}

impl Sessions {
    /// The session of `chat`, whose parent is `parent` (none: a root).
    pub fn root(&mut self, chat: u64, parent: Option<u64>) -> u64 {
        let root = parent.map_or(chat, |p| *self.roots.get(&p).unwrap_or(&p));
        self.roots.insert(chat, root);
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's first line in each format (a new format must give one: the
    /// match has no wildcard).
    fn example(f: Format) -> String {
        match f {
            Format::Mooncake => r#"{"timestamp": 0, "input_length": 9, "output_length": 2, "hash_ids": [1]}"#.into(),
            Format::Bailian => {
                r#"{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 9, "output_length": 2, "type": "text", "turn": 1}"#.into()
            }
            Format::Azure => "TIMESTAMP,ContextTokens,GeneratedTokens".into(),
            Format::BurstGpt => "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type".into(),
            Format::ShareGpt => r#"[{"id": "a", "conversations": [{"from": "human", "value": "hi"}]}]"#.into(),
            Format::LabTrace => format!("{{\n  \"format\": \"{}\",\n  \"requests\": []\n}}", crate::trace::FORMAT),
        }
    }

    #[test]
    fn each_format_is_told_by_its_own_file_and_claimed_by_no_other() {
        for f in Format::ALL {
            let text = format!("\u{feff}{}\n", example(f));
            let head = Head::new(&text);
            let claims: Vec<Format> = Format::ALL.into_iter().filter(|g| (g.spec().detect)(&head)).collect();
            assert_eq!(claims, vec![f], "{}", f.label());
            assert_eq!(detect(&text), Some(f));
        }
        assert_eq!(detect("id,prompt\n1,hello"), None);
        assert_eq!(detect("{\"timestamp\": 0}"), None);
        // A head cut inside a character near 4 KiB is still read.
        let long = format!("{{\"notes\": \"{}\"", "é".repeat(3000));
        assert!(!long.is_char_boundary(4096));
        assert_eq!(detect(&long), None);
    }

    #[test]
    fn what_each_file_says_is_what_the_readers_do() {
        let lines: Vec<&str> = Format::ALL.into_iter().filter(|f| f.lines()).map(Format::label).collect();
        assert_eq!(lines, ["Mooncake (FAST'25)", "Alibaba Bailian", "Azure LLM inference", "BurstGPT"]);
        let untimed: Vec<Format> = Format::ALL.into_iter().filter(|f| !f.timed()).collect();
        assert_eq!(untimed, [Format::ShareGpt]);
        assert_eq!(Format::Mooncake.block_tokens(), Some(512));
        assert_eq!(Format::Bailian.block_tokens(), Some(16));
        // Each line format reads its own example's first row (a CSV's is its header).
        for f in Format::ALL.into_iter().filter(|f| f.lines()) {
            let mut r = crate::workload::read::LineReader::new(f);
            let row = r.line(&example(f)).unwrap();
            assert_eq!(row.is_some(), matches!(f.spec().layout, Layout::JsonLines(_)), "{}", f.label());
        }
    }
}
