//! Decoding an OpenAI-compatible completion **request**, as the replay
//! endpoint of `latency-lab serve` reads one (the lab's own live requests
//! are written by [`crate::stream::endpoint`]).
//!
//! - The body must be a JSON object.
//! - Chat (`/v1/chat/completions`): `messages` must be an array; the prompt
//!   is every message's `content` (a string, or the `text` of each part of
//!   an array), each followed by a newline.
//! - Completions (`/v1/completions`): `prompt` is a string, or an array of
//!   strings joined by newlines.
//! - `model` (default empty), `stream` (default false),
//!   `stream_options.include_usage` (default false), and the token limit:
//!   `max_completion_tokens` if present, else `max_tokens` (saturated to
//!   `u32`); the engines' `min_tokens` and `ignore_eos`, which a workload's
//!   requests send to get their output length.

use serde_json::Value;

use crate::trace::ApiFlavor;

/// A completion request, as far as the replay endpoint cares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompletionRequest {
    /// The `model` field.
    pub model: String,
    /// The prompt text.
    pub prompt: String,
    /// The token limit, if any.
    pub max_tokens: Option<u32>,
    /// `min_tokens` (vLLM, SGLang), if any.
    pub min_tokens: Option<u32>,
    /// `ignore_eos: true` (vLLM, SGLang, llama.cpp).
    pub ignore_eos: bool,
    /// `"stream": true`.
    pub stream: bool,
    /// `stream_options.include_usage`.
    pub include_usage: bool,
}

/// Why a request body cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// Not JSON, or not an object.
    #[error("the body must be a JSON object")]
    NotAnObject,
    /// A chat request without a `messages` array.
    #[error("\"messages\" must be an array of {{role, content}}")]
    Messages,
    /// A completions request without a usable `prompt`.
    #[error("\"prompt\" must be a string")]
    Prompt,
}

impl CompletionRequest {
    /// Reads a request body sent to the `api` route.
    pub fn decode(body: &[u8], api: ApiFlavor) -> Result<Self, RequestError> {
        let req: Value = match serde_json::from_slice(body) {
            Ok(v @ Value::Object(_)) => v,
            _ => return Err(RequestError::NotAnObject),
        };
        let prompt = match api {
            ApiFlavor::Chat => chat_prompt(&req)?,
            ApiFlavor::Completions => match req.get("prompt") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n"),
                _ => return Err(RequestError::Prompt),
            },
        };
        let max_tokens = ["max_completion_tokens", "max_tokens"]
            .iter()
            .find_map(|k| req.get(*k).and_then(Value::as_u64))
            .map(|m| u32::try_from(m).unwrap_or(u32::MAX));
        Ok(Self {
            model: req.get("model").and_then(Value::as_str).unwrap_or("").to_string(),
            prompt,
            max_tokens,
            min_tokens: req
                .get("min_tokens")
                .and_then(Value::as_u64)
                .map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
            ignore_eos: req.get("ignore_eos").and_then(Value::as_bool).unwrap_or(false),
            stream: req.get("stream").and_then(Value::as_bool).unwrap_or(false),
            include_usage: req
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        })
    }
}

fn chat_prompt(req: &Value) -> Result<String, RequestError> {
    let messages = req.get("messages").and_then(Value::as_array).ok_or(RequestError::Messages)?;
    let mut out = String::new();
    for m in messages {
        match m.get("content") {
            Some(Value::String(s)) => out.push_str(s),
            Some(Value::Array(parts)) => {
                for p in parts {
                    out.push_str(p.get("text").and_then(Value::as_str).unwrap_or(""));
                }
            }
            _ => {}
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_requests_join_every_message() {
        let body = br#"{"model":"m","stream":true,"stream_options":{"include_usage":true},
            "max_tokens":50,"max_completion_tokens":20,
            "messages":[{"role":"system","content":"Be brief."},
                        {"role":"user","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}]},
                        {"role":"assistant"}]}"#;
        let r = CompletionRequest::decode(body, ApiFlavor::Chat).unwrap();
        assert_eq!(r.prompt, "Be brief.\nHi there\n\n");
        assert_eq!((r.model.as_str(), r.max_tokens, r.stream, r.include_usage), ("m", Some(20), true, true));
    }

    #[test]
    fn completion_requests_take_a_string_or_strings() {
        let r = CompletionRequest::decode(
            br#"{"prompt":["a","b"],"max_tokens":99999999999}"#,
            ApiFlavor::Completions,
        )
        .unwrap();
        assert_eq!((r.prompt.as_str(), r.max_tokens, r.stream), ("a\nb", Some(u32::MAX), false));
        let r = CompletionRequest::decode(br#"{"prompt":"x"}"#, ApiFlavor::Completions).unwrap();
        assert_eq!((r.prompt.as_str(), r.max_tokens, r.model.as_str()), ("x", None, ""));
    }

    #[test]
    fn bad_bodies_say_what_is_wrong() {
        let cases: [(&[u8], ApiFlavor, RequestError); 5] = [
            (b"[1]", ApiFlavor::Chat, RequestError::NotAnObject),
            (b"{\"model\":", ApiFlavor::Chat, RequestError::NotAnObject),
            (b"{}", ApiFlavor::Chat, RequestError::Messages),
            (br#"{"messages":"hi"}"#, ApiFlavor::Chat, RequestError::Messages),
            (br#"{"prompt":3}"#, ApiFlavor::Completions, RequestError::Prompt),
        ];
        for (body, api, want) in cases {
            assert_eq!(CompletionRequest::decode(body, api), Err(want));
        }
    }

    #[test]
    fn the_engines_length_fields_are_read() {
        let body = br#"{"messages":[{"content":"x"}],"max_tokens":30,"min_tokens":30,"ignore_eos":true}"#;
        let r = CompletionRequest::decode(body, ApiFlavor::Chat).unwrap();
        assert_eq!((r.max_tokens, r.min_tokens, r.ignore_eos), (Some(30), Some(30), true));
        let r = CompletionRequest::decode(br#"{"messages":[]}"#, ApiFlavor::Chat).unwrap();
        assert_eq!((r.min_tokens, r.ignore_eos), (None, false));
    }
}
