//! A profile being edited in a replay pane: the profile, the prompt length
//! its prefill model sees, and the editor's fields, each read and written
//! here so the editor only shows them. Writes never validate (a half-typed
//! value may be out of range); [`Profile::validate`] says what is wrong
//! before a draft is applied.

use crate::replay::profile::{Jitter, Profile, StallModel, TextSource};

/// Stall length a draft starts with when stalls are switched on (ms).
pub const DEFAULT_STALL_MS: f64 = 800.0;
/// Smallest jitter CV given when switching from constant to a distribution.
pub const MIN_JITTER_CV: f64 = 0.1;

/// A profile being edited, with the prompt length for its prefill model.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileDraft {
    /// The profile.
    pub profile: Profile,
    /// Prompt tokens fed to the prefill model.
    pub prompt_tokens: u64,
}

/// The editor's number fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraftField {
    /// Mean TTFT (ms).
    Ttft,
    /// Mean TPOT (ms).
    Tpot,
    /// Jitter coefficient of variation.
    JitterCv,
    /// Chance of a stall before each chunk.
    StallChance,
    /// Mean stall length (ms).
    StallMs,
    /// Tokens per chunk after the first.
    Burst,
    /// Output tokens.
    Tokens,
    /// Prompt tokens.
    PromptTokens,
    /// Prefill time per prompt token (ms).
    Prefill,
    /// Random seed.
    Seed,
}

impl DraftField {
    /// The fields in the editor's order.
    pub const ALL: [Self; 10] = [
        Self::Ttft,
        Self::Tpot,
        Self::JitterCv,
        Self::StallChance,
        Self::StallMs,
        Self::Burst,
        Self::Tokens,
        Self::PromptTokens,
        Self::Prefill,
        Self::Seed,
    ];

    /// Label, test-id key and input step.
    pub fn describe(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::Ttft => ("TTFT (ms)", "ttft", "10"),
            Self::Tpot => ("TPOT (ms)", "tpot", "1"),
            Self::JitterCv => ("Jitter CV", "cv", "0.05"),
            Self::StallChance => ("Stall chance", "stall-p", "0.01"),
            Self::StallMs => ("Stall (ms)", "stall-ms", "50"),
            Self::Burst => ("Burst (tokens)", "burst", "1"),
            Self::Tokens => ("Tokens", "tokens", "10"),
            Self::PromptTokens => ("Prompt tokens", "prompt", "100"),
            Self::Prefill => ("Prefill (ms/token)", "prefill", "0.05"),
            Self::Seed => ("Seed", "seed", "1"),
        }
    }

    /// The field's value in `d`.
    pub fn get(self, d: &ProfileDraft) -> f64 {
        let p = &d.profile;
        match self {
            Self::Ttft => p.ttft_ms,
            Self::Tpot => p.tpot_ms,
            Self::JitterCv => d.jitter_cv(),
            Self::StallChance => p.stall.map_or(0.0, |s| s.probability),
            Self::StallMs => p.stall.map_or(DEFAULT_STALL_MS, |s| s.mean_ms),
            Self::Burst => f64::from(p.burst),
            Self::Tokens => f64::from(p.output_tokens),
            Self::PromptTokens => d.prompt_tokens as f64,
            Self::Prefill => p.prefill_ms_per_token,
            Self::Seed => p.seed as f64,
        }
    }

    /// Sets the field in `d` (counts are cut to whole, non-negative numbers;
    /// a stall chance of 0 switches stalls off).
    pub fn set(self, d: &mut ProfileDraft, v: f64) {
        let p = &mut d.profile;
        match self {
            Self::Ttft => p.ttft_ms = v,
            Self::Tpot => p.tpot_ms = v,
            Self::JitterCv => {
                p.jitter = match p.jitter {
                    Jitter::Normal { .. } => Jitter::Normal { cv: v },
                    Jitter::LogNormal { .. } => Jitter::LogNormal { cv: v },
                    Jitter::Gamma { .. } => Jitter::Gamma { cv: v },
                    ref other => other.clone(),
                }
            }
            Self::StallChance => {
                let s = p.stall.unwrap_or(StallModel {
                    probability: 0.0,
                    mean_ms: DEFAULT_STALL_MS,
                    cv: 0.5,
                    at_token: None,
                });
                p.stall = (v > 0.0).then_some(StallModel { probability: v, ..s });
            }
            Self::StallMs => {
                if let Some(s) = &mut p.stall {
                    s.mean_ms = v;
                }
            }
            Self::Burst => p.burst = v.max(0.0) as u32,
            Self::Tokens => p.output_tokens = v.max(0.0) as u32,
            Self::PromptTokens => d.prompt_tokens = v.max(0.0) as u64,
            Self::Prefill => p.prefill_ms_per_token = v,
            Self::Seed => p.seed = v.max(0.0) as u64,
        }
    }
}

/// The jitter kinds the editor offers (`empirical` comes from traces only).
pub const JITTER_KINDS: [(&str, &str); 5] = [
    ("constant", "constant"),
    ("normal", "normal"),
    ("lognormal", "log-normal"),
    ("gamma", "gamma"),
    ("empirical", "from a trace"),
];

impl ProfileDraft {
    /// The jitter's kind (an id of [`JITTER_KINDS`]).
    pub fn jitter_kind(&self) -> &'static str {
        match self.profile.jitter {
            Jitter::Constant => "constant",
            Jitter::Normal { .. } => "normal",
            Jitter::LogNormal { .. } => "lognormal",
            Jitter::Gamma { .. } => "gamma",
            Jitter::Empirical { .. } => "empirical",
        }
    }

    /// The jitter's coefficient of variation (0 when it has none).
    pub fn jitter_cv(&self) -> f64 {
        match self.profile.jitter {
            Jitter::Normal { cv } | Jitter::LogNormal { cv } | Jitter::Gamma { cv } => cv,
            _ => 0.0,
        }
    }

    /// Switches the jitter's kind, keeping its CV (at least
    /// [`MIN_JITTER_CV`]).
    pub fn set_jitter_kind(&mut self, kind: &str) {
        let cv = self.jitter_cv().max(MIN_JITTER_CV);
        self.profile.jitter = match kind {
            "constant" => Jitter::Constant,
            "normal" => Jitter::Normal { cv },
            "lognormal" => Jitter::LogNormal { cv },
            _ => Jitter::Gamma { cv },
        };
    }

    /// The sample text's id, or `custom` for the user's own text.
    pub fn text_id(&self) -> String {
        match &self.profile.text {
            TextSource::Sample { id } => id.clone(),
            _ => "custom".into(),
        }
    }

    /// Streams one of the sample texts (`custom` keeps the text as it is).
    pub fn set_sample(&mut self, id: &str) {
        if id != "custom" {
            self.profile.text = TextSource::Sample { id: id.to_string() };
        }
    }

    /// Streams the user's own text (blank text keeps the text as it is).
    pub fn set_own_text(&mut self, text: String) {
        if !text.trim().is_empty() {
            self.profile.text = TextSource::Custom { text };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::profile::preset;

    #[test]
    fn fields_read_what_they_write() {
        let mut d = ProfileDraft { profile: preset("fast-start").unwrap(), prompt_tokens: 200 };
        d.set_jitter_kind("gamma");
        for f in DraftField::ALL {
            f.set(&mut d, 3.0);
            assert_eq!(f.get(&d), 3.0, "{f:?}");
        }
        DraftField::StallChance.set(&mut d, 0.0);
        assert_eq!(d.profile.stall, None, "a chance of 0 switches stalls off");
        assert_eq!(DraftField::StallMs.get(&d), DEFAULT_STALL_MS);
        DraftField::Tokens.set(&mut d, -5.0);
        assert_eq!(d.profile.output_tokens, 0);
    }

    #[test]
    fn jitter_and_text_switch_kinds() {
        let mut d = ProfileDraft { profile: preset("fast-start").unwrap(), prompt_tokens: 0 };
        d.set_jitter_kind("constant");
        assert_eq!((d.jitter_kind(), d.jitter_cv()), ("constant", 0.0));
        d.set_jitter_kind("lognormal");
        assert_eq!((d.jitter_kind(), d.jitter_cv()), ("lognormal", MIN_JITTER_CV));
        DraftField::JitterCv.set(&mut d, 0.7);
        d.set_jitter_kind("normal");
        assert_eq!((d.jitter_kind(), d.jitter_cv()), ("normal", 0.7), "the CV is kept");
        d.set_sample("code");
        assert_eq!(d.text_id(), "code");
        d.set_own_text("  ".into());
        assert_eq!(d.text_id(), "code", "blank text changes nothing");
        d.set_own_text("Hello".into());
        assert_eq!(d.text_id(), "custom");
        d.set_sample("custom");
        assert_eq!(d.profile.text, TextSource::Custom { text: "Hello".into() });
        for (id, _) in &JITTER_KINDS[..4] {
            d.set_jitter_kind(id);
            assert_eq!(d.jitter_kind(), *id);
        }
    }
}
