//! The compact text form of a profile, used in model names and links.

use std::fmt;
use std::str::FromStr;

use super::{Jitter, Profile, ProfileError, StallModel, TextSource};
use crate::replay::text;

/// The compact spec form used in model names (`profile:ttft=300,tpot=20`):
/// `ttft`, `ttft_cv`, `prefill` (ms per prompt token), `tpot`,
/// `jitter=constant|normal:CV|lognormal:CV|gamma:CV`, `stall=P:MEAN_MS[:CV]` (or `stall=once:MS@TOKEN`, one pause before that token),
/// `burst`, `tokens`, `seed`, `text=chat|code|article`, `name`,
/// `tool_call=NAME:ARG_TOKENS[+NAME:ARG_TOKENS]` ([`super::tool`]),
/// `reasoning=N` (N reasoning tokens before the answer); for the replay
/// endpoint's server model `cache=on|off` (prefix cache,
/// [`crate::serve::cache`]) and `slots=N` (at most N requests decode at
/// once, [`crate::serve::capacity`]).
/// Omitted keys keep [`Profile::simple`]'s defaults (TTFT 200 ms, TPOT 25 ms,
/// 200 tokens).
impl FromStr for Profile {
    type Err = ProfileError;

    fn from_str(s: &str) -> Result<Self, ProfileError> {
        let mut p = Profile::simple("custom", 200.0, 25.0, 200);
        let bad = |item: &str, why: &str| ProfileError::Spec { item: item.to_string(), why: why.to_string() };
        let num = |item: &str, v: &str| v.parse::<f64>().map_err(|_| bad(item, "not a number"));
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| bad(item, "expected key=value"))?;
            match key {
                "ttft" => p.ttft_ms = num(item, value)?,
                "ttft_cv" => p.ttft_cv = num(item, value)?,
                "prefill" => p.prefill_ms_per_token = num(item, value)?,
                "tpot" | "itl" => p.tpot_ms = num(item, value)?,
                "jitter" => {
                    let (kind, cv) = value.split_once(':').unwrap_or((value, "0"));
                    let cv = num(item, cv)?;
                    p.jitter = match kind {
                        "constant" => Jitter::Constant,
                        "normal" => Jitter::Normal { cv },
                        "lognormal" => Jitter::LogNormal { cv },
                        "gamma" => Jitter::Gamma { cv },
                        _ => {
                            return Err(bad(item, "jitter is constant, normal:CV, lognormal:CV or gamma:CV"));
                        }
                    };
                }
                "stall" if value.starts_with("once:") => {
                    let (ms, at) = value["once:".len()..]
                        .split_once('@')
                        .ok_or_else(|| bad(item, "a single stall is once:MS@TOKEN"))?;
                    p.stall = Some(StallModel {
                        probability: 0.0,
                        mean_ms: num(item, ms)?,
                        cv: 0.0,
                        at_token: Some(
                            at.parse().map_err(|_| bad(item, "the stall's token is a whole number"))?,
                        ),
                    });
                }
                "stall" => {
                    let parts: Vec<&str> = value.split(':').collect();
                    if !(2..=3).contains(&parts.len()) {
                        return Err(bad(item, "stall is PROBABILITY:MEAN_MS[:CV]"));
                    }
                    p.stall = Some(StallModel {
                        probability: num(item, parts[0])?,
                        mean_ms: num(item, parts[1])?,
                        cv: parts.get(2).map_or(Ok(0.5), |c| num(item, c))?,
                        at_token: None,
                    });
                }
                "burst" => p.burst = value.parse().map_err(|_| bad(item, "burst is a whole number ≥ 1"))?,
                "tokens" => {
                    p.output_tokens = value.parse().map_err(|_| bad(item, "tokens is a whole number"))?
                }
                "seed" => p.seed = value.parse().map_err(|_| bad(item, "seed is a whole number"))?,
                "text" => {
                    if text::sample(value).is_none() {
                        return Err(bad(item, "text is chat, code or article"));
                    }
                    p.text = TextSource::Sample { id: value.to_string() };
                }
                "name" => p.name = value.to_string(),
                "tool_call" | "tool_calls" => p.tool_calls = super::tool::parse(item, value)?,
                "reasoning" => {
                    p.reasoning_tokens = value
                        .parse()
                        .ok()
                        .filter(|n| *n <= super::MAX_OUTPUT_TOKENS)
                        .ok_or_else(|| bad(item, "reasoning is a whole number of tokens"))?
                }
                "cache" => {
                    p.cache = Some(match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad(item, "cache is on or off")),
                    })
                }
                "slots" => {
                    p.slots = Some(value.parse().map_err(|_| bad(item, "slots is a whole number ≥ 1"))?)
                }
                _ => return Err(bad(item, "unknown key")),
            }
        }
        p.validate()?;
        Ok(p)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ttft={},tpot={}", self.ttft_ms, self.tpot_ms)?;
        if self.ttft_cv > 0.0 {
            write!(f, ",ttft_cv={}", self.ttft_cv)?;
        }
        if self.prefill_ms_per_token > 0.0 {
            write!(f, ",prefill={}", self.prefill_ms_per_token)?;
        }
        match &self.jitter {
            Jitter::Constant => write!(f, ",jitter=constant")?,
            Jitter::Normal { cv } => write!(f, ",jitter=normal:{cv}")?,
            Jitter::LogNormal { cv } => write!(f, ",jitter=lognormal:{cv}")?,
            Jitter::Gamma { cv } => write!(f, ",jitter=gamma:{cv}")?,
            Jitter::Empirical { values_ms } => write!(f, ",jitter=empirical({} values)", values_ms.len())?,
        }
        match self.stall {
            Some(StallModel { at_token: Some(at), mean_ms, .. }) => write!(f, ",stall=once:{mean_ms}@{at}")?,
            Some(s) => write!(f, ",stall={}:{}:{}", s.probability, s.mean_ms, s.cv)?,
            None => {}
        }
        if self.burst != 1 {
            write!(f, ",burst={}", self.burst)?;
        }
        write!(f, ",tokens={},seed={}", self.output_tokens, self.seed)?;
        if let TextSource::Sample { id } = &self.text {
            write!(f, ",text={id}")?;
        }
        if self.reasoning_tokens > 0 {
            write!(f, ",reasoning={}", self.reasoning_tokens)?;
        }
        if !self.tool_calls.is_empty() {
            write!(f, ",tool_call={}", super::tool::spec(&self.tool_calls))?;
        }
        if let Some(c) = self.cache {
            write!(f, ",cache={}", if c { "on" } else { "off" })?;
        }
        if let Some(n) = self.slots {
            write!(f, ",slots={n}")?;
        }
        Ok(())
    }
}
