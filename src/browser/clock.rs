//! The page clock and the facts that bound its accuracy.
//!
//! - [`now_ms`] is `performance.now()`: monotonic milliseconds since the page
//!   started, the clock every trace of the lab is written in.
//! - Browsers coarsen it against timing attacks: 100 µs in Chromium normally,
//!   5 µs when the page is cross-origin isolated (served with COOP/COEP, as
//!   `latency-lab serve` does). [`timer_resolution_ms`] measures the step
//!   actually observed.

use lab_core::trace::ClientInfo;
use wasm_bindgen::JsValue;

/// Number of clock reads used to estimate the timer resolution.
pub const RESOLUTION_PROBES: usize = 2_000;

fn performance() -> Option<web_sys::Performance> {
    let global = js_sys::global();
    js_sys::Reflect::get(&global, &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| wasm_bindgen::JsCast::dyn_into::<web_sys::Performance>(p).ok())
}

/// `performance.now()` in ms (0 when the clock is unavailable).
pub fn now_ms() -> f64 {
    performance().map_or(0.0, |p| p.now())
}

/// `self.crossOriginIsolated`.
pub fn cross_origin_isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("crossOriginIsolated"))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// The smallest positive step between successive clock reads (ms), or
/// `None` when the clock never moved during the probe.
pub fn timer_resolution_ms() -> Option<f64> {
    let p = performance()?;
    let mut last = p.now();
    let mut best = f64::INFINITY;
    for _ in 0..RESOLUTION_PROBES {
        let t = p.now();
        let d = t - last;
        if d > 0.0 && d < best {
            best = d;
        }
        last = t;
    }
    best.is_finite().then_some(best)
}

/// `navigator.userAgent`, when available.
pub fn user_agent() -> Option<String> {
    web_sys::window().and_then(|w| w.navigator().user_agent().ok())
}

/// What a trace records about the measuring client (no display refresh yet:
/// that is measured by the paint probe).
pub fn client_info() -> ClientInfo {
    ClientInfo {
        user_agent: user_agent(),
        timer_resolution_ms: timer_resolution_ms(),
        cross_origin_isolated: Some(cross_origin_isolated()),
        display_refresh_hz: None,
    }
}
