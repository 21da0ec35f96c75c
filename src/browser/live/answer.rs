//! The live answer on the page: text or Markdown, shown as it arrives or
//! paced by a smoother (`lab_core::replay::smoother`), and which chunks are
//! on screen as of a frame (a chunk is painted once all its text is shown).

use lab_core::measure::metrics::DEFAULT_STALL_MS;
use lab_core::replay::cadence::{self, Contrast};
use lab_core::replay::smooth::{Shown, Smoothing};
use lab_core::replay::smoother::Smoother;
use lab_core::stream::markdown::MarkdownStream;
use lab_core::trace::{Chunk, ChunkKind};

use crate::browser::markdown_dom::MarkdownState;
use crate::browser::render::append_text;

/// The answer of one request on screen.
pub(super) struct Answer {
    content: web_sys::Element,
    markdown: Option<(MarkdownState, String)>,
    smoother: Option<Smoother>,
    /// `(chunk index, characters of the answer up to and including it)`
    /// of answer chunks not yet wholly shown.
    waiting: std::collections::VecDeque<(usize, usize)>,
    received: usize,
    /// Answer text as it was shown (smoothed answers).
    shown: Vec<Shown>,
}

impl Answer {
    pub(super) fn new(content: web_sys::Element, markdown: bool, smoothing: Smoothing) -> Self {
        let _ = content.class_list().toggle_with_force("markdown", markdown);
        Self {
            content,
            markdown: markdown.then(|| (MarkdownState::new(MarkdownStream::new()), String::new())),
            smoother: (!smoothing.is_off()).then(|| Smoother::new(smoothing)),
            waiting: Default::default(),
            received: 0,
            shown: Vec::new(),
        }
    }

    /// An answer chunk (index `i` of the request) arrived. Unsmoothed text
    /// goes on the page at once; the rest waits for the next frame.
    pub(super) fn push(&mut self, i: usize, c: &Chunk) {
        self.received += c.text.chars().count();
        match (&mut self.smoother, &mut self.markdown) {
            (Some(s), _) => {
                s.push(c.arrived_ms, &c.text);
                self.waiting.push_back((i, self.received));
            }
            (None, Some((_, pending))) => pending.push_str(&c.text),
            (None, None) => append_text(&self.content, &c.text),
        }
    }

    /// The stream ended: the smoother may release its last word.
    pub(super) fn end(&mut self) {
        if let Some(s) = &mut self.smoother {
            s.end();
        }
    }

    /// The smoother has shown everything received (Markdown's last block
    /// is put on the page by [`Answer::finish`]).
    pub(super) fn drained(&self) -> bool {
        self.smoother.as_ref().is_none_or(Smoother::drained)
    }

    /// Puts on the page what is due at the frame at `now` (the frame's
    /// time: what it adds is painted in it).
    pub(super) fn frame(&mut self, now: f64) {
        let text = match &mut self.smoother {
            Some(s) => s.take(now),
            None => String::new(),
        };
        if !text.is_empty() {
            self.shown.push(Shown { at_ms: now, text: text.clone() });
        }
        match &mut self.markdown {
            Some((state, pending)) => {
                pending.push_str(&text);
                if !pending.is_empty() {
                    let updates = state.stream.push(pending);
                    state.apply(&self.content, updates);
                    pending.clear();
                }
            }
            None if !text.is_empty() => append_text(&self.content, &text),
            None => {}
        }
    }

    /// Chunks before the returned index are on screen (`committed` when no
    /// answer chunk is still waiting for the smoother).
    pub(super) fn shown_upto(&mut self, committed: usize) -> usize {
        let shown = self.smoother.as_ref().map_or(usize::MAX, Smoother::shown_chars);
        while self.waiting.front().is_some_and(|&(_, end)| end <= shown) {
            self.waiting.pop_front();
        }
        self.waiting.front().map_or(committed, |&(i, _)| i.min(committed))
    }

    /// How the smoothed answer was shown against how its answer chunks
    /// (of the request's `chunks`) streamed (`None` unsmoothed, or with
    /// fewer than two pieces either way).
    pub(super) fn cadence(&self, chunks: &[Chunk]) -> Option<Contrast> {
        self.smoother.as_ref()?;
        let arrived: Vec<(f64, String)> = chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::Content)
            .map(|c| (c.arrived_ms, c.text.clone()))
            .collect();
        cadence::contrast(&arrived, &self.shown, DEFAULT_STALL_MS)
    }

    /// Ends Markdown (the last block).
    pub(super) fn finish(&mut self) {
        if let Some((state, pending)) = &mut self.markdown {
            let mut updates = state.stream.push(pending);
            pending.clear();
            updates.extend(state.stream.finish());
            state.apply(&self.content, updates);
        }
    }
}
