// The import worker's loader: wasm-bindgen's script, then the wasm. A part
// that does not load (offline, the server gone, a blocked request) is
// reported to the page as {loadFailed}, so the Import view can say so and
// offer Retry; a loader that only threw would leave the page waiting.
const failed = (e) => postMessage({ loadFailed: String((e && e.message) || e) });
try {
  importScripts('../import_worker.js');
  wasm_bindgen({ module_or_path: '../import_worker_bg.wasm' }).catch(failed);
} catch (e) {
  failed(e);
}
