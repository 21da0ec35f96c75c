//! Alibaba Bailian's usage traces (JSON lines): `timestamp` in seconds,
//! `input_length`, `output_length`, `hash_ids` of [`BLOCK_TOKENS`] tokens,
//! and conversations: `chat_id`, `parent_chat_id` (−1 at a root) and
//! `turn`; `type` is kept.
//!
//! ```text
//! {"chat_id": 7, "parent_chat_id": 3, "timestamp": 61.2, "input_length": 1200, "output_length": 80, "type": "text", "turn": 2, "hash_ids": [1, 2]}
//! ```

use serde_json::Value;

use super::{Head, JsonRow, Layout, Sessions, Spec};
use crate::workload::{Request, WorkloadError};

/// Tokens of a `hash_ids` block.
pub const BLOCK_TOKENS: u32 = 16;

/// What the readers need to know of it.
pub const SPEC: Spec = Spec {
    label: "Alibaba Bailian",
    layout: Layout::JsonLines(row),
    timed: true,
    block_tokens: Some(BLOCK_TOKENS),
    detect,
};

/// A first line with a chat id and an input length.
fn detect(head: &Head<'_>) -> bool {
    head.object_has(&["chat_id", "input_length"])
}

/// The row, its session its root chat's id.
fn row(r: &JsonRow<'_>, sessions: &mut Sessions) -> Result<Request, WorkloadError> {
    let mut req = r.blocks_request(1000.0)?;
    let chat = u64::try_from(r.int("chat_id")?).map_err(|_| r.bad("\"chat_id\": a whole number ≥ 0"))?;
    let parent = u64::try_from(r.int("parent_chat_id")?).ok();
    req.session = Some(sessions.root(chat, parent));
    req.turn = r.object.get("turn").and_then(Value::as_u64).and_then(|t| u32::try_from(t).ok());
    req.kind =
        r.object.get("type").and_then(|t| t.as_str().map(str::to_string).or_else(|| Some(t.to_string())));
    Ok(req)
}
