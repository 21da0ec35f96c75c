//! Framing: cuts a response body, read by read, into the messages of its
//! wire ([`crate::stream::wire::Framing`]): Server-Sent Events
//! ([`crate::stream::sse`]), lines (NDJSON, the AI SDK's data stream), or
//! no messages at all (plain text: each read's whole characters, a
//! character split between reads held until its last byte comes).
//!
//! A body **ends clean** when nothing is pending: the last SSE event was
//! closed by its blank line, the last line by its newline (a last line
//! without one is still read, and the end is not clean), no character was
//! left half-read.

use crate::stream::sse::{SseEvent, SseParser};
use crate::stream::wire::Framing;

/// Longest line the line framing buffers (16 MiB, as SSE's).
pub const MAX_LINE_BYTES: usize = crate::stream::sse::MAX_LINE_BYTES;

/// One message: an SSE event (its `event:` name and data), a line, or a
/// read of plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framed {
    /// The SSE `event:` name.
    pub event: Option<String>,
    /// Its data (the line, or the text).
    pub data: String,
}

impl From<SseEvent> for Framed {
    fn from(e: SseEvent) -> Self {
        Self { event: e.event, data: e.data }
    }
}

/// What was left when the body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rest {
    /// Nothing was pending.
    pub clean: bool,
    /// A message the end completed (an SSE event without its blank line, a
    /// line without its newline): read, though the end is not clean.
    pub last: Option<Framed>,
}

/// The framer of one body.
#[derive(Debug, Clone)]
pub enum Framer {
    /// Server-Sent Events.
    Sse(SseParser),
    /// One message per line.
    Lines(Vec<u8>, u64),
    /// Plain text: the bytes of a character not yet whole.
    Raw(Vec<u8>, u64),
}

impl Framer {
    /// A framer for `framing`.
    pub fn new(framing: Framing) -> Self {
        match framing {
            Framing::Sse => Self::Sse(SseParser::new()),
            Framing::Lines => Self::Lines(Vec::new(), 0),
            Framing::Raw => Self::Raw(Vec::new(), 0),
        }
    }

    /// Messages completed so far (the position of the next, for notes).
    pub fn messages(&self) -> u64 {
        match self {
            Self::Sse(p) => p.stats().events,
            Self::Lines(_, n) | Self::Raw(_, n) => *n,
        }
    }

    /// SSE lines that are no SSE field, and the first of them.
    pub fn unknown_lines(&self) -> (u64, Option<&str>) {
        match self {
            Self::Sse(p) => (p.stats().unknown_fields, p.first_unknown_line()),
            _ => (0, None),
        }
    }

    /// Feeds a read; appends the messages it completed to `out`.
    pub fn feed(&mut self, bytes: &[u8], sse_scratch: &mut Vec<SseEvent>, out: &mut Vec<Framed>) {
        match self {
            Self::Sse(p) => {
                p.feed_into(bytes, sse_scratch);
                out.extend(sse_scratch.drain(..).map(Framed::from));
            }
            Self::Lines(buf, n) => {
                for &b in bytes {
                    if b == b'\n' {
                        let line = lossy_line(buf);
                        buf.clear();
                        if !line.trim().is_empty() {
                            *n += 1;
                            out.push(Framed { event: None, data: line });
                        }
                    } else if buf.len() < MAX_LINE_BYTES {
                        buf.push(b);
                    }
                }
            }
            Self::Raw(carry, n) => {
                carry.extend_from_slice(bytes);
                let whole = whole_chars(carry);
                if whole > 0 {
                    let text = String::from_utf8_lossy(&carry[..whole]).into_owned();
                    carry.drain(..whole);
                    *n += 1;
                    out.push(Framed { event: None, data: text });
                }
            }
        }
    }

    /// Ends the body.
    pub fn finish(self) -> Rest {
        match self {
            Self::Sse(p) => {
                let rest = p.finish();
                Rest { clean: rest.is_clean(), last: rest.event.map(Framed::from) }
            }
            Self::Lines(buf, _) => {
                let line = lossy_line(&buf);
                let last = (!line.trim().is_empty()).then_some(Framed { event: None, data: line });
                Rest { clean: last.is_none(), last }
            }
            Self::Raw(carry, _) => Rest {
                clean: carry.is_empty(),
                last: (!carry.is_empty())
                    .then(|| Framed { event: None, data: String::from_utf8_lossy(&carry).into_owned() }),
            },
        }
    }
}

/// A line's text without its `\r`.
fn lossy_line(buf: &[u8]) -> String {
    let line = buf.strip_suffix(b"\r").unwrap_or(buf);
    String::from_utf8_lossy(line).into_owned()
}

/// How many leading bytes of `b` are whole UTF-8 characters (a character
/// cut at the end is left for the next read; invalid bytes count as whole,
/// to be shown as U+FFFD).
fn whole_chars(b: &[u8]) -> usize {
    let n = b.len();
    // A cut character is at most 3 bytes from the end.
    for back in 1..=3.min(n) {
        let i = n - back;
        let lead = b[i];
        if lead & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let need = match lead {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < need { i } else { n };
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(framing: Framing, reads: &[&[u8]]) -> (Vec<String>, Rest) {
        let mut f = Framer::new(framing);
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        for r in reads {
            f.feed(r, &mut scratch, &mut out);
        }
        (out.into_iter().map(|m| m.data).collect(), f.finish())
    }

    #[test]
    fn lines_are_cut_at_newlines_and_a_last_line_without_one_is_not_clean() {
        let (lines, rest) = run(Framing::Lines, &[b"{\"a\":1}\r\n{\"b\"", b":2}\n\n"]);
        assert_eq!(lines, ["{\"a\":1}", "{\"b\":2}"]);
        assert!(rest.clean);
        let (lines, rest) = run(Framing::Lines, &[b"{\"a\":1}\n{\"b\":"]);
        assert_eq!(lines, ["{\"a\":1}"]);
        assert_eq!((rest.clean, rest.last.map(|m| m.data)), (false, Some("{\"b\":".to_string())));
    }

    #[test]
    fn plain_text_holds_a_character_split_between_reads() {
        let e = "é".as_bytes();
        let (texts, rest) = run(Framing::Raw, &[b"caf", &e[..1], &e[1..], b" ok"]);
        assert_eq!(texts, ["caf", "é", " ok"]);
        assert!(rest.clean);
        let (_, rest) = run(Framing::Raw, &[b"x", &"€".as_bytes()[..2]]);
        assert!(!rest.clean, "the body ended inside a character");
        assert_eq!(whole_chars(&[0xFF]), 1, "an invalid byte is shown, not held");
    }
}
