//! Display smoothing: what chat front ends do to a stream before people
//! see it, as a pure schedule from arrivals to display times, and what it
//! does to the cadence people see.
//!
//! - **Off**: each chunk is shown when it arrives.
//! - **Word pacing** (Vercel AI SDK `smoothStream`): arrived text waits in a
//!   buffer; one word (its letters and the spaces after it) is released
//!   every `delay_ms`, never before the whole word has arrived. A word is
//!   whole once a later character arrived; the last word at the end of the
//!   stream. Release of word j = max(word j whole, release of word j−1 +
//!   delay).
//! - **Frame pacing** (assistant-ui `useSmooth`): on every animation frame
//!   (every `frame_ms`, from the first arrival) a share frame / window of
//!   the buffered characters is revealed, rounded up (at least one): a
//!   burst is spread over about `window_ms` and the backlog shrinks
//!   geometrically, so the reveal speeds up when text piles up.
//!
//! What a schedule does to the rhythm people see is measured in
//! [`super::cadence`].

use serde::{Deserialize, Serialize};

use crate::replay::chunk::PaneChunk;

/// How text is paced onto the screen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum Smoothing {
    /// As it arrives.
    #[default]
    Off,
    /// One word every `delay_ms`.
    Words {
        /// Pause between words (ms); `smoothStream`'s default is 10.
        delay_ms: f64,
    },
    /// Characters per animation frame, draining the buffer within `window_ms`.
    Frames {
        /// Frame interval (ms), 16.7 at 60 Hz.
        frame_ms: f64,
        /// Time to drain what is buffered (ms).
        window_ms: f64,
    },
}

/// `smoothStream`'s default word delay (ms).
pub const DEFAULT_WORD_DELAY_MS: f64 = 10.0;
/// A 60 Hz frame (ms).
pub const FRAME_MS: f64 = 1000.0 / 60.0;
/// Default drain window of frame pacing (ms).
pub const DEFAULT_WINDOW_MS: f64 = 100.0;

/// The choices people pick from, with the defaults of each front end:
/// `(key, label)`.
pub const CHOICES: [(&str, &str); 3] = [
    ("off", "as it arrives"),
    ("words", "one word every 10 ms (smoothStream)"),
    ("frames", "characters per frame (useSmooth)"),
];

impl Smoothing {
    /// Its key among [`CHOICES`].
    pub fn key(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Words { .. } => "words",
            Self::Frames { .. } => "frames",
        }
    }

    /// The smoothing a key of [`CHOICES`] names, with its defaults (off for
    /// anything else).
    pub fn from_key(key: &str) -> Self {
        match key {
            "words" => Self::Words { delay_ms: DEFAULT_WORD_DELAY_MS },
            "frames" => Self::Frames { frame_ms: FRAME_MS, window_ms: DEFAULT_WINDOW_MS },
            _ => Self::Off,
        }
    }

    /// True when text is shown as it arrives.
    pub fn is_off(&self) -> bool {
        *self == Self::Off
    }
}

/// Text shown at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// When it is shown (ms, the arrivals' clock).
    pub at_ms: f64,
    /// What is shown.
    pub text: String,
}

/// Display schedule of arrivals `(ms, text)` (in arrival order).
pub fn schedule(arrivals: &[(f64, String)], mode: Smoothing) -> Vec<Shown> {
    match mode {
        Smoothing::Off => arrivals.iter().map(|(t, s)| Shown { at_ms: *t, text: s.clone() }).collect(),
        Smoothing::Words { delay_ms } => words(arrivals, delay_ms.max(0.0)),
        Smoothing::Frames { frame_ms, window_ms } => {
            frames(arrivals, frame_ms.max(1.0), window_ms.max(frame_ms))
        }
    }
}

/// Characters with their arrival times.
fn chars(arrivals: &[(f64, String)]) -> Vec<(f64, char)> {
    arrivals.iter().flat_map(|(t, s)| s.chars().map(move |c| (*t, c))).collect()
}

fn words(arrivals: &[(f64, String)], delay: f64) -> Vec<Shown> {
    let cs = chars(arrivals);
    let mut out: Vec<Shown> = Vec::new();
    let mut start = 0;
    while start < cs.len() {
        // A word: non-spaces, then the spaces after it.
        let mut end = start;
        while end < cs.len() && !cs[end].1.is_whitespace() {
            end += 1;
        }
        while end < cs.len() && cs[end].1.is_whitespace() {
            end += 1;
        }
        // Whole when the next character arrived (or at the end of the stream).
        let whole = if end < cs.len() { cs[end].0 } else { cs[end - 1].0 };
        let at = out.last().map_or(whole, |p: &Shown| whole.max(p.at_ms + delay));
        out.push(Shown { at_ms: at, text: cs[start..end].iter().map(|c| c.1).collect() });
        start = end;
    }
    out
}

fn frames(arrivals: &[(f64, String)], frame: f64, window: f64) -> Vec<Shown> {
    let cs = chars(arrivals);
    let Some(&(first, _)) = cs.first() else { return Vec::new() };
    let mut out = Vec::new();
    let (mut shown, mut k) = (0usize, 0u64);
    while shown < cs.len() {
        let t = first + frame * k as f64;
        k += 1;
        let arrived = cs.partition_point(|c| c.0 <= t);
        let buffered = arrived.saturating_sub(shown);
        if buffered == 0 {
            continue;
        }
        let n = ((buffered as f64 * frame / window).ceil() as usize).clamp(1, buffered);
        out.push(Shown { at_ms: t, text: cs[shown..shown + n].iter().map(|c| c.1).collect() });
        shown += n;
    }
    out
}

/// A pane's chunks as they are shown under `mode`: one chunk per shown
/// piece, due when it is shown. Each network chunk's tokens go to the
/// piece that shows its last character (a chunk without text, to the piece
/// shown next), so the token count is kept.
pub fn smooth_chunks(chunks: &[PaneChunk], mode: Smoothing) -> Vec<PaneChunk> {
    if mode == Smoothing::Off {
        return chunks.to_vec();
    }
    let arrivals: Vec<(f64, String)> = chunks.iter().map(|c| (c.due_ms, c.text.clone())).collect();
    let shown = schedule(&arrivals, mode);
    // Character offset where each shown piece ends.
    let mut ends = Vec::with_capacity(shown.len());
    let mut at = 0usize;
    for p in &shown {
        at += p.text.chars().count();
        ends.push(at);
    }
    let mut out: Vec<PaneChunk> = shown
        .into_iter()
        .map(|p| PaneChunk { due_ms: p.at_ms, text: p.text, tokens: 0, kind: chunks[0].kind })
        .collect();
    let mut offset = 0usize;
    for c in chunks {
        offset += c.text.chars().count();
        // The piece holding character `offset − 1` (or the next one for an empty chunk).
        let last = if c.text.is_empty() { offset } else { offset - 1 };
        let k = ends.partition_point(|&e| e <= last).min(out.len().saturating_sub(1));
        if let Some(piece) = out.get_mut(k) {
            if piece.tokens == 0 {
                piece.kind = c.kind;
            }
            piece.tokens += c.tokens;
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Arrivals from `(ms, text)` pairs.
    pub(crate) fn arr(items: &[(f64, &str)]) -> Vec<(f64, String)> {
        items.iter().map(|(t, s)| (*t, s.to_string())).collect()
    }

    /// The text of a schedule, joined.
    pub(crate) fn joined(s: &[Shown]) -> String {
        s.iter().map(|x| x.text.as_str()).collect()
    }

    #[test]
    fn off_shows_what_arrived_when_it_arrived() {
        let a = arr(&[(100.0, "Hello"), (120.0, " world")]);
        let s = schedule(&a, Smoothing::Off);
        assert_eq!(s.iter().map(|x| x.at_ms).collect::<Vec<_>>(), vec![100.0, 120.0]);
    }

    #[test]
    fn words_wait_to_be_whole_and_are_paced() {
        // "Hello wor" at 100, "ld again" at 300.
        let a = arr(&[(100.0, "Hello wor"), (300.0, "ld again")]);
        let s = schedule(&a, Smoothing::Words { delay_ms: 10.0 });
        let texts: Vec<&str> = s.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(texts, vec!["Hello ", "world ", "again"]);
        // "Hello " is whole at 100 (its next char arrived with it); "world " when "ld" came,
        // "again" at the end of the stream, 10 ms after "world ".
        assert_eq!(s.iter().map(|x| x.at_ms).collect::<Vec<_>>(), vec![100.0, 300.0, 310.0]);
        assert_eq!(joined(&s), "Hello world again");
    }

    #[test]
    fn frames_spread_a_burst_and_speed_up_with_the_backlog() {
        // 60 characters at once: 100 ms window, 20 ms frames → 5 frames: 12 each.
        let a = arr(&[(0.0, &"x".repeat(60))]);
        let s = schedule(&a, Smoothing::Frames { frame_ms: 20.0, window_ms: 100.0 });
        assert_eq!(
            s.iter().map(|x| x.text.len()).collect::<Vec<_>>(),
            vec![12, 10, 8, 6, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1]
        );
        assert_eq!(joined(&s).len(), 60);
        assert_eq!(s[1].at_ms, 20.0);
    }

    #[test]
    fn smoothed_chunks_keep_text_and_tokens() {
        use crate::trace::ChunkKind;
        let c = |due: f64, text: &str, tokens: u32| PaneChunk {
            due_ms: due,
            text: text.into(),
            tokens,
            kind: ChunkKind::Content,
        };
        let net = vec![c(100.0, "Hel", 1), c(110.0, "lo wor", 2), c(120.0, "", 1), c(300.0, "ld", 1)];
        let shown = smooth_chunks(&net, Smoothing::Words { delay_ms: 10.0 });
        assert_eq!(shown.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(), vec!["Hello ", "world"]);
        // "Hel" ends in "Hello "; "lo wor", the empty chunk and "ld" end in "world".
        assert_eq!(shown.iter().map(|p| p.tokens).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(shown.iter().map(|p| p.tokens).sum::<u32>(), 5);
        assert_eq!(smooth_chunks(&net, Smoothing::Off), net);
    }
}
