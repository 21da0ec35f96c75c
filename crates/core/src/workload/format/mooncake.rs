//! Mooncake's FAST'25 traces (JSON lines): `timestamp` in ms from the
//! trace's start, `input_length`, `output_length`, and `hash_ids`, the
//! prompt's blocks of [`BLOCK_TOKENS`] tokens in order (equal ids, equal
//! blocks).
//!
//! ```text
//! {"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48]}
//! ```

use super::{Head, JsonRow, Layout, Sessions, Spec};
use crate::workload::{Request, WorkloadError};

/// Tokens of a `hash_ids` block.
pub const BLOCK_TOKENS: u32 = 512;

/// What the readers need to know of it.
pub const SPEC: Spec = Spec {
    label: "Mooncake (FAST'25)",
    layout: Layout::JsonLines(row),
    timed: true,
    block_tokens: Some(BLOCK_TOKENS),
    detect,
};

/// A first line with both lengths and no chat id (Bailian's).
fn detect(head: &Head<'_>) -> bool {
    head.object_has(&["input_length", "output_length"]) && !head.object_has(&["chat_id"])
}

/// The row: its time in ms already.
fn row(r: &JsonRow<'_>, _: &mut Sessions) -> Result<Request, WorkloadError> {
    r.blocks_request(1.0)
}
