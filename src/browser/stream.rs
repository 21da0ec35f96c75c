//! Reading a `fetch` response body incrementally (`ReadableStream` reader),
//! stamping every piece with [`now_ms`] the moment it is handed to us.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::clock::now_ms;
use super::files::js_message;

/// Reads `body` to its end, calling `on_bytes(arrival_ms, bytes)` for each
/// piece. Returns `Err` with the browser's message when the stream errors
/// (network failure, abort).
pub async fn read_stream(
    body: web_sys::ReadableStream,
    mut on_bytes: impl FnMut(f64, &[u8]),
) -> Result<(), String> {
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut buf: Vec<u8> = Vec::new();
    let outcome = loop {
        let result = match JsFuture::from(reader.read()).await {
            Ok(r) => r,
            Err(e) => break Err(js_message(&e)),
        };
        let at = now_ms();
        let done =
            Reflect::get(&result, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool()).unwrap_or(true);
        if done {
            break Ok(());
        }
        let Ok(value) = Reflect::get(&result, &JsValue::from_str("value")) else {
            break Err("stream produced a chunk without a value".to_string());
        };
        let Ok(bytes) = value.dyn_into::<Uint8Array>() else {
            break Err("stream produced a chunk that is not bytes".to_string());
        };
        buf.resize(bytes.length() as usize, 0);
        bytes.copy_to(&mut buf);
        on_bytes(at, &buf);
    };
    reader.release_lock();
    outcome
}
