//! Tool calls in a stream (OpenAI `delta.tool_calls`), as agents see them.
//!
//! A streamed tool call arrives as fragments: the first names the call
//! (`index`, `id`, `function.name`), the rest carry pieces of its JSON
//! `arguments`. Each fragment is recorded as one chunk of kind
//! [`ChunkKind::ToolCall`] whose text is the
//! argument piece and whose [`ToolCallRef`] says which call it belongs to.
//! Such a chunk is a generated token like any other (it counts in TTFT,
//! ITL, E2EL and output tokens); a response that only calls tools is
//! completed, not empty.
//!
//! Definitions (ms after the request was sent):
//! - **Time to first tool call**: arrival of the first tool-call fragment.
//! - A call is **complete** when all its argument fragments have arrived:
//!   at its last fragment, once the stream went on to something else (a
//!   later call, more text) or ended cleanly. A call still open when the
//!   stream broke is not complete.
//! - **Tool calls complete**: when the last call of the response was
//!   complete (what an agent waits for before it can run the tools).

use serde::{Deserialize, Serialize};

use super::{ChunkKind, RequestTrace};

/// Which call a tool-call chunk belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallRef {
    /// `tool_calls[].index`: the call's position in the response.
    pub index: u32,
    /// `tool_calls[].id`, on the call's first fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `function.name`, on the call's first fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// One call, put together from its fragments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Position in the response.
    pub index: u32,
    /// Its id, when the server sent one.
    pub id: Option<String>,
    /// The function called.
    pub name: String,
    /// The JSON arguments, as received.
    pub arguments: String,
    /// Fragments received.
    pub fragments: usize,
    /// Arrival of the first fragment (ms after sent).
    pub first_ms: f64,
    /// When all arguments had arrived (ms after sent), if they did.
    pub complete_ms: Option<f64>,
    /// The arguments are one valid JSON value.
    pub valid_json: bool,
}

/// The tool calls of a request, in index order.
pub fn tool_calls(r: &RequestTrace) -> Vec<ToolCall> {
    let mut calls: Vec<ToolCall> = Vec::new();
    let mut last_fragment: Vec<(u32, usize)> = Vec::new();
    for (i, c) in r.chunks.iter().enumerate() {
        let (ChunkKind::ToolCall, Some(t)) = (c.kind, &c.tool) else { continue };
        let at = c.arrived_ms - r.sent_ms;
        let call = match calls.iter_mut().find(|x| x.index == t.index) {
            Some(x) => x,
            None => {
                calls.push(ToolCall {
                    index: t.index,
                    id: None,
                    name: String::new(),
                    arguments: String::new(),
                    fragments: 0,
                    first_ms: at,
                    complete_ms: None,
                    valid_json: false,
                });
                calls.last_mut().expect("just pushed")
            }
        };
        if call.id.is_none() {
            call.id.clone_from(&t.id);
        }
        if let Some(n) = &t.name {
            call.name.push_str(n);
        }
        call.arguments.push_str(&c.text);
        call.fragments += 1;
        match last_fragment.iter_mut().find(|(idx, _)| *idx == t.index) {
            Some(l) => l.1 = i,
            None => last_fragment.push((t.index, i)),
        }
    }
    let clean_end = r.failure.is_none() && r.end_ms.is_some();
    for call in &mut calls {
        let Some(&(_, last)) = last_fragment.iter().find(|(idx, _)| *idx == call.index) else { continue };
        let later = r.chunks[last + 1..]
            .iter()
            .any(|c| c.kind != ChunkKind::ToolCall || c.tool.as_ref().is_some_and(|t| t.index != call.index));
        if later || clean_end {
            call.complete_ms = Some(r.chunks[last].arrived_ms - r.sent_ms);
        }
        call.valid_json = serde_json::from_str::<serde_json::Value>(&call.arguments).is_ok();
    }
    calls.sort_by_key(|c| c.index);
    calls
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Chunk, Failure, FailureKind};

    fn frag(at: f64, index: u32, name: Option<&str>, args: &str) -> Chunk {
        Chunk {
            arrived_ms: at,
            text: args.into(),
            tokens: 1,
            kind: ChunkKind::ToolCall,
            painted_ms: None,
            due_ms: None,
            tool: Some(ToolCallRef {
                index,
                id: name.map(|n| format!("call_{n}")),
                name: name.map(Into::into),
            }),
            chars: None,
        }
    }

    fn request(chunks: Vec<Chunk>, broken: bool) -> RequestTrace {
        RequestTrace {
            sent_ms: 100.0,
            chunks,
            end_ms: Some(200.0),
            failure: broken.then(|| Failure {
                kind: FailureKind::Truncated,
                message: "cut".into(),
                status: None,
                body: None,
            }),
            ..RequestTrace::default()
        }
    }

    #[test]
    fn calls_are_put_together_and_timed() {
        let r = request(
            vec![
                frag(110.0, 0, Some("get_weather"), ""),
                frag(120.0, 1, Some("get_time"), ""),
                frag(130.0, 0, None, "{\"city\":"),
                frag(140.0, 1, None, "{}"),
                frag(150.0, 0, None, "\"Paris\"}"),
            ],
            false,
        );
        let calls = tool_calls(&r);
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[0].name.as_str(), calls[0].arguments.as_str()),
            ("get_weather", "{\"city\":\"Paris\"}")
        );
        assert_eq!(calls[0].id.as_deref(), Some("call_get_weather"));
        assert_eq!((calls[0].first_ms, calls[0].complete_ms), (10.0, Some(50.0)));
        assert_eq!(
            (calls[1].first_ms, calls[1].complete_ms),
            (20.0, Some(40.0)),
            "a later fragment of call 0 ends it"
        );
        assert!(calls.iter().all(|c| c.valid_json));
    }

    #[test]
    fn a_call_cut_off_is_not_complete() {
        let r = request(vec![frag(110.0, 0, Some("f"), "{\"a\": "), frag(120.0, 0, None, "1")], true);
        let calls = tool_calls(&r);
        assert_eq!(calls[0].complete_ms, None);
        assert!(!calls[0].valid_json);
    }
}
