//! Reading a `fetch` response body incrementally (`ReadableStream` reader),
//! stamping every piece with [`now_ms`] the moment it is handed over.
//!
//! [`StreamReader::read`] returns a future that owns its pending read, so a
//! caller waiting on it beside something else (the next animation frame)
//! can keep it across turns: a read is never dropped with its bytes.

use std::future::Future;

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::clock::now_ms;
use super::fetch::FetchError;
use super::files::js_message;

/// A body being read, piece by piece.
pub struct StreamReader {
    reader: web_sys::ReadableStreamDefaultReader,
}

/// One step of a read.
#[derive(Debug, PartialEq)]
pub enum Piece {
    /// Bytes, read at this time (ms, page clock).
    Bytes(f64, Vec<u8>),
    /// The stream ended normally.
    End,
    /// The stream failed (network error, abort): the browser's message.
    Failed(String),
}

fn piece(result: Result<JsValue, JsValue>) -> Piece {
    let result = match result {
        Ok(r) => r,
        Err(e) => return Piece::Failed(js_message(&e)),
    };
    let at = now_ms();
    let done =
        Reflect::get(&result, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool()).unwrap_or(true);
    if done {
        return Piece::End;
    }
    let Ok(value) = Reflect::get(&result, &JsValue::from_str("value")) else {
        return Piece::Failed("stream produced a chunk without a value".into());
    };
    match value.dyn_into::<Uint8Array>() {
        Ok(bytes) => Piece::Bytes(at, bytes.to_vec()),
        Err(_) => Piece::Failed("stream produced a chunk that is not bytes".into()),
    }
}

impl StreamReader {
    /// Locks `body` for reading.
    pub fn new(body: &web_sys::ReadableStream) -> Self {
        Self { reader: body.get_reader().unchecked_into() }
    }

    /// The next piece (the read starts now; the future owns it).
    pub fn read(&self) -> impl Future<Output = Piece> + 'static {
        let pending = JsFuture::from(self.reader.read());
        async move { piece(pending.await) }
    }
}

impl StreamReader {
    /// Stops reading: the stream is cancelled (what is pending is dropped).
    pub fn cancel(&self) {
        let _ = self.reader.cancel();
    }
}

impl Drop for StreamReader {
    fn drop(&mut self) {
        self.reader.release_lock();
    }
}

/// Reads `body` to its end, calling `on_bytes(arrival_ms, bytes)` for each
/// piece. Returns [`FetchError::Network`] with the browser's message when
/// the stream errors.
pub async fn read_stream(
    body: web_sys::ReadableStream,
    mut on_bytes: impl FnMut(f64, &[u8]),
) -> Result<(), FetchError> {
    let reader = StreamReader::new(&body);
    loop {
        match reader.read().await {
            Piece::Bytes(at, b) => on_bytes(at, &b),
            Piece::End => return Ok(()),
            Piece::Failed(m) => return Err(FetchError::Network(m)),
        }
    }
}
