//! Incremental Server-Sent Events parser (the WHATWG "event stream"
//! interpretation), fed bytes exactly as the network delivers them.
//!
//! Definitions:
//! - A **line** ends at CRLF, LF or a lone CR. A CR at the end of one network
//!   chunk followed by LF at the start of the next is one line ending, not two.
//! - Lines are decoded as UTF-8 only once complete, so a multi-byte character
//!   split across network chunks is decoded whole; invalid bytes become U+FFFD
//!   as the standard asks. A leading byte-order mark is skipped.
//! - `field: value` (one optional space after the colon is removed). Fields:
//!   `data` (appended, joined with `\n`), `event`, `id` (ignored when it holds
//!   NUL), `retry` (ASCII digits only). Lines starting with `:` are
//!   **comments** (servers use them as keep-alives); they are counted, not
//!   dispatched. Unknown fields are ignored.
//! - A blank line **dispatches** the event if any `data` was seen; an event
//!   with only `event:`/`id:` lines dispatches nothing (per the standard).
//! - At end of stream, an event that was not terminated by a blank line is
//!   discarded by browsers; [`SseParser::finish`] reports it as
//!   [`Unterminated`] so the caller can tell a truncated stream apart.
//!
//! The parser never fails and never panics: any byte sequence is some
//! sequence of events.

/// Longest line the parser buffers (16 MiB). A longer line is cut there and
/// counted in [`SseStats::oversized_lines`], protecting memory against a
/// server that never sends a newline.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The UTF-8 byte-order mark, skipped at the start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` type, `None` for the default `message`.
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: String,
    /// The last event id seen so far in the stream (sticky, as in browsers).
    pub id: Option<String>,
    /// A `retry:` value received with this event, in ms.
    pub retry: Option<u64>,
}

/// Counters about what the stream contained besides events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SseStats {
    /// Bytes fed so far.
    pub bytes: u64,
    /// Comment lines (keep-alives).
    pub comments: u64,
    /// Events dispatched.
    pub events: u64,
    /// Lines longer than [`MAX_LINE_BYTES`] that were cut.
    pub oversized_lines: u64,
    /// Lines with an unknown field name.
    pub unknown_fields: u64,
}

/// What was pending when the stream ended without a final blank line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unterminated {
    /// Bytes of an incomplete last line.
    pub partial_line: Vec<u8>,
    /// The event that had data but no terminating blank line.
    pub event: Option<SseEvent>,
}

impl Unterminated {
    /// True when nothing was pending: the stream ended on an event boundary.
    pub fn is_clean(&self) -> bool {
        self.partial_line.is_empty() && self.event.is_none()
    }
}

/// The incremental parser. Feed it with [`SseParser::feed`], then call
/// [`SseParser::finish`] when the stream ends.
#[derive(Debug, Clone, Default)]
pub struct SseParser {
    head: Vec<u8>,
    line: Vec<u8>,
    line_cut: bool,
    after_cr: bool,
    bom_checked: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    retry: Option<u64>,
    stats: SseStats,
    first_unknown: Option<String>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counters so far.
    pub fn stats(&self) -> SseStats {
        self.stats
    }

    /// The first line whose field name is not an SSE field (lossily decoded,
    /// at most 80 characters), if any.
    pub fn first_unknown_line(&self) -> Option<&str> {
        self.first_unknown.as_deref()
    }

    /// Feeds a piece of the stream; returns the events it completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        self.feed_into(bytes, &mut out);
        out
    }

    /// Like [`SseParser::feed`], appending to `out` (no allocation per call).
    pub fn feed_into(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        self.stats.bytes += bytes.len() as u64;
        if self.bom_checked {
            return self.feed_lines(bytes, out);
        }
        // The byte-order mark may itself arrive split: hold bytes until it is
        // clear whether the stream starts with one.
        self.head.extend_from_slice(bytes);
        if self.head.len() < BOM.len() && BOM.starts_with(&self.head) {
            return;
        }
        self.bom_checked = true;
        let head = std::mem::take(&mut self.head);
        self.feed_lines(head.strip_prefix(BOM).unwrap_or(&head), out);
    }

    fn feed_lines(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            // A CR ended the previous piece: an LF opening this one belongs to it.
            if let Some(r) = rest.strip_prefix(b"\n") {
                rest = r;
            }
            self.after_cr = false;
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            let (line, tail) = rest.split_at(pos);
            self.push_line_bytes(line);
            let was_cr = tail[0] == b'\r';
            rest = &tail[1..];
            if was_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let full = std::mem::take(&mut self.line);
            self.line_cut = false;
            self.process_line(&full, out);
        }
        self.push_line_bytes(rest);
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) {
        let room = MAX_LINE_BYTES.saturating_sub(self.line.len());
        if bytes.len() > room {
            self.line.extend_from_slice(&bytes[..room]);
            if !self.line_cut {
                self.stats.oversized_lines += 1;
                self.line_cut = true;
            }
        } else {
            self.line.extend_from_slice(bytes);
        }
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            self.stats.comments += 1;
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
            }
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" => {
                if !value.contains(&0) {
                    self.last_id = Some(String::from_utf8_lossy(value).into_owned());
                }
            }
            b"retry" => {
                if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                    self.retry = std::str::from_utf8(value).ok().and_then(|s| s.parse().ok());
                }
            }
            _ => {
                self.stats.unknown_fields += 1;
                if self.first_unknown.is_none() {
                    let text = String::from_utf8_lossy(line);
                    self.first_unknown = Some(text.chars().take(80).collect());
                }
            }
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if !self.has_data {
            self.event = None;
            return;
        }
        self.has_data = false;
        self.stats.events += 1;
        out.push(SseEvent {
            event: self.event.take().filter(|e| !e.is_empty()),
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
            retry: self.retry.take(),
        });
    }

    /// Ends the stream. Returns what was left pending; a clean end means the
    /// last event was terminated by a blank line.
    pub fn finish(mut self) -> Unterminated {
        // Bytes still held for the byte-order-mark check are a prefix of the
        // mark itself: nothing.
        let partial_line = std::mem::take(&mut self.line);
        let mut event = None;
        if !partial_line.is_empty() {
            // Interpret the incomplete line so its data is visible to the caller.
            let mut sink = Vec::new();
            let line = partial_line.clone();
            self.process_line(&line, &mut sink);
        }
        if self.has_data {
            event = Some(SseEvent {
                event: self.event.take().filter(|e| !e.is_empty()),
                data: std::mem::take(&mut self.data),
                id: self.last_id.clone(),
                retry: self.retry.take(),
            });
        }
        Unterminated { partial_line, event }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        p.feed(input)
    }

    #[test]
    fn basic_events_and_done() {
        let ev = all(b"data: {\"a\":1}\n\ndata: [DONE]\n\n");
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].data, "{\"a\":1}");
        assert_eq!(ev[1].data, "[DONE]");
    }

    #[test]
    fn line_endings_crlf_cr_lf() {
        for input in [&b"data: x\r\n\r\n"[..], &b"data: x\r\rdata: y\n\n"[..], &b"data: x\n\n"[..]] {
            let ev = all(input);
            assert_eq!(ev[0].data, "x", "{input:?}");
        }
        assert_eq!(all(b"data: x\r\rdata: y\n\n").len(), 2);
    }

    #[test]
    fn cr_then_lf_across_chunks_is_one_line_ending() {
        let mut p = SseParser::new();
        let mut ev = p.feed(b"data: a\r");
        ev.extend(p.feed(b"\ndata: b\r"));
        ev.extend(p.feed(b"\n\r\n"));
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].data, "a\nb");
    }

    #[test]
    fn empty_piece_between_cr_and_lf_changes_nothing() {
        let mut p = SseParser::new();
        let mut ev = p.feed(b"data: a\r");
        ev.extend(p.feed(b""));
        ev.extend(p.feed(b"\nx: y\n"));
        assert!(ev.is_empty(), "{ev:?}");
    }

    #[test]
    fn multi_line_data_comments_event_id_retry() {
        let ev = all(b": keep-alive\nevent: delta\nid: 7\nretry: 1500\ndata: one\ndata:two\n\n");
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].event.as_deref(), Some("delta"));
        assert_eq!(ev[0].id.as_deref(), Some("7"));
        assert_eq!(ev[0].retry, Some(1500));
        assert_eq!(ev[0].data, "one\ntwo");
        let mut p = SseParser::new();
        p.feed(b":ping\n\n:ping\n\n");
        assert_eq!(p.stats().comments, 2);
        assert_eq!(p.stats().events, 0);
    }

    #[test]
    fn event_without_data_dispatches_nothing() {
        assert!(all(b"event: ping\n\n").is_empty());
        let ev = all(b"event: ping\n\ndata: x\n\n");
        assert_eq!(ev[0].event, None, "event type must reset after a blank line");
    }

    #[test]
    fn utf8_split_across_chunks() {
        let text = "data: 你好🙂\n\n".as_bytes();
        for split in 0..text.len() {
            let mut p = SseParser::new();
            let mut ev = p.feed(&text[..split]);
            ev.extend(p.feed(&text[split..]));
            assert_eq!(ev[0].data, "你好🙂", "split at {split}");
        }
    }

    #[test]
    fn bom_is_skipped_even_when_split() {
        let mut p = SseParser::new();
        let mut ev = p.feed(b"\xEF");
        ev.extend(p.feed(b"\xBB\xBFdata: x\n\n"));
        assert_eq!(ev[0].data, "x");
    }

    #[test]
    fn truncated_stream_is_reported() {
        let mut p = SseParser::new();
        assert_eq!(p.feed(b"data: {\"par").len(), 0);
        let rest = p.finish();
        assert!(!rest.is_clean());
        assert_eq!(rest.event.unwrap().data, "{\"par");
        let mut p = SseParser::new();
        p.feed(b"data: x\n\n");
        assert!(p.finish().is_clean());
    }

    #[test]
    fn garbage_never_panics() {
        let ev = all(b"\xff\xfe\x00:\r\r\n\ndata\n\n\xffdata: x\n\ndata: \xff\n\n");
        assert_eq!(ev[0].data, "", "a bare `data` line is an empty data line");
        assert!(ev.iter().any(|e| e.data.contains('\u{FFFD}')));
    }
}
