//! OpenAI Chat Completions (and legacy Completions) chunks, as
//! [`crate::stream::openai`] decodes them, in the wires' terms: content,
//! reasoning and tool-call fragments are deltas; an empty content string
//! that is neither the role-only opening nor the closing chunk is a token
//! whose bytes do not yet form a character (an empty answer delta);
//! `[DONE]` is the end.

use crate::stream::openai::{self, DecodeError, StreamItem};
use crate::stream::wire::{Delta, Message};

/// Decodes one `data:` payload.
pub fn decode(data: &str) -> Result<Message, DecodeError> {
    Ok(match openai::decode(data)? {
        StreamItem::Done => Message { end: true, ..Message::default() },
        StreamItem::Error(e) => Message { error: Some(e), ..Message::default() },
        StreamItem::Chunk(c) => {
            let empty_token = c.is_token() && !c.has_text();
            let mut deltas = Vec::new();
            if !c.reasoning.is_empty() {
                deltas.push(Delta::reasoning(c.reasoning));
            }
            if !c.content.is_empty() || empty_token {
                deltas.push(Delta::answer(c.content));
            }
            deltas.extend(c.tool_calls.into_iter().map(|(call, args)| Delta::tool(call, args)));
            Message {
                deltas,
                usage: c.usage,
                finish: c.finish_reason,
                model: c.model,
                notes: c.repaired,
                ..Message::default()
            }
        }
    })
}
