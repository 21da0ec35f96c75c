//! Reading workload files: [`detect`] by content, [`LineReader`] for the
//! line formats (Mooncake and Bailian JSONL, Azure and BurstGPT CSV), one
//! line at a time, and the two JSON documents: [`sharegpt`] (one
//! conversation at a time, from any `serde_json` reader) and [`lab_trace`].
//!
//! Every refusal names the line and what was expected there. Blank lines
//! are skipped; nothing is guessed: a missing field, a negative length or a
//! time that is not a number stops the read at that line.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::{Format, Request, Turn, WorkloadError};
use crate::trace::Trace;

/// Largest line of a line format (a Mooncake row of 8,000 blocks fits).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// The format of a file from its first bytes (at least its first line; 64
/// KiB is plenty), or `None`.
pub fn detect(head: &str) -> Option<Format> {
    let head = head.trim_start_matches('\u{feff}').trim_start();
    if head.starts_with('[') {
        return head.contains("\"conversations\"").then_some(Format::ShareGpt);
    }
    let first = head.lines().next().unwrap_or("").trim();
    if first.starts_with('{') {
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(first) {
            if o.contains_key("chat_id") && o.contains_key("input_length") {
                return Some(Format::Bailian);
            }
            if o.contains_key("input_length") && o.contains_key("output_length") {
                return Some(Format::Mooncake);
            }
        }
        // A whole JSON document: a lab trace names its format near the top.
        let near = &head[..head.len().min(4096)];
        return near.contains(&format!("\"{}\"", crate::trace::FORMAT)).then_some(Format::LabTrace);
    }
    let columns: Vec<String> = split_csv(first).into_iter().map(|c| c.trim().to_string()).collect();
    let has = |name: &str| columns.iter().any(|c| c == name);
    if has("TIMESTAMP") && has("ContextTokens") && has("GeneratedTokens") {
        return Some(Format::Azure);
    }
    if has("Timestamp") && has("Request tokens") && has("Response tokens") {
        return Some(Format::BurstGpt);
    }
    None
}

/// Splits one CSV line (fields may be quoted, `""` is a quote).
fn split_csv(line: &str) -> Vec<String> {
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

/// Reads the line formats one line at a time.
#[derive(Debug)]
pub struct LineReader {
    format: Format,
    line: usize,
    /// CSV: the header's column of each field the format reads.
    columns: Option<Vec<usize>>,
    /// Bailian: each chat's root chat (its session).
    roots: HashMap<u64, u64>,
}

/// Columns each CSV format reads, in the order [`LineReader`] uses them.
fn csv_fields(format: Format) -> &'static [&'static str] {
    match format {
        Format::Azure => &["TIMESTAMP", "ContextTokens", "GeneratedTokens"],
        Format::BurstGpt => {
            &["Timestamp", "Request tokens", "Response tokens", "Model", "Log Type", "Total tokens"]
        }
        _ => &[],
    }
}

impl LineReader {
    /// A reader of `format` (a line format: not ShareGPT or a lab trace).
    pub fn new(format: Format) -> Self {
        Self { format, line: 0, columns: None, roots: HashMap::new() }
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
        match self.format {
            Format::Mooncake | Format::Bailian => self.json_row(text).map(Some),
            Format::Azure | Format::BurstGpt => self.csv_row(text),
            Format::ShareGpt | Format::LabTrace => {
                Err(WorkloadError::row(line, "a line format (this one is a JSON document)"))
            }
        }
    }

    fn json_row(&mut self, text: &str) -> Result<Request, WorkloadError> {
        let line = self.line;
        let bad = |what: &str| WorkloadError::row(line, what.to_string());
        let v: Value = serde_json::from_str(text).map_err(|e| bad(&format!("a JSON object ({e})")))?;
        let o = v.as_object().ok_or_else(|| bad("a JSON object"))?;
        let count = |key: &str| -> Result<u32, WorkloadError> {
            let n = o.get(key).ok_or_else(|| bad(&format!("\"{key}\": a whole number of tokens")))?;
            n.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(&format!("\"{key}\": a whole number of tokens ≥ 0, found {n}")))
        };
        let time = o.get("timestamp").and_then(Value::as_f64).filter(|t| t.is_finite() && *t >= 0.0);
        let time = time.ok_or_else(|| bad("\"timestamp\": a time ≥ 0"))?;
        let hash_ids = match o.get("hash_ids") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|i| {
                    i.as_u64().ok_or_else(|| bad(&format!("\"hash_ids\": whole numbers ≥ 0, found {i}")))
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(bad(&format!("\"hash_ids\": a list of block ids, found {other}"))),
        };
        let mut r = Request {
            input_tokens: count("input_length")?,
            output_tokens: count("output_length")?,
            hash_ids,
            line,
            ..Request::default()
        };
        if self.format == Format::Mooncake {
            r.at_ms = time;
            return Ok(r);
        }
        r.at_ms = time * 1000.0;
        let id = |key: &str| -> Result<i64, WorkloadError> {
            o.get(key).and_then(Value::as_i64).ok_or_else(|| bad(&format!("\"{key}\": a whole number")))
        };
        let chat = id("chat_id")?;
        let chat = u64::try_from(chat).map_err(|_| bad("\"chat_id\": a whole number ≥ 0"))?;
        let parent = id("parent_chat_id")?;
        let root = match u64::try_from(parent) {
            Ok(p) => *self.roots.get(&p).unwrap_or(&p),
            Err(_) => chat,
        };
        self.roots.insert(chat, root);
        r.session = Some(root);
        r.turn = o.get("turn").and_then(Value::as_u64).and_then(|t| u32::try_from(t).ok());
        r.kind = o.get("type").and_then(|t| t.as_str().map(str::to_string).or_else(|| Some(t.to_string())));
        Ok(r)
    }

    fn csv_row(&mut self, text: &str) -> Result<Option<Request>, WorkloadError> {
        let line = self.line;
        let fields = split_csv(text);
        let Some(columns) = &self.columns else {
            let wanted = csv_fields(self.format);
            let names: Vec<&str> = fields.iter().map(|f| f.trim()).collect();
            let found: Option<Vec<usize>> =
                wanted.iter().map(|w| names.iter().position(|n| n == w)).collect();
            let found = found.ok_or_else(|| {
                WorkloadError::row(line, format!("a header naming the columns {}", wanted.join(", ")))
            })?;
            self.columns = Some(found);
            return Ok(None);
        };
        let get = |i: usize| fields.get(columns[i]).map(|f| f.trim()).unwrap_or("");
        let name = |i: usize| csv_fields(self.format)[i];
        let tokens = |i: usize| -> Result<u32, WorkloadError> {
            let v = get(i);
            v.parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= f64::from(u32::MAX))
                .map(|n| n as u32)
                .ok_or_else(|| {
                    WorkloadError::row(
                        line,
                        format!("{}: a whole number of tokens ≥ 0, found \"{v}\"", name(i)),
                    )
                })
        };
        let mut r =
            Request { input_tokens: tokens(1)?, output_tokens: tokens(2)?, line, ..Request::default() };
        match self.format {
            Format::Azure => {
                r.at_ms = datetime_ms(get(0)).ok_or_else(|| {
                    WorkloadError::row(
                        line,
                        format!("TIMESTAMP: a date and time as 2023-11-16 18:15:46.68, found \"{}\"", get(0)),
                    )
                })?;
            }
            _ => {
                let t = get(0).parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0);
                r.at_ms = t.ok_or_else(|| {
                    WorkloadError::row(line, format!("Timestamp: seconds ≥ 0, found \"{}\"", get(0)))
                })? * 1000.0;
                r.model = Some(get(3).to_string()).filter(|m| !m.is_empty());
                r.kind = Some(get(4).to_string()).filter(|m| !m.is_empty());
                let total = tokens(5)?;
                if u64::from(total) != u64::from(r.input_tokens) + u64::from(r.output_tokens) {
                    return Err(WorkloadError::row(
                        line,
                        format!(
                            "Total tokens = Request tokens + Response tokens ({} + {}), found {total}",
                            r.input_tokens, r.output_tokens
                        ),
                    ));
                }
            }
        }
        Ok(Some(r))
    }
}

/// `YYYY-MM-DD HH:MM:SS[.fraction][Z|±HH:MM]` (or with `T`) as ms since
/// 1970 (UTC).
pub fn datetime_ms(s: &str) -> Option<f64> {
    let s = s.trim();
    let (date, rest) = s.split_at_checked(10)?;
    let mut d = date.split('-');
    let (y, m, day): (i64, i64, i64) =
        (d.next()?.parse().ok()?, d.next()?.parse().ok()?, d.next()?.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let rest = rest.strip_prefix([' ', 'T'])?;
    // The offset: Z, or ±HH:MM after the seconds.
    let (clock, offset_min) = if let Some(c) = rest.strip_suffix('Z') {
        (c, 0)
    } else if rest.len() > 8 && matches!(rest.as_bytes()[rest.len() - 6], b'+' | b'-') {
        let (c, o) = rest.split_at(rest.len() - 6);
        let sign = if o.starts_with('-') { -1 } else { 1 };
        let (h, mm) = o[1..].split_once(':')?;
        (c, sign * (h.parse::<i64>().ok()? * 60 + mm.parse::<i64>().ok()?))
    } else {
        (rest, 0)
    };
    let mut t = clock.split(':');
    let (h, mi): (i64, i64) = (t.next()?.parse().ok()?, t.next()?.parse().ok()?);
    let sec: f64 = t.next()?.parse().ok()?;
    if t.next().is_some() || h > 23 || mi > 59 || !(0.0..61.0).contains(&sec) {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let minutes = days * 1440 + h * 60 + mi - offset_min;
    Some(minutes as f64 * 60_000.0 + sec * 1000.0)
}

/// Ms since 1970 (UTC) as `YYYY-MM-DDTHH:MM:SS.mmmZ`, the inverse of
/// [`datetime_ms`] (`None` for a time outside years 0–9999).
pub fn iso_ms(ms: f64) -> Option<String> {
    if !ms.is_finite() || !(-62_167_219_200_000.0..253_402_300_800_000.0).contains(&ms) {
        return None;
    }
    let ms = ms.round() as i64;
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, mi, sec, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    Some(format!("{year:04}-{month:02}-{day:02}T{h:02}:{mi:02}:{sec:02}.{milli:03}Z"))
}

#[derive(Deserialize)]
struct Conversation {
    conversations: Vec<Message>,
}

#[derive(Deserialize)]
struct Message {
    from: String,
    value: String,
}

/// ShareGPT's speaker names as chat roles.
fn role(from: &str) -> Option<&'static str> {
    match from {
        "human" | "user" => Some("user"),
        "gpt" | "chatgpt" | "bard" | "bing" | "assistant" | "model" => Some("assistant"),
        "system" => Some("system"),
        _ => None,
    }
}

/// Reads a ShareGPT file (`[{"conversations": [{"from", "value"}, …]}, …]`)
/// one conversation at a time: each user turn answered by the assistant is
/// a request whose prompt is the conversation so far, in order (turns kept:
/// `session` is the conversation's index, `turn` counts from 1). `count`
/// gives a text's tokens: the model's tokenizer natively; `None` counts
/// the lab's pseudo tokens and marks the request [`Request::approximate`].
pub fn sharegpt<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    count: Option<&dyn Fn(&str) -> u32>,
    each: &mut dyn FnMut(Request),
) -> Result<usize, WorkloadError> {
    struct Each<'a> {
        count: Option<&'a dyn Fn(&str) -> u32>,
        each: &'a mut dyn FnMut(Request),
    }
    impl<'de> serde::de::Visitor<'de> for Each<'_> {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of conversations")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let tokens = |text: &str| match self.count {
                Some(c) => c(text),
                None => crate::replay::text::pseudo_tokens(text).len() as u32,
            };
            let mut n = 0;
            let mut index = 0u64;
            while let Some(c) = seq.next_element::<Conversation>()? {
                let mut so_far: Vec<Turn> = Vec::new();
                // Tokens of the conversation so far: each turn is counted
                // once, as it is added (a tokenizer is not cheap).
                let mut context_tokens = 0u32;
                let mut turn = 0;
                for (k, m) in c.conversations.iter().enumerate() {
                    let Some(r) = role(&m.from) else {
                        return Err(serde::de::Error::custom(format!(
                            "conversation {}: turn {} is from \"{}\", expected human, gpt or system",
                            index + 1,
                            k + 1,
                            m.from
                        )));
                    };
                    let asks = r == "assistant" && so_far.last().is_some_and(|t| t.role == "user");
                    if asks {
                        turn += 1;
                        (self.each)(Request {
                            input_tokens: context_tokens,
                            output_tokens: tokens(&m.value),
                            session: Some(index),
                            turn: Some(turn),
                            messages: so_far.clone(),
                            approximate: self.count.is_none(),
                            ..Request::default()
                        });
                        n += 1;
                    }
                    context_tokens = context_tokens.saturating_add(tokens(&m.value));
                    so_far.push(Turn { role: r.to_string(), text: m.value.clone() });
                }
                index += 1;
            }
            Ok(n)
        }
    }
    use serde::Deserializer as _;
    let n = de.deserialize_seq(Each { count, each }).map_err(|e| json_error(&e))?;
    de.end().map_err(|e| json_error(&e))?;
    Ok(n)
}

fn json_error(e: &serde_json::Error) -> WorkloadError {
    let text = e.to_string();
    let what = text.split(" at line ").next().unwrap_or(&text).to_string();
    WorkloadError::row(e.line().max(1), format!("ShareGPT: {what}"))
}

/// The requests of a lab trace: each request's send time, its prompt
/// tokens (usage, else the trace's count) and the tokens that came back.
pub fn lab_trace(text: &str) -> Result<Vec<Request>, WorkloadError> {
    let trace = Trace::from_json(text).map_err(|e| WorkloadError::Unknown(e.to_string()))?;
    Ok(trace
        .requests
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let usage = r.usage.as_ref();
            let input = usage.and_then(|u| u.prompt_tokens).or(r.prompt_tokens).unwrap_or(0);
            let output = usage
                .and_then(|u| u.completion_tokens)
                .unwrap_or_else(|| r.chunks.iter().map(|c| u64::from(c.tokens)).sum());
            Request {
                at_ms: r.scheduled_ms.unwrap_or(r.sent_ms),
                input_tokens: u32::try_from(input).unwrap_or(u32::MAX),
                output_tokens: u32::try_from(output).unwrap_or(u32::MAX),
                turn: r.turn.map(|t| t + 1),
                line: i + 1,
                ..Request::default()
            }
        })
        .collect())
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
    fn datetimes_are_utc_milliseconds() {
        assert_eq!(datetime_ms("1970-01-01 00:00:00"), Some(0.0));
        assert_eq!(datetime_ms("2000-03-01T00:00:00Z"), Some(951_868_800_000.0));
        assert_eq!(iso_ms(951_868_800_000.0).as_deref(), Some("2000-03-01T00:00:00.000Z"));
        for s in [
            "1970-01-01T00:00:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "2026-12-05T10:00:00.250Z",
            "1969-12-31T23:59:59.000Z",
        ] {
            assert_eq!(iso_ms(datetime_ms(s).unwrap()).as_deref(), Some(s), "round trip");
        }
        assert_eq!(iso_ms(f64::NAN), None);
        let plain = datetime_ms("2024-05-10 00:00:00.5").unwrap();
        assert_eq!(datetime_ms("2024-05-10 02:00:00.5+02:00"), Some(plain));
        assert_eq!(datetime_ms("2024-05-09 22:00:00.5-02:00"), Some(plain));
        for bad in ["2024-13-01 00:00:00", "2024-05-10", "2024-05-10 25:00:00", "10/05/2024 00:00:00"] {
            assert_eq!(datetime_ms(bad), None, "{bad}");
        }
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
