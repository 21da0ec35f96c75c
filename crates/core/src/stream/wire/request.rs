//! Reading a request of any wire but OpenAI Chat (which
//! [`crate::stream::openai::request`] reads) as the replay endpoint does:
//! the model, the prompt text, the output limit and whether to stream.
//!
//! | wire | prompt | limit | stream | model |
//! |---|---|---|---|---|
//! | Responses | `instructions`, then `input` (a string, or items whose `content` is a string or `input_text` parts) | `max_output_tokens` | `stream` | `model` |
//! | Anthropic | `system` (a string or text blocks), then `messages[].content` (a string or text blocks) | `max_tokens` | `stream` | `model` |
//! | Gemini | `systemInstruction.parts`, then `contents[].parts[].text` | `generationConfig.maxOutputTokens` | the route (`:streamGenerateContent`) | the route |
//! | Ollama | `system`, then `messages[].content` (`/api/chat`) or `prompt` (`/api/generate`) | `options.num_predict` | `stream` (default true) | `model` |
//! | AI SDK UI message stream | `messages[].parts[]` of type `text` (or a `content` string) | — | always | `model`, else the route's |
//! | AI SDK data stream, plain text | as the UI message stream | — | always | as above |
//!
//! Each text is followed by a newline, as the Chat reader takes messages
//! (so one prompt counts the same tokens, and hits the same prefix cache
//! blocks, on every wire). The
//! engines' `min_tokens` and `ignore_eos` are read on every wire (the lab's
//! runner sends them with `--exact-output`).

use serde_json::Value;

use crate::stream::openai::request::{CompletionRequest, RequestError};
use crate::stream::wire::Wire;

/// Reads a request body of `wire`; `model` is the model the route names
/// (Gemini's path, the lab's `/v1/lab/…-stream?model=`), `stream` what the
/// route says of streaming (Gemini's action), both where they apply.
pub fn decode(
    body: &[u8],
    wire: Wire,
    model: Option<&str>,
    stream: Option<bool>,
) -> Result<CompletionRequest, RequestError> {
    let req: Value = match serde_json::from_slice(body) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Err(RequestError::NotAnObject),
    };
    let limit = |v: Option<&Value>| v.and_then(Value::as_u64).map(|m| u32::try_from(m).unwrap_or(u32::MAX));
    let named = req.get("model").and_then(Value::as_str).map(str::to_owned);
    let asked = req.get("stream").and_then(Value::as_bool);
    let mut texts = Vec::new();
    let (max_tokens, streams) = match wire {
        Wire::Chat => return CompletionRequest::decode(body, crate::trace::ApiFlavor::Chat),
        Wire::Responses => {
            push(&mut texts, req.get("instructions"));
            match req.get("input") {
                Some(Value::String(s)) => texts.push(s.clone()),
                Some(Value::Array(items)) => items.iter().for_each(|i| push(&mut texts, i.get("content"))),
                _ => return Err(RequestError::Messages),
            }
            (limit(req.get("max_output_tokens")), asked.unwrap_or(false))
        }
        Wire::Anthropic => {
            push(&mut texts, req.get("system"));
            messages(&mut texts, &req)?;
            (limit(req.get("max_tokens")), asked.unwrap_or(false))
        }
        Wire::Gemini => {
            if let Some(s) = req.get("systemInstruction") {
                push(&mut texts, s.get("parts"));
            }
            let contents = req.get("contents").and_then(Value::as_array).ok_or(RequestError::Messages)?;
            contents.iter().for_each(|c| push(&mut texts, c.get("parts")));
            let max = req.get("generationConfig").and_then(|g| g.get("maxOutputTokens"));
            (limit(max), stream.unwrap_or(false))
        }
        Wire::Ollama => {
            push(&mut texts, req.get("system"));
            match req.get("prompt") {
                Some(Value::String(p)) => texts.push(p.clone()),
                _ => messages(&mut texts, &req)?,
            }
            (limit(req.get("options").and_then(|o| o.get("num_predict"))), asked.unwrap_or(true))
        }
        Wire::UiStream | Wire::DataStream | Wire::Text => {
            let list = req.get("messages").and_then(Value::as_array).ok_or(RequestError::Messages)?;
            for m in list {
                push(&mut texts, m.get("parts").or_else(|| m.get("content")));
            }
            (limit(req.get("max_tokens").or_else(|| req.get("maxOutputTokens"))), true)
        }
    };
    Ok(CompletionRequest {
        model: named.or_else(|| model.map(str::to_owned)).unwrap_or_default(),
        prompt: texts.iter().map(|t| format!("{t}\n")).collect(),
        max_tokens,
        // The engines' extensions, which `latency-lab run --exact-output` sends on every wire.
        min_tokens: limit(req.get("min_tokens")),
        ignore_eos: req.get("ignore_eos").and_then(Value::as_bool) == Some(true),
        stream: streams,
        // Every wire but Chat reports usage without being asked.
        include_usage: true,
    })
}

/// `messages[].content` of a chat-shaped request.
fn messages(texts: &mut Vec<String>, req: &Value) -> Result<(), RequestError> {
    let list = req.get("messages").and_then(Value::as_array).ok_or(RequestError::Messages)?;
    list.iter().for_each(|m| push(texts, m.get("content")));
    Ok(())
}

/// The text of a content value: a string, or the `text` of each part or
/// block (`text`, `input_text`, Gemini's `{text}` parts).
fn push(texts: &mut Vec<String>, v: Option<&Value>) {
    match v {
        Some(Value::String(s)) => texts.push(s.clone()),
        Some(Value::Array(parts)) => texts
            .extend(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).map(str::to_owned)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(wire: Wire, body: &str) -> CompletionRequest {
        decode(body.as_bytes(), wire, Some("route-model"), Some(true)).unwrap()
    }

    #[test]
    fn each_wire_gives_its_prompt_limit_stream_and_model() {
        let r = read(
            Wire::Responses,
            r#"{"model":"gpt","instructions":"Be brief.","input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]}],"max_output_tokens":64,"stream":true}"#,
        );
        assert_eq!(
            (r.model.as_str(), r.prompt.as_str(), r.max_tokens, r.stream),
            ("gpt", "Be brief.\nHi\n", Some(64), true)
        );
        let r = read(
            Wire::Anthropic,
            r#"{"model":"claude","system":[{"type":"text","text":"Sys"}],"messages":[{"role":"user","content":"Hello"}],"max_tokens":100,"stream":true}"#,
        );
        assert_eq!((r.prompt.as_str(), r.max_tokens), ("Sys\nHello\n", Some(100)));
        let r = read(
            Wire::Gemini,
            r#"{"contents":[{"role":"user","parts":[{"text":"Why?"}]}],"generationConfig":{"maxOutputTokens":8}}"#,
        );
        assert_eq!(
            (r.model.as_str(), r.prompt.as_str(), r.max_tokens, r.stream),
            ("route-model", "Why?\n", Some(8), true)
        );
        let r = read(
            Wire::Ollama,
            r#"{"model":"llama3.2","messages":[{"role":"user","content":"Sky?"}],"options":{"num_predict":5}}"#,
        );
        assert_eq!(
            (r.prompt.as_str(), r.max_tokens, r.stream),
            ("Sky?\n", Some(5), true),
            "Ollama streams unless told not to"
        );
        let r = read(Wire::Ollama, r#"{"model":"llama3.2","prompt":"Sky?","stream":false}"#);
        assert!(!r.stream);
        let r = read(
            Wire::UiStream,
            r#"{"id":"c1","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"Hey"}]}],"trigger":"submit-message"}"#,
        );
        assert_eq!((r.model.as_str(), r.prompt.as_str(), r.stream), ("route-model", "Hey\n", true));
        assert!(matches!(decode(b"[]", Wire::Anthropic, None, None), Err(RequestError::NotAnObject)));
        assert!(matches!(decode(b"{}", Wire::Gemini, None, None), Err(RequestError::Messages)));
    }
}
