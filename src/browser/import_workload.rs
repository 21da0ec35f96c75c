//! The import worker's reading of a workload file (Mooncake, Bailian,
//! Azure, BurstGPT, ShareGPT): detected from its first 64 KiB, then read a
//! slice of [`SLICE_BYTES`] at a time into `lab_core::workload::summary::Reading`,
//! so a file of 1,000,000 rows is summarised in bounded memory (ShareGPT,
//! one JSON document, is read whole, up to the import limit). Progress is
//! reported per slice; a bad row ends the reading with its line and what
//! was expected, and nothing half-read is shown as a summary.

use lab_core::import::MAX_IMPORT_BYTES;
use lab_core::import::service::FromWorker;
use lab_core::workload::summary::Reading;
use lab_core::workload::{Format, read::detect};
use wasm_bindgen::JsCast;

use super::files::js_message;

/// Bytes read at a time.
pub const SLICE_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
/// Bytes the format is detected from.
const HEAD_BYTES: f64 = 64.0 * 1024.0;
/// Points of the rate-over-time chart.
const RATE_POINTS: usize = 120;

fn slice(file: &web_sys::File, from: f64, to: f64) -> Result<Vec<u8>, String> {
    let reader = web_sys::FileReaderSync::new().map_err(|e| js_message(&e))?;
    let blob = file.slice_with_f64_and_f64(from, to).map_err(|e| js_message(&e))?;
    let buf = reader
        .read_as_array_buffer(&blob)
        .map_err(|e| format!("the browser could not read it: {}", js_message(&e)))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// The workload format of `file`, if it is one the Import view summarises
/// (a lab trace is imported as a run instead).
pub fn workload_format(file: &web_sys::File) -> Option<Format> {
    let head = slice(file, 0.0, HEAD_BYTES.min(file.size())).ok()?;
    let end = (0..=head.len().min(4)).find_map(|k| std::str::from_utf8(&head[..head.len() - k]).ok());
    detect(end?).filter(|f| *f != Format::LabTrace)
}

/// The wasm memory's size now (bytes).
fn memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_or(0.0, |m| m.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as f64)
}

/// Reads `file` as a `format` workload; `progress` hears each slice.
pub fn summarize(
    file: &web_sys::File,
    job: u32,
    format: Format,
    progress: &mut dyn FnMut(f64),
    now: &dyn Fn() -> f64,
) -> FromWorker {
    let (name, size, started) = (file.name(), file.size(), now());
    let fail = |message: String| FromWorker::Failed { job: Some(job), name: name.clone(), message };
    if !format.lines() && size > MAX_IMPORT_BYTES as f64 {
        return fail(format!(
            "a {} file is one JSON document, read whole: at most {MAX_IMPORT_BYTES} bytes here (latency-lab analyze reads any size)",
            format.label()
        ));
    }
    let mut reading = Reading::new(format);
    let mut at = 0.0;
    while at < size {
        let to = (at + SLICE_BYTES).min(size);
        let bytes = match slice(file, at, to) {
            Ok(b) => b,
            Err(m) => return fail(m),
        };
        if let Err(e) = reading.push(&bytes) {
            return fail(format!("{} workload, {e}", format.label()));
        }
        at = to;
        progress(at / size);
    }
    match reading.finish() {
        Err(e) => fail(format!("{} workload: {e}", format.label())),
        Ok(summary) => FromWorker::Workload {
            job,
            name: name.clone(),
            digest: Box::new(summary.digest(RATE_POINTS)),
            took_ms: now() - started,
            memory_bytes: memory_bytes(),
        },
    }
}
