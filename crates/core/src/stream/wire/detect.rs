//! Which wire a response speaks ([`super`]'s docs: the AI SDK's headers,
//! then the content type, then the first event).

use serde_json::Value;

use crate::stream::wire::{Wire, str_of, ui_stream};

/// Which wire a response speaks, from its headers and the first bytes of
/// its body (module docs). `header(name)` reads a response header
/// (lower-case name); `None` when the bytes so far do not tell yet.
pub fn detect(content_type: &str, header: impl Fn(&str) -> Option<String>, first: &[u8]) -> Option<Wire> {
    let has = |name: &str| header(name).is_some_and(|v| v.trim() == "v1");
    if has("x-vercel-ai-ui-message-stream") {
        return Some(Wire::UiStream);
    }
    if has("x-vercel-ai-data-stream") {
        return Some(Wire::DataStream);
    }
    let ct = content_type.to_ascii_lowercase();
    let text = String::from_utf8_lossy(first);
    if ct.contains("ndjson") || ct.contains("jsonl") {
        return Some(Wire::Ollama);
    }
    if ct.starts_with("text/plain") {
        let line = text.lines().next()?;
        let data_part =
            line.len() > 2 && line.as_bytes()[1] == b':' && line.as_bytes()[0].is_ascii_alphanumeric();
        return Some(if data_part && serde_json::from_str::<Value>(&line[2..]).is_ok() {
            Wire::DataStream
        } else {
            Wire::Text
        });
    }
    if ct.contains("application/json") && text.trim_start().starts_with('{') && text.contains('\n') {
        return Some(Wire::Ollama);
    }
    sniff_sse(&text)
}

/// The wire of an event stream from its first event with data.
fn sniff_sse(text: &str) -> Option<Wire> {
    let mut event = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("event:") {
            event = Some(name.trim().to_owned());
        } else if let Some(data) = line.strip_prefix("data:") {
            let data = data.trim();
            if data == "[DONE]" {
                return Some(Wire::Chat);
            }
            let v: Value = serde_json::from_str(data).ok()?;
            let kind = event.as_deref().or_else(|| str_of(&v, "type")).unwrap_or("");
            return Some(
                if kind.starts_with("response.") || kind == "error" && v.get("sequence_number").is_some() {
                    Wire::Responses
                } else if kind.starts_with("message_") || kind.starts_with("content_block") || kind == "ping"
                {
                    Wire::Anthropic
                } else if v.get("candidates").is_some() || v.get("usageMetadata").is_some() {
                    Wire::Gemini
                } else if ui_stream::is_part(kind) {
                    Wire::UiStream
                } else {
                    Wire::Chat
                },
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_reads_headers_content_type_and_the_first_event() {
        let none = |_: &str| None;
        let ui = |n: &str| (n == "x-vercel-ai-ui-message-stream").then(|| "v1".to_string());
        assert_eq!(detect("text/event-stream", ui, b""), Some(Wire::UiStream));
        assert_eq!(detect("application/x-ndjson", none, b""), Some(Wire::Ollama));
        assert_eq!(detect("text/plain; charset=utf-8", none, b"Hello"), Some(Wire::Text));
        assert_eq!(detect("text/plain; charset=utf-8", none, b"0:\"Hi\"\n"), Some(Wire::DataStream));
        assert_eq!(detect("text/plain", none, b""), None, "nothing to tell yet");
        let sse = |s: &str| detect("text/event-stream", none, s.as_bytes());
        assert_eq!(
            sse("event: message_start\ndata: {\"type\":\"message_start\"}\n\n"),
            Some(Wire::Anthropic)
        );
        assert_eq!(
            sse("event: response.created\ndata: {\"type\":\"response.created\"}\n\n"),
            Some(Wire::Responses)
        );
        assert_eq!(sse("data: {\"candidates\":[]}\n\n"), Some(Wire::Gemini));
        assert_eq!(sse("data: {\"type\":\"start\",\"messageId\":\"m\"}\n\n"), Some(Wire::UiStream));
        assert_eq!(sse("data: {\"choices\":[]}\n\n"), Some(Wire::Chat));
        assert_eq!(sse(": keep-alive\n\n"), None);
    }
}
