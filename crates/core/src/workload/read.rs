//! Reading workload files: [`detect`] by content, [`LineReader`] for the
//! line formats (JSON lines and CSV: Mooncake, Bailian, Azure, BurstGPT),
//! one line at a time, and the two JSON documents: [`sharegpt`] (one
//! conversation at a time, from any `serde_json` reader) and [`lab_trace`].
//! What each format is lives in its own file ([`super::format`]); this
//! module is what they share.
//!
//! Every refusal names the line and what was expected there. Blank lines
//! are skipped; nothing is guessed: a missing field, a negative length or a
//! time that is not a number stops the read at that line.

use serde_json::Value;

pub use super::format::detect;
pub use super::format::lab_trace::read as lab_trace;
pub use super::format::sharegpt::read as sharegpt;
use super::format::{CsvRow, Format, JsonRow, Layout, Sessions, split_csv};
use super::{Request, WorkloadError};

/// Largest line of a line format (a Mooncake row of 8,000 blocks fits).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// Reads the line formats one line at a time.
#[derive(Debug)]
pub struct LineReader {
    format: Format,
    line: usize,
    /// CSV: the header's column of each field the format reads.
    columns: Option<Vec<usize>>,
    /// What rows share (Bailian's sessions).
    sessions: Sessions,
}

impl LineReader {
    /// A reader of `format` (a line format: not ShareGPT or a lab trace).
    pub fn new(format: Format) -> Self {
        Self { format, line: 0, columns: None, sessions: Sessions::default() }
    }

    /// Lines read so far.
    pub fn lines(&self) -> usize {
        self.line
    }

    /// Reads the next line: a request, nothing (a blank line, the CSV
    /// header), or why the line is refused.
    pub fn line(&mut self, text: &str) -> Result<Option<Request>, WorkloadError> {
        self.line += 1;
        let line = self.line;
        let text = text.trim_end_matches(['\r', '\n']);
        let text = if line == 1 { text.trim_start_matches('\u{feff}') } else { text };
        if text.trim().is_empty() {
            return Ok(None);
        }
        if text.len() > MAX_LINE_BYTES {
            return Err(WorkloadError::row(line, format!("a line of at most {MAX_LINE_BYTES} bytes")));
        }
        match &self.format.spec().layout {
            Layout::JsonLines(row) => {
                let v: Value = serde_json::from_str(text)
                    .map_err(|e| WorkloadError::row(line, format!("a JSON object ({e})")))?;
                let object = v.as_object().ok_or_else(|| WorkloadError::row(line, "a JSON object"))?;
                row(&JsonRow { object, line }, &mut self.sessions).map(Some)
            }
            Layout::Csv { fields, row } => {
                let values = split_csv(text);
                let Some(columns) = &self.columns else {
                    let names: Vec<&str> = values.iter().map(|f| f.trim()).collect();
                    let found: Option<Vec<usize>> =
                        fields.iter().map(|w| names.iter().position(|n| n == w)).collect();
                    let found = found.ok_or_else(|| {
                        WorkloadError::row(line, format!("a header naming the columns {}", fields.join(", ")))
                    })?;
                    self.columns = Some(found);
                    return Ok(None);
                };
                let values = columns.iter().map(|&c| values.get(c).map_or("", |v| v.trim())).collect();
                row(&CsvRow { values, fields, line }).map(Some)
            }
            Layout::Conversations | Layout::Trace => {
                Err(WorkloadError::row(line, "a line format (this one is a JSON document)"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(format: Format, text: &str) -> Result<Vec<Request>, WorkloadError> {
        let mut r = LineReader::new(format);
        let mut out = Vec::new();
        for l in text.lines() {
            if let Some(x) = r.line(l)? {
                out.push(x);
            }
        }
        Ok(out)
    }

    #[test]
    fn formats_are_told_apart_by_content() {
        let moon = r#"{"timestamp": 0, "input_length": 6755, "output_length": 500, "hash_ids": [0, 1, 2]}"#;
        let bailian = r#"{"chat_id": 7, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 10, "output_length": 3, "type": "text", "turn": 1, "hash_ids": [1]}"#;
        assert_eq!(detect(moon), Some(Format::Mooncake));
        assert_eq!(detect(&format!("\u{feff}{bailian}\n")), Some(Format::Bailian));
        assert_eq!(
            detect("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44"),
            Some(Format::Azure)
        );
        assert_eq!(
            detect(
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log"
            ),
            Some(Format::BurstGpt)
        );
        assert_eq!(
            detect(r#"[{"id": "a", "conversations": [{"from": "human", "value": "hi"}]}]"#),
            Some(Format::ShareGpt)
        );
        assert_eq!(
            detect(r#"{"schema_version": 1, "format": "latency-lab/trace", "requests": []}"#),
            Some(Format::LabTrace)
        );
        assert_eq!(detect("a,b,c\n1,2,3"), None);
        assert_eq!(detect(r#"{"benchmarks": []}"#), None);
    }

    #[test]
    fn mooncake_and_bailian_rows() {
        let rows = read(
            Format::Mooncake,
            "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 5, \"hash_ids\": [0, 1]}\n\n{\"timestamp\": 3052, \"input_length\": 600, \"output_length\": 7, \"hash_ids\": [0, 2]}\r\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[1].at_ms, rows[1].input_tokens, rows[1].output_tokens, rows[1].line),
            (3052.0, 600, 7, 3)
        );
        assert_eq!(rows[1].hash_ids, vec![0, 2]);
        let b = read(
            Format::Bailian,
            concat!(
                r#"{"chat_id": 10, "parent_chat_id": -1, "timestamp": 1.5, "input_length": 40, "output_length": 9, "type": "text", "turn": 1, "hash_ids": [1, 2]}"#,
                "\n",
                r#"{"chat_id": 11, "parent_chat_id": 10, "timestamp": 9.25, "input_length": 80, "output_length": 4, "type": "text", "turn": 2, "hash_ids": [1, 2, 3]}"#,
                "\n",
                r#"{"chat_id": 12, "parent_chat_id": 11, "timestamp": 20, "input_length": 90, "output_length": 4, "type": "image", "turn": 3, "hash_ids": [1, 2, 3, 4]}"#,
            ),
        )
        .unwrap();
        assert_eq!(b.iter().map(|r| r.at_ms).collect::<Vec<_>>(), vec![1500.0, 9250.0, 20000.0]);
        assert!(b.iter().all(|r| r.session == Some(10)), "every turn is in the root chat's session");
        assert_eq!(b[2].turn, Some(3));
        assert_eq!(b[2].kind.as_deref(), Some("image"));
    }

    #[test]
    fn bad_rows_name_their_line_and_what_was_expected() {
        let cases = [
            (
                Format::Mooncake,
                "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\nnot json",
                2,
                "a JSON object",
            ),
            (Format::Mooncake, "{\"timestamp\": 0, \"output_length\": 1}", 1, "\"input_length\""),
            (
                Format::Mooncake,
                "{\"timestamp\": -1, \"input_length\": 1, \"output_length\": 1}",
                1,
                "\"timestamp\": a time ≥ 0",
            ),
            (
                Format::Mooncake,
                "{\"timestamp\": 0, \"input_length\": -5, \"output_length\": 1}",
                1,
                "found -5",
            ),
            (
                Format::Mooncake,
                "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1, \"x\"]}",
                1,
                "\"hash_ids\"",
            ),
            (
                Format::Bailian,
                "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"parent_chat_id\": -1}",
                1,
                "\"chat_id\"",
            ),
            (
                Format::Azure,
                "TIMESTAMP,GeneratedTokens\n",
                1,
                "a header naming the columns TIMESTAMP, ContextTokens, GeneratedTokens",
            ),
            (
                Format::Azure,
                "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10,x",
                2,
                "GeneratedTokens: a whole number",
            ),
            (
                Format::Azure,
                "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,10,3",
                2,
                "TIMESTAMP: a date and time",
            ),
            (
                Format::BurstGpt,
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,ChatGPT,10,5,16,Conversation log",
                2,
                "Total tokens = Request tokens + Response tokens",
            ),
            (
                Format::BurstGpt,
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n\n-3,ChatGPT,10,5,15,API log",
                3,
                "Timestamp: seconds ≥ 0",
            ),
        ];
        for (format, text, line, expected) in cases {
            let e = read(format, text).unwrap_err();
            let WorkloadError::Row { line: l, expected: why } = &e else { panic!("{e:?}") };
            assert_eq!(*l, line, "{text}: {e}");
            assert!(why.contains(expected), "{text}: {why}");
        }
    }

    #[test]
    fn azure_and_burstgpt_rows() {
        let a = read(
            Format::Azure,
            "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n",
        )
        .unwrap();
        assert!((a[1].at_ms - a[0].at_ms - 4314.579).abs() < 1e-3, "{}", a[1].at_ms - a[0].at_ms);
        assert_eq!((a[0].input_tokens, a[0].output_tokens), (374, 44));
        let b = read(
            Format::BurstGpt,
            "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n45,GPT-4,1087,0,1087,API log\n",
        )
        .unwrap();
        assert_eq!((b[1].at_ms, b[1].input_tokens, b[1].output_tokens), (45_000.0, 1087, 0));
        assert_eq!((b[1].model.as_deref(), b[1].kind.as_deref()), (Some("GPT-4"), Some("API log")));
    }

    #[test]
    fn sharegpt_keeps_turns_and_says_where_counts_are_approximate() {
        let text = r#"[
 {"id": "a", "conversations": [
   {"from": "human", "value": "How fast is fast enough?"},
   {"from": "gpt", "value": "It depends on what you are doing."},
   {"from": "human", "value": "For chat?"},
   {"from": "gpt", "value": "Under a second to the first word."}]},
 {"id": "b", "conversations": [{"from": "system", "value": "Be brief."}, {"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}]}
]"#;
        let mut got = Vec::new();
        let words = |t: &str| t.split_whitespace().count() as u32;
        let n = sharegpt(&mut serde_json::Deserializer::from_str(text), Some(&words), &mut |r| got.push(r))
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!((got[1].session, got[1].turn, got[1].messages.len()), (Some(0), Some(2), 3));
        assert_eq!(got[1].input_tokens, 5 + 7 + 2, "the whole conversation so far");
        assert_eq!(got[1].output_tokens, 7);
        assert_eq!(got[2].messages[0].role, "system");
        assert!(!got[0].approximate);
        let mut rough = Vec::new();
        sharegpt(&mut serde_json::Deserializer::from_str(text), None, &mut |r| rough.push(r)).unwrap();
        assert!(rough.iter().all(|r| r.approximate && r.input_tokens > 0));
        let bad = "[\n{\"conversations\": [{\"from\": \"human\", \"value\": \"x\"}]},\n{\"id\": 3}\n]";
        let e = sharegpt(&mut serde_json::Deserializer::from_str(bad), None, &mut |_| ()).unwrap_err();
        assert!(
            matches!(&e, WorkloadError::Row { line: 3, expected } if expected.contains("conversations")),
            "{e}"
        );
        let who = r#"[{"conversations": [{"from": "robot", "value": "x"}]}]"#;
        let e = sharegpt(&mut serde_json::Deserializer::from_str(who), None, &mut |_| ()).unwrap_err();
        assert!(e.to_string().contains("expected human, gpt or system"), "{e}");
    }
}
