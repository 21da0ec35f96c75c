//! Tool calls at the end of a profile's answer, so agent latency can be
//! demoed, replayed and studied without a model.
//!
//! Spec key: `tool_call=NAME:ARG_TOKENS`, several joined with `+` for
//! parallel calls (`tool_call=get_weather:12+get_time:4`); with `tokens=0`
//! the response is the calls alone. Each call streams as OpenAI streams
//! one: a first fragment with its name (one token), then `ARG_TOKENS`
//! pieces of its JSON arguments (one token each), at the profile's
//! inter-token pace after the text. The arguments are a valid JSON object
//! once complete: `{"query": "w1 w2 …"}`.

use serde::{Deserialize, Serialize};

use super::ProfileError;

/// One call of a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallSpec {
    /// The function called.
    pub name: String,
    /// Pieces its arguments stream in (≥ 2).
    pub arg_tokens: u32,
}

/// Most argument pieces of one call.
pub const MAX_ARG_TOKENS: u32 = 100_000;

/// Most calls in one response.
pub const MAX_CALLS: usize = 16;

/// Parses `NAME:ARGS[+NAME:ARGS…]`.
pub fn parse(item: &str, value: &str) -> Result<Vec<ToolCallSpec>, ProfileError> {
    let bad = |why: &str| ProfileError::Spec { item: item.to_string(), why: why.to_string() };
    let calls = value
        .split('+')
        .map(|one| {
            let (name, n) =
                one.split_once(':').ok_or_else(|| bad("tool_call is NAME:ARG_TOKENS[+NAME:ARG_TOKENS]"))?;
            let ok_name = !name.is_empty()
                && name.len() <= 64
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok_name {
                return Err(bad("a tool name is 1-64 letters, digits, _ or -"));
            }
            let arg_tokens = n.parse::<u32>().ok().filter(|n| (2..=MAX_ARG_TOKENS).contains(n));
            let arg_tokens = arg_tokens.ok_or_else(|| bad("ARG_TOKENS is a whole number within 2-100000"))?;
            Ok(ToolCallSpec { name: name.to_string(), arg_tokens })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if calls.len() > MAX_CALLS {
        return Err(bad("at most 16 calls"));
    }
    Ok(calls)
}

/// The spec form of `calls` (empty when none).
pub fn spec(calls: &[ToolCallSpec]) -> String {
    calls.iter().map(|c| format!("{}:{}", c.name, c.arg_tokens)).collect::<Vec<_>>().join("+")
}

/// The argument pieces of a call of `n` pieces; joined, a JSON object.
pub fn argument_pieces(n: u32) -> Vec<String> {
    let n = n.max(2) as usize;
    let mut out = Vec::with_capacity(n);
    out.push("{\"query\": \"".to_string());
    for i in 1..n - 1 {
        out.push(if i + 1 < n - 1 { format!("w{i} ") } else { format!("w{i}") });
    }
    out.push("\"}".to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        let calls = parse("tool_call=a:5+get_time:2", "a:5+get_time:2").unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(spec(&calls), "a:5+get_time:2");
        for bad in ["a", "a:1", "a:x", ":3", "a b:3", "a:100001"] {
            assert!(parse("tool_call", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arguments_are_json_once_complete() {
        for n in [2, 3, 4, 50] {
            let pieces = argument_pieces(n);
            assert_eq!(pieces.len(), n as usize);
            let v: serde_json::Value = serde_json::from_str(&pieces.concat()).unwrap();
            assert!(v["query"].is_string());
        }
    }
}
