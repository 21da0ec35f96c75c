//! When text really reached the screen.
//!
//! Method: text is committed to the DOM synchronously when its chunk is
//! read; then one `requestAnimationFrame` callback is requested, and inside
//! it `performance.now()` is taken as the **paint time** of every chunk
//! committed before it. rAF callbacks run in the rendering step of the very
//! frame that will show the new text, just before style, layout and paint,
//! so the recorded time is never earlier than the commit, and the pixels
//! appear at most one frame interval later (16.7 ms at 60 Hz): that interval
//! is the error bound, and the lab records the measured refresh rate beside
//! it. In a hidden tab browsers run no frames, so nothing is marked painted.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen_futures::JsFuture;

use super::clock::now_ms;

/// Calls `f(now_ms)` from the next animation frame. Returns false when the
/// page has no window (workers, tests without a DOM).
pub fn on_next_frame(f: impl FnOnce(f64) + 'static) -> bool {
    let Some(window) = web_sys::window() else { return false };
    let cb = Closure::once_into_js(move |_ts: f64| f(now_ms()));
    window.request_animation_frame(cb.unchecked_ref()).is_ok()
}

/// Resolves with the time inside the next animation frame, or `None` after
/// `timeout_ms` without a frame (hidden tab). Whichever comes first cancels
/// the other, so no timers pile up when it is called every frame.
pub async fn next_frame(timeout_ms: i32) -> Option<f64> {
    let window = web_sys::window()?;
    let handles: std::rc::Rc<std::cell::Cell<(i32, i32)>> = std::rc::Rc::default();
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let (r1, w1, h1) = (resolve.clone(), window.clone(), handles.clone());
        let frame = Closure::once_into_js(move |_ts: f64| {
            w1.clear_timeout_with_handle(h1.get().1);
            let _ = r1.call1(&wasm_bindgen::JsValue::NULL, &now_ms().into());
        });
        let (w2, h2) = (window.clone(), handles.clone());
        let timeout = Closure::once_into_js(move || {
            let _ = w2.cancel_animation_frame(h2.get().0);
            let _ = resolve.call1(&wasm_bindgen::JsValue::NULL, &wasm_bindgen::JsValue::NULL);
        });
        let raf = window.request_animation_frame(frame.unchecked_ref()).unwrap_or(0);
        let tid = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(timeout.unchecked_ref(), timeout_ms)
            .unwrap_or(0);
        handles.set((raf, tid));
    });
    JsFuture::from(promise).await.ok().and_then(|v| v.as_f64())
}

/// Display refresh rate (Hz) from the median interval of `frames`
/// consecutive animation frames; `None` when frames do not run.
pub async fn measure_refresh_hz(frames: usize) -> Option<f64> {
    let mut times = Vec::with_capacity(frames + 1);
    for _ in 0..=frames {
        times.push(next_frame(250).await?);
    }
    let mut gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).filter(|g| *g > 0.0).collect();
    if gaps.is_empty() {
        return None;
    }
    gaps.sort_by(f64::total_cmp);
    let median = gaps[gaps.len() / 2];
    Some(1000.0 / median)
}

/// Resolves in a new task of the event loop (a zero-delay timer), after
/// every microtask queued before it, effects and their DOM updates included.
pub async fn next_task() {
    let Some(window) = web_sys::window() else { return };
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = JsFuture::from(promise).await;
}

/// Frames [`settled`] waits. The first draws what the page changed (the
/// last request's results); the browser rasterises and composites it on
/// other threads after that, on the same cores that send the next request.
/// Measured (BENCHMARKS.md, "Live accuracy per browser"): waiting one frame
/// left Firefox's requests 4.4 ms slower than a plain fetch loop's, two
/// frames 1.1–3.8 ms; SETTLE_FRAMES is the value measured best.
pub const SETTLE_FRAMES: usize = 3;

/// Waits until the page has drawn what is pending and has nothing queued:
/// [`SETTLE_FRAMES`] animation frames (each at most 100 ms in a hidden
/// tab), then a new task. A measured request starts here, so the browser is
/// free to send it the moment it is made and to hand its first bytes over
/// the moment they come.
pub async fn settled() {
    for _ in 0..SETTLE_FRAMES {
        next_frame(100).await;
    }
    next_task().await;
}
