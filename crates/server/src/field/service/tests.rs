//! The collector's checks on the in-memory store: every refusal stores
//! nothing; what is stored holds no text.

use super::*;
use crate::field::memory::MemoryField;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, ArrayValue, KeyValue, any_value::Value};
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;

const PAGE: &str = include_str!("../../../../../tests/fixtures/field/collector_file_exporter.jsonl");
const KEY: &str = "llk_test";
const ORIGIN: &str = "https://shop.example";

async fn collector() -> Collector<MemoryField> {
    let c = Collector::new(MemoryField::default());
    let site = FieldSite { name: "shop".into(), origins: vec![ORIGIN.into()] };
    assert!(c.store.add_site(&site, &key_hash(KEY), 0).await.unwrap());
    c
}

fn post<'a>(body: &'a [u8]) -> Post<'a> {
    Post {
        key: Some(KEY),
        origin: Some(ORIGIN),
        content_type: Some("application/json"),
        user_agent: None,
        body,
        client: "1.2.3.4",
        now_ms: 1,
    }
}

fn page_line() -> &'static str {
    PAGE.lines().next().unwrap()
}

fn kv(key: &str, value: Value) -> KeyValue {
    KeyValue { key: key.into(), value: Some(AnyValue { value: Some(value) }), ..KeyValue::default() }
}

fn proto(attrs: Vec<KeyValue>) -> Vec<u8> {
    let span = Span {
        span_id: vec![1, 2, 3, 4, 5, 6, 7, 8],
        name: "chat tiny".into(),
        start_time_unix_nano: 1_796_508_000_000_000_000,
        end_time_unix_nano: 1_796_508_000_900_000_000,
        attributes: attrs,
        ..Span::default()
    };
    let req = ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            scope_spans: vec![ScopeSpans { spans: vec![span], ..ScopeSpans::default() }],
            ..ResourceSpans::default()
        }],
    };
    req.encode_to_vec()
}

#[tokio::test]
async fn a_page_batch_is_kept_once_with_its_site_and_no_text() {
    let c = collector().await;
    let body = page_line().as_bytes();
    assert!(page_line().contains("12345"), "the fixture carries text to drop");
    let got = c.ingest(post(body)).await.unwrap();
    assert_eq!((got.kept, got.new, got.rejected), (8, 8, 0));
    let again = c.ingest(post(body)).await.unwrap();
    assert_eq!((again.kept, again.new), (8, 0), "a resent batch is kept once");
    assert_eq!(c.store.count(None, f64::MIN, f64::MAX).await.unwrap(), 8);
    let kept = c.store.requests(None, 0.0, f64::MAX, 100, None).await.unwrap();
    assert!(kept.iter().all(|s| s.site.as_deref() == Some("shop")));
    let stored = serde_json::to_string(&kept).unwrap();
    assert!(!stored.contains("12345") && !stored.contains("charged"), "no text is stored");
    // The back end's line: 4 requests and a failure kept, 2 spans not.
    let backend = PAGE.lines().nth(1).unwrap();
    let got = c.ingest(Post { origin: None, ..post(backend.as_bytes()) }).await.unwrap();
    assert_eq!((got.kept, got.rejected), (5, 2));
    assert!(got.why_rejected.unwrap().contains("1 spans that are not GenAI, 1 GenAI operations"));
}

#[tokio::test]
async fn protobuf_bodies_read_as_json_ones_do() {
    let c = collector().await;
    let body = proto(vec![
        kv("gen_ai.operation.name", Value::StringValue("chat".into())),
        kv("gen_ai.input.messages", Value::StringValue("secret words".into())),
        kv(
            "latency_lab.chunk_ms",
            Value::ArrayValue(ArrayValue {
                values: [200.0, 300.0]
                    .iter()
                    .map(|&x| AnyValue { value: Some(Value::DoubleValue(x)) })
                    .collect(),
            }),
        ),
    ]);
    let got = c.ingest(Post { content_type: Some("application/x-protobuf"), ..post(&body) }).await.unwrap();
    assert_eq!(got.new, 1);
    let kept = c.store.requests(None, 0.0, f64::MAX, 10, None).await.unwrap();
    assert_eq!(kept[0].request.chunks.iter().map(|ch| ch.arrived_ms).collect::<Vec<_>>(), [200.0, 300.0]);
    assert_eq!(kept[0].request.id.as_deref(), Some("0102030405060708"));
    assert!(!serde_json::to_string(&kept).unwrap().contains("secret"));
}

#[tokio::test]
async fn every_refusal_says_why_and_stores_nothing() {
    let c = collector().await;
    let body = page_line().as_bytes();
    let offsets = |n: usize| {
        proto(vec![
            kv("gen_ai.operation.name", Value::StringValue("chat".into())),
            kv(
                "latency_lab.chunk_ms",
                Value::ArrayValue(ArrayValue {
                    values: vec![AnyValue { value: Some(Value::DoubleValue(1.0)) }; n],
                }),
            ),
        ])
    };
    // 10⁶ chunk offsets are over the body limit in any encoding; one
    // more than the array limit fits in the body and is refused by it.
    let (million, over) = (offsets(1_000_000), offsets(lab_core::field::otlp::MAX_ARRAY + 1));
    let too_big = vec![b' '; MAX_BODY + 1];
    let cases: Vec<(Post<'_>, u16, &str)> = vec![
        (Post { key: None, ..post(body) }, 401, "no ingest key"),
        (Post { key: Some("llk_wrong"), ..post(body) }, 401, "unknown ingest key"),
        (
            Post { origin: Some("https://evil.example"), ..post(body) },
            403,
            "origin https://evil.example is not one of site shop",
        ),
        (post(b"{\"resourceSpans\": [ {"), 400, "not JSON"),
        (
            Post { content_type: Some("application/x-protobuf"), ..post(b"\xff\xff\xff") },
            400,
            "not an OTLP protobuf",
        ),
        (post(&too_big), 413, "over 4194304 bytes"),
        (Post { content_type: Some("application/x-protobuf"), ..post(&million) }, 413, "over 4194304 bytes"),
        (
            Post { content_type: Some("application/x-protobuf"), ..post(&over) },
            400,
            "holds 100001 values; at most 100000",
        ),
        (Post { content_type: Some("image/png"), ..post(body) }, 415, "Content-Type"),
    ];
    for (p, status, says) in cases {
        let e = c.ingest(p).await.unwrap_err();
        assert_eq!(e.status, status, "{}", e.message);
        assert!(e.message.contains(says), "{} (wanted {says})", e.message);
        assert_eq!(
            c.store.count(None, f64::MIN, f64::MAX).await.unwrap(),
            0,
            "nothing stored after: {}",
            e.message
        );
    }
}

#[tokio::test]
async fn a_flood_from_one_address_is_slowed() {
    let c = collector().await;
    let mut refused = None;
    for i in 0..400 {
        if let Err(e) = c.ingest(Post { key: None, now_ms: 1, ..post(b"{}") }).await
            && e.status == 429
        {
            refused = Some((i, e));
            break;
        }
    }
    let (i, e) = refused.expect("429 within 400 batches at once");
    assert_eq!(i, INGEST.burst as usize, "the burst passes, the next is refused");
    assert!(e.retry_after_s.is_some());
}

#[tokio::test]
async fn a_span_without_its_browser_takes_the_beacons_and_keeps_its_wire_and_rate() {
    let c = collector().await;
    let ua = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
    let arr = |xs: &[f64]| {
        Value::ArrayValue(ArrayValue {
            values: xs.iter().map(|x| AnyValue { value: Some(Value::DoubleValue(*x)) }).collect(),
        })
    };
    // A stream the page could not read: no chunks, two paints.
    let body = proto(vec![
        kv("gen_ai.operation.name", Value::StringValue("chat".into())),
        kv("latency_lab.wire", Value::StringValue("unknown".into())),
        kv("latency_lab.sample_rate", Value::DoubleValue(0.25)),
        kv("latency_lab.chunk_ms", arr(&[])),
        kv("latency_lab.paint_ms", arr(&[240.0, 400.0])),
        kv("latency_lab.paint_chars", arr(&[5.0, 12.0])),
    ]);
    let got =
        c.ingest(Post { content_type: Some("application/x-protobuf"), user_agent: Some(ua), ..post(&body) });
    assert_eq!(got.await.unwrap().new, 1);
    let kept = &c.store.requests(None, 0.0, f64::MAX, 10, None).await.unwrap()[0];
    let browser = kept.browser.clone().unwrap();
    assert_eq!((browser.0.as_str(), browser.1.as_str(), browser.2.as_str()), ("Firefox", "Gecko", "140.0"));
    assert_eq!((kept.wire.as_deref(), kept.sample_rate), (Some("unknown"), Some(0.25)));
    let times: Vec<(f64, Option<f64>, Option<u32>)> =
        kept.request.chunks.iter().map(|ch| (ch.arrived_ms, ch.painted_ms, ch.chars)).collect();
    assert_eq!(
        times,
        [(240.0, Some(240.0), Some(5)), (400.0, Some(400.0), Some(7))],
        "the paints are its chunks"
    );
    assert!(!kept.chunks_recorded && kept.painted && kept.request.failure.is_none());
    // A span that names its browser keeps it.
    let named = proto(vec![
        kv("gen_ai.operation.name", Value::StringValue("chat".into())),
        kv("latency_lab.chunk_ms", arr(&[100.0])),
        kv("latency_lab.browser", Value::StringValue("Chrome".into())),
        kv("latency_lab.engine", Value::StringValue("Blink".into())),
    ]);
    let mut other = named.clone();
    // Another span id: a second request.
    let at = other.windows(8).position(|w| w == [1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    other[at] = 9;
    c.ingest(Post { content_type: Some("application/x-protobuf"), user_agent: Some(ua), ..post(&other) })
        .await
        .unwrap();
    let all = c.store.requests(None, 0.0, f64::MAX, 10, None).await.unwrap();
    assert!(all.iter().any(|s| s.browser.as_ref().is_some_and(|b| b.0 == "Chrome")), "its own word wins");
}
