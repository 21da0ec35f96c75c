//! Confounds: ways the conditions of a study differ besides the latency
//! the researcher means to compare, which would then explain the answers
//! as well as the latency does.
//!
//! - **Length**: the conditions stream different numbers of tokens (a
//!   longer answer takes longer whatever its pace). Recorded requests
//!   count their tokens.
//! - **Text**: a profile spec names a text (`text=article`) other than the
//!   study's. Every condition streams the study's text (the spec's is
//!   ignored), so the spec says something that does not happen.
//! - **Seed**: conditions that draw random gaps or stalls use different
//!   seeds, so they differ in which gaps came out long, not only in how
//!   the gaps are distributed.
//!
//! [`equalise`] removes what can be removed: every profile condition gets
//! the most common length (ties: the first condition's), the study's text
//! and the first random condition's seed. Recorded requests stay as they
//! were recorded.

use super::{ConditionSource, Study};
use crate::replay::profile::{Jitter, Profile, TextSource};

/// One way the conditions differ besides latency.
#[derive(Debug, Clone, PartialEq)]
pub enum Confound {
    /// Output tokens per condition id (some differ).
    Length(Vec<(String, u64)>),
    /// Conditions whose spec names another text, with that text.
    Text(Vec<(String, String)>),
    /// Seeds of the conditions with random gaps or stalls (some differ).
    Seed(Vec<(String, u64)>),
}

impl Confound {
    /// The warning, in words.
    pub fn describe(&self, study_text: &str) -> String {
        let list = |v: &[(String, String)]| {
            v.iter().map(|(id, x)| format!("{id}: {x}")).collect::<Vec<_>>().join(", ")
        };
        match self {
            Self::Length(v) => format!(
                "Length differs ({}): a longer answer takes longer at any pace, so ratings may follow length rather than latency.",
                list(&v.iter().map(|(id, n)| (id.clone(), format!("{n} tokens"))).collect::<Vec<_>>())
            ),
            Self::Text(v) => format!(
                "Text named in a spec ({}): every condition streams the study's text ({study_text}); the spec's text is ignored.",
                list(v)
            ),
            Self::Seed(v) => format!(
                "Random gaps with different seeds ({}): conditions differ in which gaps came out long, not only in how gaps are spread.",
                list(&v.iter().map(|(id, s)| (id.clone(), format!("seed {s}"))).collect::<Vec<_>>())
            ),
        }
    }
}

fn random(p: &Profile) -> bool {
    !matches!(p.jitter, Jitter::Constant) || p.stall.is_some() || p.ttft_cv > 0.0
}

/// Profile conditions with their profiles (specs that do not parse are
/// left to [`Study::validate`]).
fn profiles(study: &Study) -> Vec<(String, Profile)> {
    study.conditions.iter().filter_map(|c| Some((c.id.clone(), c.profile().ok()??))).collect()
}

/// How the conditions of `study` differ besides latency.
pub fn confounds(study: &Study) -> Vec<Confound> {
    let profiles = profiles(study);
    let mut out = Vec::new();
    let lengths: Vec<(String, u64)> = study
        .conditions
        .iter()
        .filter_map(|c| match &c.source {
            ConditionSource::Recorded(r) => {
                Some((c.id.clone(), r.chunks.iter().map(|k| u64::from(k.tokens)).sum()))
            }
            ConditionSource::Profile(_) => profiles
                .iter()
                .find(|(id, _)| id == &c.id)
                .map(|(id, p)| (id.clone(), u64::from(p.output_tokens))),
        })
        .collect();
    if lengths.windows(2).any(|w| w[0].1 != w[1].1) {
        out.push(Confound::Length(lengths));
    }
    let texts: Vec<(String, String)> = profiles
        .iter()
        .filter_map(|(id, p)| match &p.text {
            TextSource::Sample { id: t } if t != &study.text => Some((id.clone(), t.clone())),
            _ => None,
        })
        .collect();
    if !texts.is_empty() {
        out.push(Confound::Text(texts));
    }
    let seeds: Vec<(String, u64)> =
        profiles.iter().filter(|(_, p)| random(p)).map(|(id, p)| (id.clone(), p.seed)).collect();
    if seeds.windows(2).any(|w| w[0].1 != w[1].1) {
        out.push(Confound::Seed(seeds));
    }
    out
}

/// Makes the profile conditions of `study` equal in length, text and seed.
pub fn equalise(study: &mut Study) {
    let profiles = profiles(study);
    let mut counts: Vec<(u32, usize)> = Vec::new();
    for (_, p) in &profiles {
        match counts.iter_mut().find(|(n, _)| *n == p.output_tokens) {
            Some(c) => c.1 += 1,
            None => counts.push((p.output_tokens, 1)),
        }
    }
    // The most common length; `max_by_key` keeps the last of equals, so
    // walk in reverse to keep the first condition's on a tie.
    let Some(&(tokens, _)) = counts.iter().rev().max_by_key(|(_, n)| *n) else { return };
    let seed = profiles.iter().find(|(_, p)| random(p)).map(|(_, p)| p.seed);
    for c in &mut study.conditions {
        let Some((_, mut p)) = profiles.iter().find(|(id, _)| id == &c.id).cloned() else { continue };
        p.output_tokens = tokens;
        p.text = TextSource::Sample { id: study.text.clone() };
        if let Some(s) = seed.filter(|_| random(&p)) {
            p.seed = s;
        }
        c.source = ConditionSource::Profile(p.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jittery_preset_beside_two_short_conditions_is_three_confounds() {
        let mut s = Study::example();
        s.conditions[0].source =
            ConditionSource::Profile("ttft=200,tpot=40,jitter=constant,tokens=80,text=chat".into());
        s.conditions[1].source =
            ConditionSource::Profile("ttft=900,tpot=40,jitter=gamma:0.5,tokens=80,seed=9".into());
        s.use_preset(2, "jittery");
        let found = confounds(&s);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(matches!(&found[0], Confound::Length(v) if v[2] == ("c3".to_string(), 150)));
        assert_eq!(found[1], Confound::Text(vec![("c3".into(), "article".into())]));
        assert!(matches!(&found[2], Confound::Seed(v) if v.len() == 2));
        assert!(found[0].describe("chat").contains("c3: 150 tokens"));
        assert!(found[1].describe("chat").contains("streams the study's text (chat)"));
        equalise(&mut s);
        assert_eq!(confounds(&s), vec![], "{:?}", s.conditions);
        s.validate().unwrap();
        let p = s.conditions[2].profile().unwrap().unwrap();
        assert_eq!(
            (p.output_tokens, p.seed, p.ttft_ms, p.tpot_ms),
            (80, 9, 300.0, 30.0),
            "only length, text, seed change"
        );
        assert!(matches!(p.jitter, Jitter::Gamma { .. }));
    }

    #[test]
    fn the_example_differs_only_in_latency() {
        // c1 and c2 are constant (their seed draws nothing); c3 alone is random.
        assert_eq!(confounds(&Study::example()), vec![]);
    }
}
