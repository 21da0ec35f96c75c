//! Browser glue tests, run in headless Chromium by wasm-bindgen-test
//! (`./lab test` runs them; natively this file is empty).
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Function, Uint8Array};
use lab_core::stream::record::{Recorder, StreamEnd};
use latency_lab_app::browser::{clock, files, stream};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn clock_is_monotonic_and_fine_enough() {
    let a = clock::now_ms();
    let b = clock::now_ms();
    assert!(a > 0.0 && b >= a, "{a} then {b}");
    let r = clock::timer_resolution_ms().expect("the clock moves");
    // Chromium: 5 µs isolated, 100 µs otherwise; never worse than 1 ms.
    assert!(r > 0.0 && r <= 1.0, "resolution {r} ms");
    let info = clock::client_info();
    assert!(info.user_agent.unwrap_or_default().contains("Chrome"));
}

/// A ReadableStream that yields the given byte pieces, then closes or errors.
fn stream_of(pieces: &[&[u8]], fail: Option<&str>) -> web_sys::ReadableStream {
    let arr = Array::new();
    for p in pieces {
        arr.push(&Uint8Array::from(*p));
    }
    let make = Function::new_with_args(
        "parts, fail",
        "let i = 0; return new ReadableStream({ pull(c) { \
           if (i < parts.length) { c.enqueue(parts[i++]); return; } \
           if (fail) { c.error(new TypeError(fail)); } else { c.close(); } } });",
    );
    let fail = fail.map_or(JsValue::NULL, JsValue::from_str);
    make.call2(&JsValue::NULL, &arr, &fail).unwrap().unchecked_into()
}

#[wasm_bindgen_test]
async fn stream_pieces_feed_the_recorder_in_order() {
    let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"你好\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" 🙂\"}}]}\r\n\r\ndata: [DONE]\n\n";
    let bytes = sse.as_bytes();
    // Split inside a multi-byte character, inside a line and between CR and LF.
    let cuts = [3, 41, 44, 90, bytes.len() - 8, bytes.len()];
    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut last = 0;
    for c in cuts {
        pieces.push(&bytes[last..c]);
        last = c;
    }
    let mut rec = Recorder::new(clock::now_ms());
    rec.on_headers(clock::now_ms(), 200);
    let mut reads = 0;
    stream::read_stream(stream_of(&pieces, None), |at, b| {
        reads += 1;
        rec.on_bytes(at, b);
    })
    .await
    .expect("clean stream");
    assert_eq!(reads, pieces.len());
    let t = rec.finish(clock::now_ms(), StreamEnd::Closed);
    assert_eq!(t.failure, None);
    assert_eq!(t.text(), "你好 🙂");
    assert!(t.chunks[0].arrived_ms <= t.chunks[1].arrived_ms);
}

#[wasm_bindgen_test]
async fn stream_errors_are_reported_with_the_browser_message() {
    let piece: &[u8] = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n";
    let mut got = Vec::new();
    let err = stream::read_stream(stream_of(&[piece], Some("network error: reset")), |_, b| {
        got.extend_from_slice(b)
    })
    .await
    .unwrap_err();
    assert!(
        matches!(&err, latency_lab_app::browser::fetch::FetchError::Network(m) if m.contains("network error: reset")),
        "{err}"
    );
    assert_eq!(got, piece, "bytes before the error are delivered");
}

#[wasm_bindgen_test]
async fn files_round_trip_and_size_limit() {
    let parts = Array::of1(&JsValue::from_str("{\"schema_version\":1,\"requests\":[]}"));
    let file = web_sys::File::new_with_str_sequence(&parts, "t.json").unwrap();
    let text = files::read_text(&file, 1024).await.unwrap();
    assert!(text.starts_with("{\"schema_version\""));
    let err = files::read_text(&file, 4).await.unwrap_err();
    assert!(err.to_string().contains("more than the 4 bytes"), "{err}");

    let url = files::blob_url("héllo", "text/plain").unwrap();
    assert!(url.starts_with("blob:"));
    let window = web_sys::window().unwrap();
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str(&url)).await.unwrap().unchecked_into();
    let body = JsFuture::from(resp.text().unwrap()).await.unwrap();
    assert_eq!(body.as_string().unwrap(), "héllo");
    web_sys::Url::revoke_object_url(&url).unwrap();
}

#[wasm_bindgen_test]
async fn indexeddb_writes_commit_and_read_back() {
    use latency_lab_app::browser::idb::{self, SESSIONS, STUDIES};
    let db = idb::open().await.expect("IndexedDB opens in Chromium");
    let value = JsValue::from_str("{\"a\":1}");
    db.write(vec![
        (STUDIES, "k1".into(), Some(value)),
        (SESSIONS, "k2".into(), Some(JsValue::from_str("x"))),
    ])
    .await
    .expect("committed");
    assert_eq!(
        db.get(STUDIES, "k1").await.unwrap().and_then(|v| v.as_string()).as_deref(),
        Some("{\"a\":1}")
    );
    assert!(db.all(SESSIONS).await.unwrap().iter().any(|v| v.as_string().as_deref() == Some("x")));
    db.write(vec![(STUDIES, "k1".into(), None)]).await.unwrap();
    assert!(db.get(STUDIES, "k1").await.unwrap().is_none(), "deleted");
    // A write to a store that does not exist fails with a reason, not a panic.
    let err = db.write(vec![("no-such-store", "k".into(), Some(JsValue::TRUE))]).await.unwrap_err();
    assert!(err.to_string().contains("storage"), "{err}");
}

/// Each hook family fails with its own error type, and the sentence says
/// what happened: an HTTP error keeps its status and body, a refused
/// connection is a network failure, a full Web Storage is a quota error
/// (and a library entry that is not there is missing: `tests/web.rs`).
#[wasm_bindgen_test]
async fn failures_come_back_typed() {
    use latency_lab_app::browser::fetch::{FetchError, get_text};
    use latency_lab_app::browser::idb::StoreError;
    use latency_lab_app::browser::use_storage::{Store, use_storage};

    match get_text("/no-such-file-here.json", None).await {
        Err(FetchError::Http { status: 404, .. }) => {}
        other => panic!("expected HTTP 404, got {other:?}"),
    }
    // Nothing listens on port 9 (discard): the browser gets no response.
    let err = get_text("http://127.0.0.1:9/models", Some("sk-secret")).await.unwrap_err();
    assert!(matches!(err, FetchError::Network(_)), "{err:?}");
    assert!(!err.to_string().contains("sk-secret"), "the key is never in a message");

    let stored = use_storage(Store::Local, "latency-lab-test-quota");
    // 6 M characters: more than any browser's 5 MB Web Storage quota.
    let err = stored.set("x".repeat(6_000_000)).unwrap_err();
    assert!(matches!(err, StoreError::Quota(_)), "{err:?}");
    assert!(err.to_string().contains("delete runs or export"), "{err}");
    stored.set(String::new()).unwrap();
}

#[wasm_bindgen_test]
async fn share_links_made_by_the_browser_and_natively_read_each_other() {
    use lab_core::share::link::{MAX_JSON_BYTES, ShareError, Shared, SharedPane, base64url};
    use latency_lab_app::browser::share;
    let shared = Shared::Panes {
        title: "Same tokens/s".into(),
        panes: vec![
            SharedPane {
                title: "steady".into(),
                profile: "ttft=150,tpot=30".into(),
                prompt_tokens: 0,
                smoothing: Default::default(),
            },
            SharedPane {
                title: "wait".into(),
                profile: "ttft=2500,tpot=5".into(),
                prompt_tokens: 512,
                smoothing: Default::default(),
            },
        ],
        markdown: true,
        speed: None,
    };
    // The browser's CompressionStream writes what miniz_oxide reads, and back.
    let made_here = share::encode(&shared).await.expect("the browser packs");
    assert_eq!(Shared::decode(&made_here), Ok(shared.clone()));
    assert_eq!(share::decode(&shared.encode()).await, Ok(shared.clone()));
    assert_eq!(share::decode(&format!("https://lab.example/#share={made_here}")).await, Ok(shared.clone()));
    // Damaged: cut, changed, not DEFLATE, not a link.
    let cut = &made_here[..made_here.len() / 2];
    assert!(matches!(share::decode(cut).await, Err(ShareError::Damaged(_))), "cut");
    assert!(matches!(share::decode("v1.garbage").await, Err(ShareError::Damaged(_))), "garbage");
    assert_eq!(share::decode("hello").await, Err(ShareError::NotALink));
    // A decompression bomb stops at the limit.
    let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; MAX_JSON_BYTES + 10], 9);
    let e = share::decode(&format!("v1.{}", base64url(&bomb))).await.unwrap_err();
    assert!(e.to_string().contains("more than"), "{e}");
}
