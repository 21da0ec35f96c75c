//! One chunk a replay pane plays: when it is due, its text and tokens, and
//! what kind it is. The lowest replay type: panes ([`super::pane`]),
//! smoothing ([`super::smooth`]) and the cadence contrast
//! ([`super::cadence`]) all read it.

use crate::trace::ChunkKind;

/// One chunk to play.
#[derive(Debug, Clone, PartialEq)]
pub struct PaneChunk {
    /// Due offset from the start of playback (ms).
    pub due_ms: f64,
    /// Its text.
    pub text: String,
    /// Tokens it carries.
    pub tokens: u32,
    /// Answer, reasoning or tool call (what the trace records).
    pub kind: ChunkKind,
}
