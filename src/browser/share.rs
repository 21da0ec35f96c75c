//! Share links of this page: `#share=v1.…` after the page's own address, so
//! the link opens the same build of the lab wherever it is hosted.
//!
//! The payload is raw DEFLATE (`lab_core::share::link`); the page packs and
//! unpacks it with the browser's own `CompressionStream` and
//! `DecompressionStream` ("deflate-raw") instead of linking a DEFLATE coder
//! into its wasm (BENCHMARKS.md, "Web layer rebuilt"). Native code
//! (`Shared::encode`/`decode`) uses `miniz_oxide`; the formats are the same,
//! and `tests/browser.rs` checks that each reads the other's links.

use lab_core::share::link::{MAX_JSON_BYTES, ShareError, Shared, packed_of, payload_of};
use lab_core::share::route::Route;
use wasm_bindgen::prelude::*;
use web_sys::{ReadableStream, ReadableWritablePair, WritableStream};

use super::files::js_message;
use super::page;
use super::stream::{Piece, StreamReader};

// The Compression Streams API (Chromium 80, Firefox 113, Safari 16.4),
// bound here: web-sys offers it only behind `web_sys_unstable_apis`.
#[wasm_bindgen]
extern "C" {
    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &CompressionStream) -> ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &CompressionStream) -> WritableStream;

    type DecompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<DecompressionStream, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &DecompressionStream) -> ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &DecompressionStream) -> WritableStream;
}

/// The raw DEFLATE format's name in the Compression Streams API.
const DEFLATE_RAW: &str = "deflate-raw";

/// Runs `bytes` through a transform stream, refusing output over `limit`.
async fn transform(bytes: &[u8], pair: &ReadableWritablePair, limit: usize) -> Result<Vec<u8>, String> {
    let mut copy = bytes.to_vec();
    let source = web_sys::Response::new_with_opt_u8_array(Some(&mut copy))
        .map_err(|e| js_message(&e))?
        .body()
        .ok_or("the browser gave no stream to read")?;
    let reader = StreamReader::new(&source.pipe_through(pair));
    let mut out = Vec::new();
    loop {
        match reader.read().await {
            Piece::Bytes(_, b) => {
                out.extend_from_slice(&b);
                if out.len() > limit {
                    reader.cancel();
                    return Err(format!("it unpacks to more than {limit} bytes"));
                }
            }
            Piece::End => return Ok(out),
            Piece::Failed(m) => return Err(m),
        }
    }
}

/// The payload (`v1.…`) of `shared`.
pub async fn encode(shared: &Shared) -> Result<String, ShareError> {
    let packer = CompressionStream::new(DEFLATE_RAW).map_err(|e| ShareError::Unmade(js_message(&e)))?;
    let pair = ReadableWritablePair::new(&packer.readable(), &packer.writable());
    Ok(payload_of(&transform(&shared.to_json(), &pair, usize::MAX).await.map_err(ShareError::Unmade)?))
}

/// Reads a payload, a fragment (`#share=…`) or a whole URL.
pub async fn decode(link: &str) -> Result<Shared, ShareError> {
    let packed = packed_of(link)?;
    let damaged = |m: String| ShareError::Damaged(format!("cannot decompress ({m})"));
    let unpacker = DecompressionStream::new(DEFLATE_RAW).map_err(|e| damaged(js_message(&e)))?;
    let pair = ReadableWritablePair::new(&unpacker.readable(), &unpacker.writable());
    let json = transform(&packed, &pair, MAX_JSON_BYTES).await.map_err(damaged)?;
    Shared::from_json(&json)
}

/// A full link to this page that opens `shared`, copied to the clipboard.
pub async fn link_for(shared: &Shared) -> Result<String, ShareError> {
    let payload = encode(shared).await?;
    let url = format!("{}{}", page::base_url(), Route::Share(payload).fragment());
    page::copy(&url);
    Ok(url)
}
