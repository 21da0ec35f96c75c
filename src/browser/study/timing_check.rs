//! What the participant's browser can show, checked before consent
//! (`lab_core::study::timing`): the clock (isolation, step) and the engine
//! from [`client_info`], the display's refresh rate over 20 frames, and
//! whether the release-clock workers started (the path the samples will be
//! released on). After each playback, the path actually taken
//! ([`played`]) goes with the trial's answers.

use lab_core::study::timing::{Engine, SchedulerPath, Timing};
use lab_core::trace::Released;

use crate::browser::clock::client_info;
use crate::browser::paint::measure_refresh_hz;
use crate::browser::replay::ReplayEngine;

/// Frames over which the refresh rate is measured.
const REFRESH_FRAMES: usize = 20;

/// What is known at once: the engine and the clock (no refresh rate, no
/// path yet).
pub fn client_timing() -> Timing {
    let client = client_info();
    Timing {
        engine: Engine::from_name(client.engine.as_deref()),
        isolated: client.cross_origin_isolated.unwrap_or(false),
        clock_step_ms: client.timer_resolution_ms,
        refresh_hz: None,
        scheduler: SchedulerPath::Unknown,
    }
}

/// Checks the browser: engine, clock, refresh rate and the release path
/// `engine` will take.
pub async fn check_timing(engine: ReplayEngine) -> Timing {
    let now = client_timing();
    let refresh_hz = measure_refresh_hz(REFRESH_FRAMES).await;
    if let Some(hz) = refresh_hz {
        engine.set_refresh_hz(hz);
    }
    engine.ready().await;
    Timing { refresh_hz, scheduler: engine.clock_path(), ..now }
}

/// The timing of a finished playback: the check's facts (or, before the
/// check ended, what is known at once) with the path its panes' chunks
/// were actually released on.
pub fn played(checked: Option<Timing>, panes: &[Released]) -> Timing {
    let checked = checked.unwrap_or_else(client_timing);
    match SchedulerPath::of(panes) {
        SchedulerPath::Unknown => checked,
        scheduler => Timing { scheduler, ..checked },
    }
}
