//! # Charts: scales and the data every chart draws
//!
//! - [`scale`]: linear scales, round ticks and SVG point lists.
//! - [`plot`]: chart data (token timelines, histograms, CDFs, percentile
//!   bars against SLOs, goodput per SLO, score segments).
//! - [`threshold`]: a threshold study's staircases and its pooled
//!   psychometric curve with its band.
//!
//! The app's chart components only map this data through the scales.

pub mod plot;
pub mod scale;
pub mod threshold;

pub use scale::{LinearScale, nice_step, nice_ticks, polyline, step_polyline};
