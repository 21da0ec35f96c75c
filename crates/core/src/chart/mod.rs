//! # Charts: scales and the data every chart draws
//!
//! - [`scale`]: linear scales, round ticks and SVG point lists.
//! - [`plot`]: chart data (token timelines, histograms, CDFs, percentile
//!   bars against SLOs, goodput per SLO, score segments).
//!
//! The app's chart components only map this data through the scales.

pub mod plot;
pub mod scale;

pub use scale::{LinearScale, nice_step, nice_ticks, polyline, step_polyline};
