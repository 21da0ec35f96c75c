//! One pane of a shared side-by-side preset, as a share link holds it
//! (`crate::share::link`): a caption, a profile spec, the prompt's tokens
//! and the pane's smoothing. Defined here, beside the panes it becomes
//! ([`super::pane::shared_panes`]), so a pane never reaches up to the link.

use serde::{Deserialize, Serialize};

use super::smooth::Smoothing;

/// One pane of a shared side-by-side preset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedPane {
    /// Caption.
    pub title: String,
    /// Profile spec (`ttft=300,tpot=20,…`).
    pub profile: String,
    /// Prompt tokens (prefill scales with it).
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Display smoothing of the pane (links made before it play unsmoothed).
    #[serde(default, skip_serializing_if = "Smoothing::is_off")]
    pub smoothing: Smoothing,
}
