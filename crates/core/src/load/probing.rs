//! A **probe run**'s plan: probes (the form's prompt) sent every few
//! seconds while a workload loads the server, window by window. The lab
//! drives the load itself (the built-in load of `latency-lab serve`, a
//! speed sweep over [`SPEEDS`] up to the plan's top speed), or someone else
//! does (`latency-lab run`, another tool) and the windows are fixed stretches
//! of time. What it shows is read back in `workload::probe`.

use serde::{Deserialize, Serialize};

/// The speed sweep's ladder (×the workload's rate).
pub const SPEEDS: [f64; 9] = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0];
/// Shortest window (s): enough for a few probes and for the queue to form.
pub const MIN_WINDOW_S: f64 = 3.0;
/// Longest window (s).
pub const MAX_WINDOW_S: f64 = 600.0;
/// Most windows of an externally loaded run.
pub const MAX_WINDOWS: u32 = 60;
/// Most probes a second (probes measure the load; they must not be it).
pub const MAX_PROBES_PER_S: f64 = 5.0;

/// Who loads the server while the probes run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeLoad {
    /// `latency-lab serve`'s built-in load, a speed per window.
    BuiltIn,
    /// Someone else (`latency-lab run`, another tool); windows of time.
    External,
}

/// A probe run's plan.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbePlan {
    /// Who loads the server.
    pub load: ProbeLoad,
    /// Top speed of the sweep (built-in load).
    pub max_speed: f64,
    /// Windows of an externally loaded run.
    pub windows: u32,
    /// Length of a window (s).
    pub window_s: f64,
    /// Seconds between probes.
    pub probe_every_s: f64,
}

/// Why a plan cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbePlanError {
    /// The window is too short or too long.
    #[error("a window of {0} s: give {MIN_WINDOW_S}–{MAX_WINDOW_S} s")]
    Window(f64),
    /// Probes too often, or too rarely to fit twice in a window.
    #[error("a probe every {0} s: give at least {min} s and at most half the window", min = 1.0 / MAX_PROBES_PER_S)]
    Every(f64),
    /// No speed of the ladder is within the top speed.
    #[error("top speed {0}×: give {first}× to {last}×", first = SPEEDS[0], last = SPEEDS[SPEEDS.len() - 1])]
    Speed(f64),
    /// Windows out of range.
    #[error("{0} windows: give 1–{MAX_WINDOWS}")]
    Windows(u32),
}

impl Default for ProbePlan {
    fn default() -> Self {
        Self { load: ProbeLoad::BuiltIn, max_speed: 3.0, windows: 4, window_s: 10.0, probe_every_s: 1.0 }
    }
}

impl ProbePlan {
    /// Checks the plan.
    pub fn validate(&self) -> Result<(), ProbePlanError> {
        if !(MIN_WINDOW_S..=MAX_WINDOW_S).contains(&self.window_s) {
            return Err(ProbePlanError::Window(self.window_s));
        }
        if !(self.probe_every_s >= 1.0 / MAX_PROBES_PER_S && self.probe_every_s * 2.0 <= self.window_s) {
            return Err(ProbePlanError::Every(self.probe_every_s));
        }
        match self.load {
            ProbeLoad::BuiltIn if self.speeds().is_empty() => Err(ProbePlanError::Speed(self.max_speed)),
            ProbeLoad::External if !(1..=MAX_WINDOWS).contains(&self.windows) => {
                Err(ProbePlanError::Windows(self.windows))
            }
            _ => Ok(()),
        }
    }

    /// The speeds of the sweep, one window each (none for an external load).
    pub fn speeds(&self) -> Vec<f64> {
        match self.load {
            ProbeLoad::BuiltIn => SPEEDS.iter().copied().filter(|s| *s <= self.max_speed + 1e-9).collect(),
            ProbeLoad::External => Vec::new(),
        }
    }

    /// Windows the run has.
    pub fn window_count(&self) -> usize {
        match self.load {
            ProbeLoad::BuiltIn => self.speeds().len(),
            ProbeLoad::External => self.windows as usize,
        }
    }

    /// Probes sent in each window (at 0, every, 2·every, … before its end).
    pub fn probes_per_window(&self) -> usize {
        if self.probe_every_s > 0.0 {
            (self.window_s / self.probe_every_s).ceil().max(1.0) as usize
        } else {
            0
        }
    }

    /// Probes the whole run sends.
    pub fn requests(&self) -> usize {
        self.window_count() * self.probes_per_window()
    }

    /// Where a window begins on the page's clock (ms), asked at `now`, the
    /// one before it having ended at `previous_end`. A window's probes are
    /// waited for before the next window's are sent, so a slow last probe
    /// leaves a gap. The built-in load starts with its window, so nothing
    /// of it is in the gap. Someone else's load runs on through it: its
    /// windows touch, each beginning where the last one ended, so every
    /// request of the load falls in one (a window is then a little longer
    /// than planned, and its rates are over its own span).
    pub fn window_start(&self, previous_end: Option<f64>, now: f64) -> f64 {
        match (self.load, previous_end) {
            (ProbeLoad::External, Some(end)) => end.min(now),
            _ => now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_runs_the_ladder_up_to_its_top_speed() {
        let p = ProbePlan::default();
        assert_eq!(p.speeds(), vec![1.0, 1.5, 2.0, 3.0]);
        assert_eq!((p.probes_per_window(), p.requests()), (10, 40));
        let e = ProbePlan { load: ProbeLoad::External, windows: 3, ..p };
        assert_eq!((e.speeds(), e.window_count(), e.requests()), (Vec::new(), 3, 30));
        assert_eq!(ProbePlan { window_s: 10.0, probe_every_s: 3.0, ..p }.probes_per_window(), 4);
    }

    #[test]
    fn an_external_loads_windows_touch_and_a_sweeps_begin_with_their_load() {
        let e = ProbePlan { load: ProbeLoad::External, windows: 3, ..ProbePlan::default() };
        assert_eq!(e.window_start(None, 50.0), 50.0);
        // The last probe of the window before ran 240 ms over its end.
        assert_eq!(e.window_start(Some(3050.0), 3290.0), 3050.0);
        let b = ProbePlan::default();
        assert_eq!(b.window_start(Some(3050.0), 3290.0), 3290.0);
    }

    #[test]
    fn bad_plans_say_what_to_give() {
        let p = ProbePlan::default();
        assert!(p.validate().is_ok());
        let e = ProbePlan { window_s: 1.0, ..p }.validate().unwrap_err();
        assert!(e.to_string().contains("give 3–600 s"), "{e}");
        assert!(ProbePlan { probe_every_s: 6.0, ..p }.validate().is_err(), "fewer than two probes a window");
        assert!(ProbePlan { probe_every_s: 0.1, ..p }.validate().is_err(), "more than 5 a second");
        assert_eq!(ProbePlan { max_speed: 0.5, ..p }.validate(), Err(ProbePlanError::Speed(0.5)));
        let ext = ProbePlan { load: ProbeLoad::External, windows: 0, max_speed: 0.5, ..p };
        assert_eq!(ext.validate(), Err(ProbePlanError::Windows(0)));
    }
}
