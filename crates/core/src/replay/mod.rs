//! # Replay: profiles and recorded requests played with exact timing
//!
//! - [`profile`]: synthetic latency profiles (seeded TTFT, TPOT, jitter,
//!   stalls, bursts, prefill) and their schedules; named presets.
//! - [`text`]: the sample texts and their split into pseudo tokens.
//! - [`rng`]: the seeded, platform-independent random numbers profiles use.
//! - [`story`]: side-by-side presets that each tell one story of the thesis.
//! - [`draft`]: a profile being edited, field by field.
//! - [`pane`]: what a pane plays (a profile or a recorded request) and the
//!   record of how it played, with the live figures of
//!   [`crate::stream::live`].
//! - [`chunk`]: one chunk a pane plays; [`shared`]: a pane as a share
//!   link holds it.
//! - [`player`]: the replay state machine (what is due when, under play,
//!   pause and speed changes) and the scheduler's fidelity.

pub mod cadence;
pub mod chunk;
pub mod draft;
pub mod pane;
pub mod player;
pub mod profile;
pub mod rng;
pub mod shared;
pub mod smooth;
pub mod smoother;
pub mod story;
pub mod text;
