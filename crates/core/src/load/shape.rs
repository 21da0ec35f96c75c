//! The shape of a live run: concurrency levels ([`RunMode`]: once, N in a
//! row, N at once, a concurrency sweep) or one of the runs that show where
//! latency comes from.

use serde::{Deserialize, Serialize};

use super::arrivals::RatePlan;
use super::probing::{ProbeLoad, ProbePlan};
use super::prompts;
use crate::measure::sweep::RunMode;

/// Most turns a conversation run takes.
pub const MAX_TURNS: u32 = 20;
/// Requests a request-rate run sends unless told otherwise: enough for
/// each of its [`crate::measure::rate::WINDOWS`] windows to hold
/// [`crate::measure::rate::MIN_PER_WINDOW`] requests and its medians to
/// show a rate.
pub const DEFAULT_RATE_REQUESTS: u32 = 60;

/// What a live run sends.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum RunShape {
    /// Concurrency levels.
    Levels {
        /// The levels.
        mode: RunMode,
    },
    /// Prompts of growing length ([`prompts::sweep_sizes`]), `rounds` of
    /// each, one request at a time, each prompt unique.
    PromptSweep {
        /// Longest prompt (pseudo tokens).
        max_tokens: u32,
        /// Requests per length.
        rounds: u32,
    },
    /// A conversation of `turns` turns with a stable first message, then
    /// the same with a changed one.
    Conversation {
        /// Turns per series.
        turns: u32,
    },
    /// Requests sent on an arrival schedule, however many are in flight.
    Rate {
        /// The schedule.
        plan: RatePlan,
    },
    /// Probes sent while a workload loads the server.
    Probe {
        /// The plan.
        plan: ProbePlan,
    },
}

impl Default for RunShape {
    fn default() -> Self {
        Self::Levels { mode: RunMode::Single }
    }
}

impl RunShape {
    /// Requests the run sends (a rate run bounded by time: its expected count).
    pub fn requests(&self) -> usize {
        match self {
            Self::Levels { mode } => mode.requests(),
            Self::PromptSweep { max_tokens, rounds } => {
                prompts::sweep_sizes(*max_tokens as usize).len() * (*rounds).max(1) as usize
            }
            Self::Conversation { turns } => 2 * (*turns).clamp(1, MAX_TURNS) as usize,
            Self::Rate { plan } => plan.send_times_ms().map_or(0, |t| t.len()),
            Self::Probe { plan } => plan.requests(),
        }
    }

    /// Requests in flight at once, at most (a rate run: unbounded, so 0).
    pub fn max_concurrency(&self) -> u32 {
        match self {
            Self::Levels { mode } => mode.max_concurrency(),
            Self::PromptSweep { .. } | Self::Conversation { .. } => 1,
            Self::Rate { .. } | Self::Probe { .. } => 0,
        }
    }
}

/// The run form's fields, whichever shape they belong to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ShapeForm {
    /// N (requests or concurrency of the levels shapes).
    pub n: u32,
    /// Requests a rate run sends (when no duration bounds it).
    pub rate_requests: u32,
    /// Batches per level, or requests per prompt length.
    pub rounds: u32,
    /// Longest prompt of a sweep (tokens).
    pub max_prompt_tokens: u32,
    /// Turns of a conversation.
    pub turns: u32,
    /// Requests per second.
    pub rate_per_s: f64,
    /// Gamma shape of the gaps (1 = Poisson).
    pub burstiness: f64,
    /// Duration of a rate run (s); when set it bounds the run instead of N.
    pub duration_s: Option<f64>,
    /// Rate at the start of a ramp.
    pub ramp_from_per_s: Option<f64>,
    /// A probe run's plan.
    #[serde(default)]
    pub probe: ProbePlan,
}

impl Default for ShapeForm {
    fn default() -> Self {
        Self {
            n: 4,
            rate_requests: DEFAULT_RATE_REQUESTS,
            rounds: 2,
            max_prompt_tokens: 4096,
            turns: 4,
            rate_per_s: 2.0,
            burstiness: 1.0,
            duration_s: None,
            ramp_from_per_s: None,
            probe: ProbePlan::default(),
        }
    }
}

/// The shapes people pick from: `(key, label)`.
pub const SHAPES: [(&str, &str); 9] = [
    ("single", "once"),
    ("repeat", "N times in a row"),
    ("concurrent", "N at once"),
    ("sweep", "concurrency sweep 1…N"),
    ("prompt_sweep", "prompt-length sweep (prefill)"),
    ("conversation", "conversation (context growth, prefix cache)"),
    ("rate", "request rate (arrivals over time)"),
    ("probe", "probe while loaded: speed sweep (built-in load)"),
    ("probe_external", "probe while loaded by another tool"),
];

impl ShapeForm {
    /// The shape named `kind` with these fields (levels for the first four
    /// keys of [`SHAPES`] and anything unknown).
    pub fn shape(&self, kind: &str, seed: u64) -> RunShape {
        match kind {
            "prompt_sweep" => {
                RunShape::PromptSweep { max_tokens: self.max_prompt_tokens, rounds: self.rounds.max(1) }
            }
            "conversation" => RunShape::Conversation { turns: self.turns.clamp(1, MAX_TURNS) },
            "rate" => RunShape::Rate {
                plan: RatePlan {
                    rate_per_s: self.rate_per_s,
                    burstiness: self.burstiness,
                    duration_s: self.duration_s,
                    requests: self.duration_s.is_none().then_some(self.rate_requests.max(1) as usize),
                    ramp_from_per_s: self.ramp_from_per_s,
                    seed,
                },
            },
            "probe" => RunShape::Probe { plan: ProbePlan { load: ProbeLoad::BuiltIn, ..self.probe } },
            "probe_external" => {
                RunShape::Probe { plan: ProbePlan { load: ProbeLoad::External, ..self.probe } }
            }
            _ => RunShape::Levels { mode: RunMode::from_choice(kind, self.n, self.rounds) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_count_their_requests() {
        assert_eq!(RunShape::default().requests(), 1);
        assert_eq!(RunShape::PromptSweep { max_tokens: 4096, rounds: 3 }.requests(), 15);
        assert_eq!(RunShape::Conversation { turns: 4 }.requests(), 8);
        let plan = RatePlan {
            rate_per_s: 5.0,
            burstiness: 1.0,
            duration_s: None,
            requests: Some(12),
            ramp_from_per_s: None,
            seed: 1,
        };
        assert_eq!(RunShape::Rate { plan }.requests(), 12);
        assert_eq!(RunShape::Levels { mode: RunMode::Sweep { max: 8, rounds: 2 } }.max_concurrency(), 8);
    }

    #[test]
    fn the_form_names_every_shape() {
        let f = ShapeForm::default();
        assert_eq!(f.shape("concurrent", 0), RunShape::Levels { mode: RunMode::Concurrent { n: 4 } });
        assert_eq!(f.shape("prompt_sweep", 0), RunShape::PromptSweep { max_tokens: 4096, rounds: 2 });
        assert_eq!(f.shape("conversation", 0), RunShape::Conversation { turns: 4 });
        let RunShape::Rate { plan } = ShapeForm { duration_s: Some(30.0), ..f }.shape("rate", 9) else {
            panic!("a rate run")
        };
        assert_eq!((plan.requests, plan.duration_s, plan.seed), (None, Some(30.0), 9));
        assert_eq!(f.shape("bogus", 0), RunShape::default());
        assert_eq!(SHAPES.len(), 9);
        assert_eq!(f.shape("probe", 0).requests(), 40);
    }

    #[test]
    fn a_default_rate_run_is_long_enough_to_show_a_rate() {
        use crate::measure::rate::{MIN_PER_WINDOW, WINDOWS};
        let shape = ShapeForm::default().shape("rate", 1);
        assert!(shape.requests() >= MIN_PER_WINDOW * WINDOWS, "{} requests", shape.requests());
        // The levels' N stays small: it is a concurrency, not a count of arrivals.
        assert_eq!(ShapeForm::default().shape("concurrent", 1).requests(), 4);
    }
}
