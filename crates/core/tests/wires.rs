//! Core's decoders against the wires' table
//! (`tests/fixtures/wires/wires.json`, written by `make_wires.py` from each
//! provider's documented events): every case read by
//! `lab_core::stream::record::Recorder` on its wire gives the chunks, calls,
//! usage, finish reasons and ending the table says; and each wire is
//! detected from its content type, headers and first read.

use lab_core::stream::record::{Recorder, StreamEnd};
use lab_core::stream::wire::{self, WIRES, Wire};
use lab_core::trace::{ChunkKind, FailureKind};
use serde_json::{Value, json};

fn table() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/wires/wires.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the wires' table")).expect("JSON")
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

fn end(f: Option<FailureKind>) -> Value {
    match f {
        None => Value::Null,
        Some(FailureKind::Truncated) => "truncated".into(),
        Some(FailureKind::Server) => "server_error".into(),
        Some(FailureKind::Malformed) => "malformed".into(),
        Some(FailureKind::Empty) => "empty".into(),
        Some(FailureKind::Aborted) => "aborted".into(),
        Some(other) => format!("{other:?}").into(),
    }
}

#[test]
fn every_wire_but_chat_has_a_table_and_every_table_a_wire() {
    let t = table();
    let wires = t["wires"].as_object().expect("wires");
    for w in WIRES.into_iter().filter(|w| *w != Wire::Chat) {
        assert!(wires.contains_key(w.id()), "no table for {}", w.name());
    }
    for id in wires.keys() {
        assert!(Wire::from_id(id).is_some(), "a table for no wire: {id}");
    }
}

#[test]
fn core_reads_every_case_of_every_wire() {
    let t = table();
    let mut cases = 0;
    for (id, w) in t["wires"].as_object().expect("wires") {
        let wire = Wire::from_id(id).expect("a wire");
        for case in w["cases"].as_array().expect("cases") {
            cases += 1;
            let name = format!("{id}: {}", case["name"].as_str().unwrap_or("?"));
            let reads: Vec<Vec<u8>> = case["reads"].as_array().expect("reads").iter().map(bytes).collect();
            let mut rec = Recorder::with_wire(0.0, wire);
            rec.on_headers(0.0, 200);
            let mut finish: Vec<Value> = Vec::new();
            for (i, read) in reads.iter().enumerate() {
                rec.on_bytes(i as f64, read);
                if let Some(f) = rec.finish_reason()
                    && !finish.contains(&Value::from(f))
                {
                    finish.push(f.into());
                }
            }
            let req = rec.finish(reads.len() as f64, StreamEnd::Closed);
            let kind = |k: ChunkKind| match k {
                ChunkKind::Content => 0,
                ChunkKind::Reasoning => 1,
                ChunkKind::ToolCall => 2,
            };
            let chunks: Vec<Value> = req
                .chunks
                .iter()
                .map(|c| json!([c.arrived_ms as u64, kind(c.kind), c.text.chars().count()]))
                .collect();
            assert_eq!(Value::from(chunks), case["chunks"], "{name}: chunks");
            let tools: Vec<Value> = req
                .chunks
                .iter()
                .filter_map(|c| c.tool.as_ref())
                .filter(|t| t.name.is_some())
                .map(|t| json!([t.index, t.name]))
                .collect();
            assert_eq!(Value::from(tools), case["tools"], "{name}: calls");
            let usage = req.usage.map_or(Value::Null, |u| {
                json!([u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.reasoning_tokens])
            });
            assert_eq!(usage, case["usage"], "{name}: usage");
            assert_eq!(Value::from(finish), case["finish"], "{name}: finish reasons");
            let failure = req.failure.clone();
            assert_eq!(end(failure.as_ref().map(|f| f.kind)), case["end"], "{name}: end ({failure:?})");
            for says in case["says"].as_array().into_iter().flatten() {
                let says = says.as_str().expect("text");
                let message = failure.as_ref().map_or("", |f| f.message.as_str());
                assert!(message.contains(says), "{name}: the failure says {message:?}, not {says:?}");
            }
        }
    }
    assert!(cases >= 40, "{cases} cases");
}

#[test]
fn each_wire_is_detected_from_its_response() {
    let t = table();
    for (id, w) in t["wires"].as_object().expect("wires") {
        let headers = w["headers"].clone();
        let header = |name: &str| headers.get(name).and_then(Value::as_str).map(str::to_owned);
        let content_type = w["content_type"].as_str().expect("content type");
        for case in w["cases"].as_array().expect("cases") {
            let Some(first) = case["reads"].as_array().and_then(|r| r.first()) else { continue };
            let got = wire::detect(content_type, header, &bytes(first));
            assert_eq!(got.map(Wire::id), Some(id.as_str()), "{id}: {}", case["name"]);
        }
    }
}
