//! [`use_live_run`]: the live run hook (one run of requests, or a sweep, against an endpoint).

use super::*;

/// Creates the runner; aborts whatever is in flight when the owner is
/// cleaned up.
pub fn use_live_run(options: UseLiveRunOptions) -> UseLiveRun {
    let run = UseLiveRun {
        phase: RwSignal::new(RunPhase::Idle),
        stats: RwSignal::new(LiveStats::default()),
        result: RwSignal::new(None),
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
    Effect::new(move |_| {
        if let Some(t) = run.checkpoint.get() {
            options.library.save_trace(&t, false);
        }
    });
    Effect::new(move |_| {
        if let Some(m) = run.result.get() {
            options.library.save_trace(&m.trace, true);
            options.runs.add(m);
        }
    });
    run
}
