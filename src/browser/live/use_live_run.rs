//! [`use_live_run`]: the live run hook (one run of requests, or a sweep, against an endpoint).

use lab_core::share::command::{Command, EVENT};
use wasm_bindgen::JsCast;

use super::*;

/// Creates the runner; aborts whatever is in flight when the owner is
/// cleaned up.
pub fn use_live_run(options: UseLiveRunOptions) -> UseLiveRun {
    let run = UseLiveRun {
        phase: RwSignal::new(RunPhase::Idle),
        stats: RwSignal::new(LiveStats::default()),
        has_results: RwSignal::new(false),
        cadence: RwSignal::new(None),
        error: RwSignal::new(None),
        checkpoint: RwSignal::new(None),
        options,
        abort: StoredValue::new_local(None),
        refresh_hz: StoredValue::new(None),
    };
    resource::enlarge_buffer();
    spawn_local(async move {
        let hz = measure_refresh_hz(20).await;
        run.refresh_hz.set_value(hz);
    });
    on_cleanup(move || {
        if let Some(a) = run.abort.try_get_value().flatten() {
            a.abort();
        }
    });
    // A comparison its set-up asks for (the set-up is an on-demand module).
    let listener = window_event_listener_untyped(EVENT, move |ev: web_sys::Event| {
        let json = ev.dyn_ref::<web_sys::CustomEvent>().and_then(|e| e.detail().as_string());
        if let Some(Command::Compare { sides, rounds }) = json.as_deref().and_then(Command::from_json) {
            run.compare(CompareSpec::of(sides, rounds));
        }
    });
    on_cleanup(move || listener.remove());
    Effect::new(move |_| {
        if let Some(t) = run.checkpoint.get() {
            options.library.save_trace(&t, false);
        }
    });
    run
}
