//! Payloads that are almost JSON, and what can be kept of them.
//!
//! Two damages seen from real servers and proxies, each repaired the one
//! way that keeps the text, and named in a note so nothing changes silently:
//! - **A payload split over several `data:` lines** inside a string: SSE
//!   joins the lines with a line feed, which JSON does not allow raw inside
//!   a string. The line feeds inside strings are dropped (the server wrapped
//!   one line); the text on both sides is kept.
//! - **A lone UTF-16 surrogate escape** (`"\ud83d"` without its pair, as an
//!   emoji cut between two chunks): JSON parsers refuse the whole payload.
//!   The lone half becomes U+FFFD (�); the rest of the text is kept.

/// A repaired payload and what was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    /// The payload, now parseable (if nothing else is wrong).
    pub json: String,
    /// What was changed, for people.
    pub notes: Vec<String>,
}

/// Repairs `data`; `None` when neither damage is present.
pub fn repair(data: &str) -> Option<Repaired> {
    let mut notes = Vec::new();
    let mut json = String::with_capacity(data.len());
    let (mut in_string, mut dropped_lines, mut lone) = (false, 0usize, Vec::new());
    let mut chars = data.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                in_string = !in_string;
                json.push(c);
            }
            '\n' | '\r' if in_string => dropped_lines += usize::from(c == '\n'),
            '\\' if in_string => match chars.peek() {
                Some(&(_, 'u')) => {
                    let unit = data.get(i + 2..i + 6).and_then(|h| u16::from_str_radix(h, 16).ok());
                    match unit {
                        Some(u) if (0xD800..0xDC00).contains(&u) && !low_follows(data, i + 6) => {
                            lone.push(format!("\\u{}", &data[i + 2..i + 6]));
                            json.push_str("\\ufffd");
                            skip(&mut chars, 5);
                        }
                        Some(u) if (0xDC00..0xE000).contains(&u) && !high_precedes(data, i) => {
                            lone.push(format!("\\u{}", &data[i + 2..i + 6]));
                            json.push_str("\\ufffd");
                            skip(&mut chars, 5);
                        }
                        Some(_) => {
                            json.push_str(&data[i..i + 6]);
                            skip(&mut chars, 5);
                        }
                        None => json.push(c),
                    }
                }
                Some(&(_, next)) => {
                    json.push(c);
                    json.push(next);
                    chars.next();
                }
                None => json.push(c),
            },
            _ => json.push(c),
        }
    }
    if dropped_lines > 0 {
        notes.push(format!(
            "a payload was split over {} data: lines inside a string; the lines were joined",
            dropped_lines + 1
        ));
    }
    if !lone.is_empty() {
        notes.push(format!("a lone UTF-16 surrogate ({}) was replaced by U+FFFD (�)", lone.join(", ")));
    }
    (!notes.is_empty()).then_some(Repaired { json, notes })
}

fn skip<I: Iterator>(it: &mut I, n: usize) {
    for _ in 0..n {
        it.next();
    }
}

/// A `\uDC00`–`\uDFFF` escape starts at byte `at`.
fn low_follows(data: &str, at: usize) -> bool {
    surrogate_at(data, at).is_some_and(|u| (0xDC00..0xE000).contains(&u))
}

/// A `\uD800`–`\uDBFF` escape ends at byte `at`.
fn high_precedes(data: &str, at: usize) -> bool {
    at >= 6 && surrogate_at(data, at - 6).is_some_and(|u| (0xD800..0xDC00).contains(&u))
}

fn surrogate_at(data: &str, at: usize) -> Option<u16> {
    let esc = data.get(at..at + 6)?;
    let hex = esc.strip_prefix("\\u")?;
    u16::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_lines_inside_a_string_are_joined() {
        let r = repair("{\"choices\":[{\"delta\":{\"content\":\"Hel\nlo\"}}]}").unwrap();
        assert_eq!(r.json, "{\"choices\":[{\"delta\":{\"content\":\"Hello\"}}]}");
        assert!(r.notes[0].contains("split over 2 data: lines"));
        assert_eq!(repair("{\"a\":\n1}"), None, "a line feed between tokens is valid JSON already");
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let r = repair(r#"{"c":"smile \ud83d now"}"#).unwrap();
        assert_eq!(r.json, r#"{"c":"smile \ufffd now"}"#);
        assert!(r.notes[0].contains("\\ud83d"));
        let v: serde_json::Value = serde_json::from_str(&r.json).unwrap();
        assert_eq!(v["c"], "smile \u{FFFD} now");
        assert_eq!(
            repair(r#"{"c":"pair \ud83d\ude00 ok \\ud83d"}"#),
            None,
            "a pair, and an escaped backslash"
        );
        assert!(repair(r#"{"c":"\ude00 alone"}"#).is_some());
    }
}
