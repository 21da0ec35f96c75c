//! Latency Lab, the web app: feel and measure what LLM streaming latency does
//! to users. Layers point one way: [`ui`] → [`browser`] → `lab_core`.

pub mod browser;
pub mod ui;
