//! Core's stream decoder against the shared decoding table
//! (`tests/fixtures/sse/field_decoding.json`), which the field snippet's
//! decoder (`packages/field/field.js`) is held to as well: one table, two
//! implementations, so they cannot drift.

use lab_core::stream::openai::{self, StreamItem};
use lab_core::stream::record::{Recorder, StreamEnd};
use lab_core::stream::sse::SseParser;
use lab_core::trace::client::Browser;
use lab_core::trace::{ChunkKind, FailureKind};
use serde_json::Value;

fn table() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/sse/field_decoding.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the shared table")).expect("JSON")
}

fn bytes(read: &Value) -> Vec<u8> {
    match read {
        Value::String(s) => s.as_bytes().to_vec(),
        other => {
            let hex = other["hex"].as_str().expect("a read is text or {hex}");
            (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
        }
    }
}

fn kind(k: ChunkKind) -> u64 {
    match k {
        ChunkKind::Content => 0,
        ChunkKind::Reasoning => 1,
        ChunkKind::ToolCall => 2,
    }
}

fn end(f: Option<FailureKind>) -> Value {
    match f {
        None => Value::Null,
        Some(FailureKind::Truncated) => "truncated".into(),
        Some(FailureKind::Server) => "server_error".into(),
        Some(FailureKind::Malformed) => "malformed".into(),
        Some(FailureKind::Empty) => "empty".into(),
        Some(other) => format!("{other:?}").into(),
    }
}

fn opt(x: Option<u64>) -> Value {
    x.map_or(Value::Null, Value::from)
}

#[test]
fn core_decodes_every_stream_of_the_shared_table() {
    let t = table();
    let cases = t["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20, "the table holds {} cases", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        let reads: Vec<Vec<u8>> = case["reads"].as_array().expect("reads").iter().map(bytes).collect();
        let mut rec = Recorder::new(0.0);
        rec.on_headers(0.0, 200);
        let (mut parser, mut finish) = (SseParser::new(), Vec::<Value>::new());
        for (i, read) in reads.iter().enumerate() {
            rec.on_bytes(i as f64, read);
            for ev in parser.feed(read) {
                if let Ok(StreamItem::Chunk(c)) = openai::decode(&ev.data)
                    && let Some(f) = c.finish_reason
                    && !finish.contains(&Value::from(f.clone()))
                {
                    finish.push(f.into());
                }
            }
        }
        let req = rec.finish(reads.len() as f64, StreamEnd::Closed);
        let chunks: Vec<Value> = req
            .chunks
            .iter()
            .map(|c| serde_json::json!([c.arrived_ms as u64, kind(c.kind), c.text.chars().count()]))
            .collect();
        assert_eq!(Value::from(chunks), case["chunks"], "{name}: chunks");
        let usage = req.usage.map_or(Value::Null, |u| {
            serde_json::json!([opt(u.prompt_tokens), opt(u.completion_tokens), opt(u.cached_tokens)])
        });
        assert_eq!(usage, case["usage"], "{name}: usage");
        assert_eq!(Value::from(finish), case["finish"], "{name}: finish reasons");
        assert_eq!(end(req.failure.map(|f| f.kind)), case["end"], "{name}: end");
    }
}

#[test]
fn core_reads_every_browser_of_the_shared_table() {
    let t = table();
    for row in t["browsers"].as_array().expect("browsers") {
        let ua = row["ua"].as_str().expect("ua");
        let got = Browser::from_user_agent(ua)
            .map_or(Value::Null, |b| serde_json::json!([b.name, b.engine, b.version]));
        assert_eq!(got, row["is"], "{ua}");
    }
}
