//! The page clock and the facts that bound its accuracy.
//!
//! - [`now_ms`] is `performance.now()`: monotonic milliseconds since the page
//!   started, the clock every trace of the lab is written in.
//! - Browsers coarsen it against timing attacks: 100 µs in Chromium and 1 ms
//!   in Firefox normally, 5 µs and 20 µs when the page is cross-origin
//!   isolated (served with COOP/COEP, as `latency-lab serve` does; see
//!   `lab_core::trace::client`). [`timer_resolution_ms`] measures the step
//!   actually observed.

use lab_core::trace::ClientInfo;
use wasm_bindgen::JsValue;

/// Clock steps the resolution probe waits to see before it stops.
pub const RESOLUTION_STEPS: usize = 5;
/// Longest the resolution probe reads the clock (ms): Firefox's coarse
/// clock steps every 1 ms, so five steps fit well within this.
pub const RESOLUTION_BUDGET_MS: f64 = 20.0;
/// Most clock reads of the probe (a clock that never moves ends it).
pub const RESOLUTION_READS: usize = 2_000_000;

thread_local! {
    static PERFORMANCE: Option<web_sys::Performance> = {
        let global = js_sys::global();
        js_sys::Reflect::get(&global, &JsValue::from_str("performance"))
            .ok()
            .and_then(|p| wasm_bindgen::JsCast::dyn_into::<web_sys::Performance>(p).ok())
    };
    static RESOLUTION: std::cell::OnceCell<Option<f64>> = const { std::cell::OnceCell::new() };
}

/// `performance.now()` in ms (0 when the clock is unavailable). The
/// `Performance` object is looked up once, so a stamp is one call.
pub fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, web_sys::Performance::now))
}

/// `self.crossOriginIsolated`.
pub fn cross_origin_isolated() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("crossOriginIsolated"))
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// The smallest positive step between successive clock reads (ms), or
/// `None` when the clock never moved during the probe. Probed once per
/// page: the clock is read until it has stepped [`RESOLUTION_STEPS`] times
/// or for [`RESOLUTION_BUDGET_MS`] (at most [`RESOLUTION_READS`] reads).
pub fn timer_resolution_ms() -> Option<f64> {
    RESOLUTION.with(|r| *r.get_or_init(probe_resolution))
}

fn probe_resolution() -> Option<f64> {
    PERFORMANCE.with(|p| {
        let p = p.as_ref()?;
        let start = p.now();
        let (mut last, mut best, mut steps) = (start, f64::INFINITY, 0);
        for _ in 0..RESOLUTION_READS {
            if steps >= RESOLUTION_STEPS || last - start >= RESOLUTION_BUDGET_MS {
                break;
            }
            let t = p.now();
            if t > last {
                best = best.min(t - last);
                steps += 1;
                last = t;
            }
        }
        best.is_finite().then_some(best)
    })
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
        ..ClientInfo::default()
    }
    .with_browser()
}

/// Resolves after about `ms` (a `setTimeout`: the browser may run it late,
/// never early).
pub async fn sleep_ms(ms: f64) {
    let Some(window) = web_sys::window() else { return };
    let delay = ms.clamp(0.0, f64::from(i32::MAX)) as i32;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, delay);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
