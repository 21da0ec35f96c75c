//! Resource Timing: what the browser's network stack saw for a request
//! (protocol, connection set-up, time queued in the browser). Entries are
//! matched by URL and by start time (within [`MATCH_WINDOW_MS`] of when the
//! lab sent the request), since concurrent requests share a URL.

use lab_core::trace::NetworkTiming;
use wasm_bindgen::JsCast;

/// Largest distance between the lab's send time and an entry's startTime.
pub const MATCH_WINDOW_MS: f64 = 5.0;

/// Entries the browser keeps (the default, 250, is too few for load runs).
pub const BUFFER_SIZE: u32 = 10_000;

fn performance() -> Option<web_sys::Performance> {
    web_sys::window()?.performance()
}

/// Raises the Resource Timing buffer size.
pub fn enlarge_buffer() {
    if let Some(p) = performance() {
        p.set_resource_timing_buffer_size(BUFFER_SIZE);
    }
}

/// The timing of the request to `url` sent at `sent_ms`, when the browser
/// recorded one (it does once the response body has been read).
pub fn find(url: &str, sent_ms: f64) -> Option<NetworkTiming> {
    let entries = performance()?.get_entries_by_name_with_entry_type(url, "resource");
    let best = entries
        .iter()
        .filter_map(|e| e.dyn_into::<web_sys::PerformanceResourceTiming>().ok())
        .filter(|e| (e.start_time() - sent_ms).abs() <= MATCH_WINDOW_MS)
        .min_by(|a, b| (a.start_time() - sent_ms).abs().total_cmp(&(b.start_time() - sent_ms).abs()))?;
    let nonzero = |v: f64| (v > 0.0).then_some(v);
    let protocol = best.next_hop_protocol();
    Some(NetworkTiming {
        protocol: (!protocol.is_empty()).then_some(protocol),
        start_ms: best.start_time(),
        connect_ms: (best.connect_end() - best.connect_start()).max(0.0),
        request_start_ms: nonzero(best.request_start()),
        response_start_ms: nonzero(best.response_start()),
        response_end_ms: nonzero(best.response_end()),
    })
}
