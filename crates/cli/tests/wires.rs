//! The replay endpoint in every wire (`lab_core::stream::wire`) over real
//! sockets: each route answers its wire's stream (content type, headers,
//! events the lab's own decoder reads as complete), plays the profile with
//! the timing the Chat route keeps (TTFT against the server's ground truth
//! as `check_ttft_against_server` bounds it), reports usage with the prefix
//! cache's tokens, answers whole when not streaming, and answers errors in
//! the wire's own shape.

use lab_core::stream::wire::Wire;
use serde_json::{Value, json};

mod common;

use common::*;

const PROFILE: &str = "profile:ttft=120,tpot=8,tokens=12,jitter=constant,reasoning=3,prefill=0.05";

/// The route and body of a streamed request of `wire` with `prompt`.
fn request_of(wire: Wire, prompt: &str) -> (String, String) {
    let messages = json!([{ "role": "user", "content": prompt }]);
    let (path, body) = match wire {
        Wire::Chat => (
            "/v1/chat/completions".into(),
            json!({"model": PROFILE, "stream": true, "messages": messages, "stream_options": {"include_usage": true}}),
        ),
        Wire::Responses => {
            ("/v1/responses".into(), json!({"model": PROFILE, "stream": true, "input": prompt}))
        }
        Wire::Anthropic => (
            "/v1/messages".into(),
            json!({"model": PROFILE, "stream": true, "max_tokens": 64, "messages": messages}),
        ),
        Wire::Gemini => (
            format!("/v1beta/models/{}:streamGenerateContent?alt=sse", PROFILE.replace(':', "%3A")),
            json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}]}),
        ),
        Wire::Ollama => ("/api/chat".into(), json!({"model": PROFILE, "messages": messages})),
        Wire::UiStream | Wire::DataStream | Wire::Text => {
            let kind = match wire {
                Wire::UiStream => "ui-stream",
                Wire::DataStream => "data-stream",
                _ => "text-stream",
            };
            (
                format!(
                    "/v1/lab/{kind}?model={}",
                    PROFILE.replace(':', "%3A").replace(',', "%2C").replace('=', "%3D")
                ),
                json!({"id": "c1", "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": prompt}]}], "trigger": "submit-message"}),
            )
        }
    };
    (path, body.to_string())
}

#[test]
fn every_wire_streams_the_profile_on_time_and_complete() {
    let srv = start(&[]);
    let prompt = "How fast is fast enough? ".repeat(40);
    // Chat's answer (Chat comes first): every wire's is the same text.
    let mut chat_text = None;
    for wire in lab_core::stream::wire::WIRES {
        let (path, body) = request_of(wire, &prompt);
        let mut pairs = Vec::new();
        let mut cached = Vec::new();
        for _ in 0..5 {
            let (head, t) =
                stream_wire(&srv.addr, &path, wire, &body, &[("content-type", "application/json")]);
            let name = wire.name();
            assert!(head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"), "{name}: {head}");
            assert_eq!(t.failure, None, "{name}: {:?}", t.failure);
            let answer: Vec<_> =
                t.chunks.iter().filter(|c| c.kind == lab_core::trace::ChunkKind::Content).collect();
            let text: String = answer.iter().map(|c| c.text.as_str()).collect();
            assert_eq!(&text, chat_text.get_or_insert_with(|| text.clone()), "{name}: the whole answer");
            if wire == Wire::Text {
                // Plain text has no token boundaries: a busy client may read
                // two tokens' writes at once (one run beside `yes` read 11).
                assert!((1..=12).contains(&answer.len()), "{name}: {} reads for 12 tokens", answer.len());
            } else {
                assert_eq!(answer.len(), 12, "{name}: the profile's 12 answer tokens");
            }
            let truth = truth(&srv.addr, &head);
            let server_first = truth["chunks"][0]["sent_ms"].as_f64().expect("sent");
            pairs.push((t.chunks[0].arrived_ms, server_first));
            cached.push((truth["cached_tokens"].as_u64(), t.usage.and_then(|u| u.cached_tokens)));
            let content_type = header(&head, "content-type").unwrap_or("");
            let expected = match wire {
                Wire::Ollama => "application/x-ndjson",
                Wire::DataStream | Wire::Text => "text/plain",
                _ => "text/event-stream",
            };
            assert!(content_type.starts_with(expected), "{name}: {content_type}");
            if wire == Wire::UiStream {
                assert_eq!(header(&head, "x-vercel-ai-ui-message-stream"), Some("v1"));
            }
        }
        check_ttft_against_server(&pairs).unwrap_or_else(|e| panic!("{}: {e}", wire.name()));
        // The same prompt again hits the prefix cache; the wires that report
        // cached tokens report the server's count exactly.
        let reports = matches!(wire, Wire::Chat | Wire::Responses | Wire::Anthropic | Wire::Gemini);
        for (server, client) in &cached[1..] {
            assert!(server.is_some_and(|s| s > 0), "{}: the prompt was cached", wire.name());
            if reports {
                assert_eq!(client, server, "{}: cached tokens", wire.name());
            }
        }
    }
}

#[test]
fn answers_not_streamed_and_errors_come_in_each_wires_shape() {
    let srv = start(&[]);
    let whole = |path: &str, body: Value| {
        let (head, s, rest) = request(&srv.addr, "POST", path, &[], &body.to_string());
        let text = String::from_utf8(read_all(s, rest)).unwrap();
        (head, serde_json::from_str::<Value>(&text).unwrap_or(Value::Null))
    };
    let model = "profile:ttft=20,tpot=2,tokens=5,jitter=constant";
    let (_, r) = whole("/v1/responses", json!({"model": model, "input": "Hi"}));
    assert_eq!(r["status"], "completed");
    assert!(r["output"][0]["content"][0]["text"].as_str().is_some_and(|t| !t.is_empty()), "{r}");
    let (_, m) = whole(
        "/v1/messages",
        json!({"model": model, "max_tokens": 3, "messages": [{"role": "user", "content": "Hi"}]}),
    );
    assert_eq!((m["type"].as_str(), m["stop_reason"].as_str()), (Some("message"), Some("max_tokens")), "{m}");
    let path = format!("/v1beta/models/{}:generateContent", model.replace(':', "%3A"));
    let (_, g) = whole(&path, json!({"contents": [{"parts": [{"text": "Hi"}]}]}));
    assert_eq!(g["candidates"][0]["finishReason"], "STOP", "{g}");
    // Gemini's stable version, which google-genai (Python) calls by default.
    let (head, g) =
        whole(&path.replacen("/v1beta/", "/v1/", 1), json!({"contents": [{"parts": [{"text": "Hi"}]}]}));
    assert!(head.contains(" 200 ") && g["candidates"][0]["finishReason"] == "STOP", "{head} {g}");
    let (_, o) = whole("/api/generate", json!({"model": model, "prompt": "Hi", "stream": false}));
    assert_eq!((o["done"].as_bool(), o["eval_count"].as_u64()), (Some(true), Some(5)), "{o}");
    assert!(o["response"].as_str().is_some_and(|t| !t.is_empty()), "generate answers in `response`: {o}");
    // Errors as each SDK reads them.
    let (head, e) = whole("/v1/messages", json!({"model": "no-such-model", "max_tokens": 3, "messages": []}));
    assert!(head.contains(" 404 "), "{head}");
    assert_eq!(
        (e["type"].as_str(), e["error"]["type"].as_str()),
        (Some("error"), Some("model_not_found")),
        "{e}"
    );
    let (head, e) = whole("/v1beta/models/x:countTokens", json!({}));
    assert!(
        head.contains(" 404 ")
            && e["error"]["message"].as_str().is_some_and(|m| m.contains("streamGenerateContent")),
        "{e}"
    );
    let (_, e) = whole("/api/chat", json!({"model": model}));
    assert!(e["error"].as_str().is_some_and(|m| m.contains("messages")), "Ollama's error is a string: {e}");
    let (head, e) = whole("/v1/lab/nothing", json!({}));
    assert!(
        head.contains(" 404 ") && e["error"]["message"].as_str().is_some_and(|m| m.contains("ui-stream")),
        "{e}"
    );
}

/// Issue 46: pages that answer by EventSource (a GET, the question in the
/// URL) and by WebSocket (`GET /v1/lab/ws`, upgraded) are answered by the
/// Chat route; a GET that is neither says what is served.
#[test]
fn an_event_source_is_answered_by_get_and_other_gets_say_what_is_served() {
    let srv = start(&[]);
    let model = "profile%3Attft%3D20%2Ctpot%3D2%2Ctokens%3D5%2Cjitter%3Dconstant";
    let (head, s, rest) =
        request(&srv.addr, "GET", &format!("/v1/lab/event-stream?model={model}&q=Hi"), &[], "");
    assert!(head.contains(" 200 ") && head.to_ascii_lowercase().contains("text/event-stream"), "{head}");
    let body = read_all(s, rest);
    let mut rec = lab_core::stream::record::Recorder::with_wire(0.0, Wire::Chat);
    rec.on_headers(0.0, 200);
    rec.on_bytes(1.0, &body);
    let trace = rec.finish(2.0, lab_core::stream::record::StreamEnd::Closed);
    assert!(trace.failure.is_none(), "{:?}", trace.failure);
    assert_eq!(trace.chunks.len(), 5, "the profile's 5 tokens");
    let said = |path: &str| {
        let (head, s, rest) = request(&srv.addr, "GET", path, &[], "");
        let text = String::from_utf8(read_all(s, rest)).unwrap();
        (head, serde_json::from_str::<Value>(&text).unwrap_or(Value::Null))
    };
    let (head, e) = said("/v1/lab/ws");
    assert!(
        head.contains(" 400 ") && e["error"]["message"].as_str().is_some_and(|m| m.contains("WebSocket")),
        "a GET that is no upgrade: {head} {e}"
    );
    let (head, e) = said("/v1/lab/ui-stream");
    assert!(
        head.contains(" 404 ") && e["error"]["message"].as_str().is_some_and(|m| m.contains("event-stream")),
        "{head} {e}"
    );
}
