//! ShareGPT conversations (one JSON document): `[{"conversations": [{"from",
//! "value"}, …]}, …]`. No send times: the requests go one after another;
//! each user turn answered by the assistant is a request whose prompt is
//! the conversation so far; tokens are counted from the text.

use serde::Deserialize;

use super::{Head, Layout, Spec};
use crate::workload::{Request, Turn, WorkloadError};

/// What the readers need to know of it.
pub const SPEC: Spec =
    Spec { label: "ShareGPT", layout: Layout::Conversations, timed: false, block_tokens: None, detect };

/// A JSON list that speaks of conversations.
fn detect(head: &Head<'_>) -> bool {
    head.text.starts_with('[') && head.text.contains("\"conversations\"")
}

#[derive(Deserialize)]
struct Conversation {
    conversations: Vec<Message>,
}

#[derive(Deserialize)]
struct Message {
    from: String,
    value: String,
}

/// ShareGPT's speaker names as chat roles.
fn role(from: &str) -> Option<&'static str> {
    match from {
        "human" | "user" => Some("user"),
        "gpt" | "chatgpt" | "bard" | "bing" | "assistant" | "model" => Some("assistant"),
        "system" => Some("system"),
        _ => None,
    }
}

/// Reads a ShareGPT file (`[{"conversations": [{"from", "value"}, …]}, …]`)
/// one conversation at a time: each user turn answered by the assistant is
/// a request whose prompt is the conversation so far, in order (turns kept:
/// `session` is the conversation's index, `turn` counts from 1). `count`
/// gives a text's tokens: the model's tokenizer natively; `None` counts
/// the lab's pseudo tokens and marks the request [`Request::approximate`].
pub fn read<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    count: Option<&dyn Fn(&str) -> u32>,
    each: &mut dyn FnMut(Request),
) -> Result<usize, WorkloadError> {
    struct Each<'a> {
        count: Option<&'a dyn Fn(&str) -> u32>,
        each: &'a mut dyn FnMut(Request),
    }
    impl<'de> serde::de::Visitor<'de> for Each<'_> {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a list of conversations")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let tokens = |text: &str| match self.count {
                Some(c) => c(text),
                None => crate::replay::text::pseudo_tokens(text).len() as u32,
            };
            let mut n = 0;
            let mut index = 0u64;
            while let Some(c) = seq.next_element::<Conversation>()? {
                let mut so_far: Vec<Turn> = Vec::new();
                // Tokens of the conversation so far: each turn is counted
                // once, as it is added (a tokenizer is not cheap).
                let mut context_tokens = 0u32;
                let mut turn = 0;
                for (k, m) in c.conversations.iter().enumerate() {
                    let Some(r) = role(&m.from) else {
                        return Err(serde::de::Error::custom(format!(
                            "conversation {}: turn {} is from \"{}\", expected human, gpt or system",
                            index + 1,
                            k + 1,
                            m.from
                        )));
                    };
                    let asks = r == "assistant" && so_far.last().is_some_and(|t| t.role == "user");
                    if asks {
                        turn += 1;
                        (self.each)(Request {
                            input_tokens: context_tokens,
                            output_tokens: tokens(&m.value),
                            session: Some(index),
                            turn: Some(turn),
                            messages: so_far.clone(),
                            approximate: self.count.is_none(),
                            ..Request::default()
                        });
                        n += 1;
                    }
                    context_tokens = context_tokens.saturating_add(tokens(&m.value));
                    so_far.push(Turn { role: r.to_string(), text: m.value.clone() });
                }
                index += 1;
            }
            Ok(n)
        }
    }
    use serde::Deserializer as _;
    let n = de.deserialize_seq(Each { count, each }).map_err(|e| json_error(&e))?;
    de.end().map_err(|e| json_error(&e))?;
    Ok(n)
}

fn json_error(e: &serde_json::Error) -> WorkloadError {
    let text = e.to_string();
    let what = text.split(" at line ").next().unwrap_or(&text).to_string();
    WorkloadError::row(e.line().max(1), format!("ShareGPT: {what}"))
}
