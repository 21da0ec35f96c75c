//! What a JSON parse error means, in plain words.
//!
//! serde_json reports errors in a parser's terms ("expected ident at line
//! 1 column 2", "EOF while parsing an object at line 9 column 0"). Every
//! file the lab reads (traces, study designs and results, bundles,
//! imported benchmark files, share links, stream events) says instead what
//! was expected, in words a person who never wrote a parser reads, and
//! keeps the position: "expected a JSON value (an object {…}, a list […],
//! a number, a quoted text, true, false or null) (line 1, column 2)".

/// Plain words for a serde_json error, followed by "(line L, column C)"
/// when the error has a position.
pub fn plain(e: &serde_json::Error) -> String {
    at_line(e, e.line())
}

/// [`plain`] for one line of a JSON-lines file: `line` is that line's
/// number in the file (serde_json only saw the line, so it says 1).
pub fn at_line(e: &serde_json::Error, line: usize) -> String {
    let raw = e.to_string();
    let at = format!(" at line {} column {}", e.line(), e.column());
    let what = raw.strip_suffix(&at).unwrap_or(&raw);
    let words = words_for(what);
    if e.line() == 0 { words } else { format!("{words} (line {line}, column {})", e.column()) }
}

const A_VALUE: &str =
    "a JSON value (an object {…}, a list […], a number, a quoted text, true, false or null)";

/// The plain sentence for serde_json's message (without its position).
fn words_for(what: &str) -> String {
    let fixed = match what {
        "EOF while parsing a list" => "the text ends early (cut off?): a list […] is not closed",
        "EOF while parsing an object" => "the text ends early (cut off?): an object {…} is not closed",
        "EOF while parsing a string" => "the text ends early (cut off?): a quoted text is not closed",
        "EOF while parsing a value" => "the text ends early (empty, or cut off?): a value is missing",
        "expected `:`" => "expected a colon (:) after a field name",
        "expected `,` or `]`" => "expected a comma or the end of a list (])",
        "expected `,` or `}`" => "expected a comma or the end of an object (})",
        "expected ident" | "expected value" => return format!("expected {A_VALUE}; this is not JSON here"),
        "expected double-quoted string" | "key must be a string" => "expected a field name in double quotes",
        "invalid escape" => "a backslash escape inside a quoted text is not valid JSON",
        "invalid number" => "a number is not written as JSON writes numbers",
        "number out of range" => "a number is too large",
        "invalid unicode code point"
        | "unexpected end of hex escape"
        | "lone leading surrogate in hex escape" => "a \\u escape inside a quoted text is not valid",
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            "a raw control character (such as a line break) inside a quoted text"
        }
        "trailing comma" => "a comma right before a closing bracket (JSON allows none there)",
        "trailing characters" => "more text after the end of the JSON value (two documents in one?)",
        "recursion limit exceeded" => "the data is nested too deeply",
        "key must be a number" => "a field name is not a number where one was expected",
        _ => return data_words(what),
    };
    fixed.to_string()
}

/// Errors about the data's shape (serde's own wording), reworded.
fn data_words(what: &str) -> String {
    if let Some(rest) = what.strip_prefix("invalid type: ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "another type"));
        return format!(
            "a value has the wrong type: found {}, expected {expected}",
            found.replace('`', "\"")
        );
    }
    if let Some(field) = what.strip_prefix("missing field ") {
        return format!("the field {} is missing", field.replace('`', "\""));
    }
    if let Some(rest) = what.strip_prefix("unknown variant ") {
        return format!("unknown value {}", rest.replace('`', "\""));
    }
    if let Some(rest) = what.strip_prefix("invalid value: ") {
        return format!("invalid value: {}", rest.replace('`', "\""));
    }
    what.replace('`', "\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        plain(&serde_json::from_str::<serde_json::Value>(text).unwrap_err())
    }

    #[test]
    fn syntax_errors_say_what_was_expected_and_keep_the_position() {
        assert_eq!(err("not json"), format!("expected {A_VALUE}; this is not JSON here (line 1, column 2)"));
        assert_eq!(
            err("{\"a\": 1"),
            "the text ends early (cut off?): an object {…} is not closed (line 1, column 7)"
        );
        assert_eq!(
            err("[1, 2"),
            "the text ends early (cut off?): a list […] is not closed (line 1, column 5)"
        );
        assert_eq!(err("{\"a\" 1}"), "expected a colon (:) after a field name (line 1, column 6)");
        assert_eq!(
            err("{\"a\": 1,}"),
            "a comma right before a closing bracket (JSON allows none there) (line 1, column 9)"
        );
        assert_eq!(
            err("{\n\"a\": 1\n} x"),
            "more text after the end of the JSON value (two documents in one?) (line 3, column 3)"
        );
        assert_eq!(
            err(""),
            "the text ends early (empty, or cut off?): a value is missing (line 1, column 0)"
        );
    }

    #[test]
    fn no_parser_wording_survives() {
        let samples = [
            "not json",
            "{",
            "[",
            "\"abc",
            "{\"a\" 1}",
            "[1 2]",
            "{1: 2}",
            "{\"a\": \"\\q\"}",
            "01",
            "1e99999",
            "{} {}",
            "[1,]",
            "\"\u{1}\"",
        ];
        for s in samples {
            let m = err(s);
            for raw in ["EOF", "ident", "expected value", "at line", "`"] {
                assert!(!m.contains(raw), "{s:?} → {m}");
            }
            assert!(m.contains("(line "), "{s:?} → {m}");
        }
    }

    #[test]
    fn shape_errors_are_reworded() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct S {
            id: String,
        }
        let e = |t: &str| plain(&serde_json::from_str::<S>(t).unwrap_err());
        assert_eq!(e("{}"), "the field \"id\" is missing (line 1, column 2)");
        assert_eq!(
            e("{\"id\": 3}"),
            "a value has the wrong type: found integer \"3\", expected a string (line 1, column 8)"
        );
    }
}
