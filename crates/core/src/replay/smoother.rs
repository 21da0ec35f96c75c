//! Display smoothing while a stream is live: text goes in as it arrives,
//! and on each animation frame [`Smoother::take`] says what to show now,
//! by the rules of [`super::smooth`] (word pacing: a word once it is whole
//! and `delay_ms` after the previous one; frame pacing: a share of the
//! backlog per frame). For word pacing, what a frame shows is exactly what
//! [`super::smooth::schedule`] releases by then (tested).

use super::smooth::Smoothing;

/// The online smoother of one answer.
#[derive(Debug, Clone)]
pub struct Smoother {
    mode: Smoothing,
    chars: Vec<(f64, char)>,
    shown: usize,
    last_release: Option<f64>,
    ended: bool,
}

impl Smoother {
    /// A smoother with nothing received.
    pub fn new(mode: Smoothing) -> Self {
        Self { mode, chars: Vec::new(), shown: 0, last_release: None, ended: false }
    }

    /// Text arrived at `at_ms`.
    pub fn push(&mut self, at_ms: f64, text: &str) {
        self.chars.extend(text.chars().map(|c| (at_ms, c)));
    }

    /// The stream ended: its last word is whole.
    pub fn end(&mut self) {
        self.ended = true;
    }

    /// Characters shown so far.
    pub fn shown_chars(&self) -> usize {
        self.shown
    }

    /// Everything received is shown.
    pub fn drained(&self) -> bool {
        self.shown == self.chars.len()
    }

    /// What to show at the frame at `now_ms` (empty when nothing is due).
    pub fn take(&mut self, now_ms: f64) -> String {
        let from = self.shown;
        match self.mode {
            Smoothing::Off => self.shown = self.chars.len(),
            Smoothing::Words { delay_ms } => {
                while let Some((end, whole)) = self.next_word() {
                    let release = self.last_release.map_or(whole, |l| whole.max(l + delay_ms));
                    if release > now_ms {
                        break;
                    }
                    self.last_release = Some(release);
                    self.shown = end;
                }
            }
            Smoothing::Frames { frame_ms, window_ms } => {
                let buffered = self.chars.len() - self.shown;
                if buffered > 0 {
                    let share = frame_ms.max(1.0) / window_ms.max(frame_ms.max(1.0));
                    self.shown += ((buffered as f64 * share).ceil() as usize).clamp(1, buffered);
                }
            }
        }
        self.chars[from..self.shown].iter().map(|c| c.1).collect()
    }

    /// The next word after what is shown: where it ends, and when it was
    /// whole (`None` while it may still grow).
    fn next_word(&self) -> Option<(usize, f64)> {
        let cs = &self.chars;
        let mut end = self.shown;
        if end >= cs.len() {
            return None;
        }
        while end < cs.len() && !cs[end].1.is_whitespace() {
            end += 1;
        }
        while end < cs.len() && cs[end].1.is_whitespace() {
            end += 1;
        }
        match cs.get(end) {
            Some(next) => Some((end, next.0)),
            None if self.ended => Some((end, cs[end - 1].0)),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::smooth::schedule;

    #[test]
    fn live_word_pacing_shows_what_the_schedule_releases() {
        let arrivals: Vec<(f64, String)> =
            [(100.0, "Hello wor"), (130.0, "ld, this "), (131.0, "is"), (400.0, " it.")]
                .iter()
                .map(|(t, s)| (*t, s.to_string()))
                .collect();
        let mode = Smoothing::Words { delay_ms: 10.0 };
        let planned = schedule(&arrivals, mode);
        // Frames every millisecond; arrivals pushed when their time comes.
        let mut s = Smoother::new(mode);
        let (mut next, mut shown_at) = (0, Vec::new());
        for ms in 0..=600 {
            let now = f64::from(ms);
            while next < arrivals.len() && arrivals[next].0 <= now {
                s.push(arrivals[next].0, &arrivals[next].1);
                next += 1;
            }
            if next == arrivals.len() {
                s.end();
            }
            let out = s.take(now);
            if !out.is_empty() {
                shown_at.push((now, out));
            }
        }
        assert!(s.drained());
        let flat = |v: Vec<(f64, String)>| v.into_iter().map(|(t, x)| (t.ceil(), x)).collect::<Vec<_>>();
        let expected: Vec<(f64, String)> = planned.into_iter().map(|p| (p.at_ms.ceil(), p.text)).collect();
        // Pieces due at the same millisecond arrive together online.
        let mut merged: Vec<(f64, String)> = Vec::new();
        for (t, x) in expected {
            match merged.last_mut() {
                Some((lt, lx)) if *lt == t => lx.push_str(&x),
                _ => merged.push((t, x)),
            }
        }
        assert_eq!(flat(shown_at), merged);
    }

    #[test]
    fn off_and_frames() {
        let mut off = Smoother::new(Smoothing::Off);
        off.push(1.0, "all at once");
        assert_eq!(off.take(1.0), "all at once");
        let mut f = Smoother::new(Smoothing::Frames { frame_ms: 20.0, window_ms: 100.0 });
        f.push(0.0, &"x".repeat(60));
        let sizes: Vec<usize> = (0..5).map(|k| f.take(f64::from(k) * 20.0).len()).collect();
        assert_eq!(sizes, vec![12, 10, 8, 6, 5], "the same reveal as the schedule's");
        assert!(!f.drained());
    }
}
