//! What a participant's browser could show: its timing capabilities,
//! checked before consent and recorded with every answer.
//!
//! A study compares latencies a few tens of milliseconds apart, so an
//! answer is only as good as the playback it judged. A [`Timing`] holds
//! what bounds that playback: the rendering engine, whether the page was
//! cross-origin isolated (the fine clock and the release-clock workers'
//! shared memory need it), the clock's observed step, the display's refresh
//! rate and the path that released the samples' chunks
//! ([`SchedulerPath`]: the release-clock workers, or the page's main thread
//! when they could not run, late by whatever the page draws).
//!
//! **Precise** ([`Timing::limits`] is empty): isolated, a clock step of at
//! most [`MAX_CLOCK_STEP_MS`], a refresh rate of at least
//! [`MIN_REFRESH_HZ`] and every chunk released by the workers. Anything
//! else is named, in words, so a researcher can read why an answer is
//! marked and leave such answers out of the results
//! ([`super::results::StudyResults::precise_only`]). Answers saved before
//! timings were recorded have none and are kept.
//!
//! Only enums and bounded numbers: a study server stores nothing a
//! participant typed ([`Timing::check`]).

use serde::{Deserialize, Serialize};

use crate::trace::Released;

/// Coarsest clock step that still times a chunk precisely (ms): an
/// isolated page's clock steps 5–20 µs; a non-isolated one 100 µs–1 ms.
pub const MAX_CLOCK_STEP_MS: f64 = 0.1;

/// Lowest refresh rate that shows a cadence as designed (Hz): below it a
/// frame lasts over 20 ms, longer than a typical gap between tokens.
pub const MIN_REFRESH_HZ: f64 = 50.0;

/// Rendering engine of a participant's browser.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// Chromium, Chrome, Edge.
    Blink,
    /// Firefox.
    Gecko,
    /// Safari (every browser on iOS).
    #[serde(rename = "webkit")]
    WebKit,
    /// Not recognised.
    #[default]
    Other,
}

impl Engine {
    /// From the engine name a trace records ([`crate::trace::ClientInfo::engine`]).
    pub fn from_name(name: Option<&str>) -> Self {
        match name {
            Some("Blink") => Self::Blink,
            Some("Gecko") => Self::Gecko,
            Some("WebKit") => Self::WebKit,
            _ => Self::Other,
        }
    }

    /// Its id in results files (JSON and CSV).
    pub fn id(self) -> &'static str {
        match self {
            Self::Blink => "blink",
            Self::Gecko => "gecko",
            Self::WebKit => "webkit",
            Self::Other => "other",
        }
    }

    /// Its name, for people.
    pub fn name(self) -> &'static str {
        match self {
            Self::Blink => "Blink",
            Self::Gecko => "Gecko",
            Self::WebKit => "WebKit",
            Self::Other => "other",
        }
    }
}

/// Which path released the samples' chunks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerPath {
    /// The release-clock workers (the lab's precise path).
    Workers,
    /// The page's main thread: the workers could not run.
    MainThread,
    /// Not known yet (before the first playback, the workers still
    /// starting).
    #[default]
    Unknown,
}

impl SchedulerPath {
    /// The path of a playback from its panes' release counts: the main
    /// thread as soon as it released any chunk.
    pub fn of(panes: &[Released]) -> Self {
        let main: u32 = panes.iter().map(|r| r.main_thread + r.naive).sum();
        let workers: u32 = panes.iter().map(|r| r.workers).sum();
        match (main, workers) {
            (0, 0) => Self::Unknown,
            (0, _) => Self::Workers,
            _ => Self::MainThread,
        }
    }
}

/// A participant browser's timing capabilities (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Rendering engine.
    pub engine: Engine,
    /// `crossOriginIsolated`.
    pub isolated: bool,
    /// Smallest observed step of `performance.now()` (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_step_ms: Option<f64>,
    /// Measured display refresh rate (Hz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_hz: Option<f64>,
    /// The path that released the chunks (of the trial answered, or the one
    /// the next playback will take, before consent).
    #[serde(default)]
    pub scheduler: SchedulerPath,
}

/// Why a timing was refused by a study server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TimingError {
    /// A clock step outside (0, 1000] ms.
    #[error("the clock step must be a number of ms in (0, 1000]")]
    ClockStep,
    /// A refresh rate outside (0, 1000] Hz.
    #[error("the refresh rate must be a number of Hz in (0, 1000]")]
    Refresh,
}

impl Timing {
    /// Refuses numbers no browser reports.
    pub fn check(&self) -> Result<(), TimingError> {
        let within = |v: Option<f64>| v.is_none_or(|v| v.is_finite() && v > 0.0 && v <= 1000.0);
        if !within(self.clock_step_ms) {
            return Err(TimingError::ClockStep);
        }
        if !within(self.refresh_hz) {
            return Err(TimingError::Refresh);
        }
        Ok(())
    }

    /// What kept this browser from showing the conditions precisely, in
    /// words (empty: precise). An unknown path or refresh rate is not held
    /// against it.
    pub fn limits(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.isolated {
            out.push(
                "the page was not cross-origin isolated (coarse clock, no release-clock workers)".to_string(),
            );
        }
        if let Some(step) = self.clock_step_ms.filter(|s| *s > MAX_CLOCK_STEP_MS) {
            out.push(format!("the clock steps {step:.3} ms (precise: ≤ {MAX_CLOCK_STEP_MS} ms)"));
        }
        if let Some(hz) = self.refresh_hz.filter(|h| *h < MIN_REFRESH_HZ) {
            out.push(format!("the display refreshes at {hz:.0} Hz (precise: ≥ {MIN_REFRESH_HZ:.0} Hz)"));
        }
        if self.scheduler == SchedulerPath::MainThread {
            out.push(
                "the samples were released on the page's main thread (the release-clock workers could not run): several ms late while the page draws"
                    .to_string(),
            );
        }
        out
    }

    /// What "precise" means, for people reading results.
    pub fn rule() -> String {
        format!(
            "An answer is \"not played precisely\" when its trial ran without cross-origin isolation, with a clock coarser than {MAX_CLOCK_STEP_MS} ms, on a display under {MIN_REFRESH_HZ:.0} Hz, or with chunks released on the page's main thread because the release-clock workers could not run."
        )
    }

    /// True when nothing limited the playback.
    pub fn precise(&self) -> bool {
        self.limits().is_empty()
    }

    /// One line for the participant before consent, and for the
    /// researcher: what this browser can show.
    pub fn sentence(&self) -> String {
        let clock =
            self.clock_step_ms.map(|s| format!(", clock step {:.0} µs", s * 1000.0)).unwrap_or_default();
        let refresh = self.refresh_hz.map(|h| format!(", {h:.0} Hz")).unwrap_or_default();
        let facts = format!("{}{clock}{refresh}", self.engine.name());
        let limits = self.limits();
        if limits.is_empty() {
            format!("Your browser ({facts}) can play the samples with precise timing.")
        } else {
            format!(
                "Your browser ({facts}) cannot play the samples with precise timing: {}. You can still take part; your answers are marked so the researcher can tell.",
                limits.join("; ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn precise() -> Timing {
        Timing {
            engine: Engine::WebKit,
            isolated: true,
            clock_step_ms: Some(0.02),
            refresh_hz: Some(60.0),
            scheduler: SchedulerPath::Workers,
        }
    }

    #[test]
    fn a_precise_browser_has_no_limits() {
        let t = precise();
        assert!(t.precise(), "{:?}", t.limits());
        assert!(
            t.sentence().contains("WebKit, clock step 20 µs, 60 Hz")
                && t.sentence().contains("precise timing.")
        );
        assert_eq!(t.check(), Ok(()));
        assert!(
            Timing::rule().contains("coarser than 0.1 ms, on a display under 50 Hz"),
            "{}",
            Timing::rule()
        );
    }

    #[test]
    fn each_limit_is_named() {
        let cases: [(Timing, &str); 4] = [
            (Timing { isolated: false, ..precise() }, "not cross-origin isolated"),
            (Timing { clock_step_ms: Some(1.0), ..precise() }, "clock steps 1.000 ms"),
            (Timing { refresh_hz: Some(30.0), ..precise() }, "30 Hz"),
            (Timing { scheduler: SchedulerPath::MainThread, ..precise() }, "main thread"),
        ];
        for (t, says) in cases {
            let limits = t.limits();
            assert_eq!(limits.len(), 1, "{limits:?}");
            assert!(limits[0].contains(says), "{limits:?}");
            assert!(!t.precise());
            assert!(t.sentence().contains("cannot play the samples with precise timing"));
        }
        let unknown = Timing { scheduler: SchedulerPath::Unknown, refresh_hz: None, ..precise() };
        assert!(unknown.precise(), "what is not known is not held against it");
    }

    #[test]
    fn the_path_of_a_playback_is_the_main_thread_once_it_released_anything() {
        let w = Released { workers: 40, ..Released::default() };
        let m = Released { workers: 39, main_thread: 1, ..Released::default() };
        assert_eq!(SchedulerPath::of(&[w, w]), SchedulerPath::Workers);
        assert_eq!(SchedulerPath::of(&[w, m]), SchedulerPath::MainThread);
        assert_eq!(
            SchedulerPath::of(&[Released { naive: 3, ..Released::default() }]),
            SchedulerPath::MainThread
        );
        assert_eq!(SchedulerPath::of(&[]), SchedulerPath::Unknown);
    }

    #[test]
    fn numbers_no_browser_reports_are_refused() {
        assert_eq!(
            Timing { clock_step_ms: Some(f64::NAN), ..precise() }.check(),
            Err(TimingError::ClockStep)
        );
        assert_eq!(Timing { clock_step_ms: Some(0.0), ..precise() }.check(), Err(TimingError::ClockStep));
        assert_eq!(Timing { refresh_hz: Some(1e9), ..precise() }.check(), Err(TimingError::Refresh));
    }

    #[test]
    fn engines_round_trip_by_name() {
        for e in [Engine::Blink, Engine::Gecko, Engine::WebKit] {
            assert_eq!(Engine::from_name(Some(e.name())), e);
            assert_eq!(serde_json::to_string(&e).unwrap(), format!("\"{}\"", e.id()));
        }
        assert_eq!(Engine::from_name(Some("Presto")), Engine::Other);
        let json = serde_json::to_string(&precise()).unwrap();
        assert!(json.contains("\"engine\":\"webkit\""), "{json}");
        assert_eq!(serde_json::from_str::<Timing>(&json).unwrap(), precise());
    }
}
