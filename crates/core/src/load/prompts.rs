//! Prompts of a chosen length for a **prompt-length sweep**, and the
//! messages of a **conversation** run.
//!
//! Sweep prompts: an instruction, a nonce, then text from the lab's sample
//! article until the prompt has the asked number of pseudo tokens
//! ([`crate::replay::text::pseudo_tokens`]; a real tokenizer counts
//! differently, so the server's `usage.prompt_tokens` is what the fit uses
//! when it is reported). The nonce comes first, so no two requests share a
//! cached prefix unless a test asks for it.
//!
//! Conversations: turn k sends the first message, every earlier user
//! message and answer, and a new user message ([`FOLLOW_UPS`], cycled), so
//! the context grows by one exchange per turn. The **stable prefix**
//! variant keeps the first message identical in every turn (what prefix
//! caching rewards); the **changed prefix** variant puts a new nonce at
//! the start of the first message in every turn, so nothing before the
//! newest message can come from a cache.

use crate::replay::text;
pub use crate::stream::endpoint::Message;

/// The sweep's prompt sizes (pseudo tokens), up to the user's maximum.
pub const SWEEP_SIZES: [usize; 7] = [64, 256, 1024, 2048, 4096, 8192, 16384];

/// The sizes of a sweep up to `max` tokens (at least the smallest).
pub fn sweep_sizes(max: usize) -> Vec<usize> {
    let sizes: Vec<usize> = SWEEP_SIZES.iter().copied().filter(|s| *s <= max).collect();
    if sizes.is_empty() { vec![SWEEP_SIZES[0]] } else { sizes }
}

/// A prompt of about `tokens` pseudo tokens starting with `nonce`.
pub fn sized_prompt(tokens: usize, nonce: &str) -> String {
    let mut out = format!("[{nonce}] Summarise the notes below in one sentence.\n\n");
    let head = text::count_tokens(&out);
    let body = text::take_tokens(text::SAMPLES[2].text, tokens.saturating_sub(head));
    for piece in body {
        out.push_str(&piece);
    }
    out
}

pub use crate::trace::series::Prefix;

/// What the user says in turn 1, 2, … (cycled).
pub const FOLLOW_UPS: [&str; 6] = [
    "Explain in a short paragraph why time to first token matters for a chat assistant.",
    "Now give one concrete example from a coding assistant.",
    "How does the length of the conversation change that?",
    "What would you measure first on a new server, and why?",
    "Summarise everything so far in three bullet points.",
    "Which of those points matters most for an agent that calls tools?",
];

/// The messages of turn `turn` (0-based) of a conversation whose first
/// message is `first` and whose earlier answers are `answers` (one per
/// earlier turn).
pub fn turn_messages(
    first: &str,
    prefix: Prefix,
    turn: usize,
    answers: &[String],
    run_nonce: &str,
) -> Vec<Message> {
    let first = match prefix {
        Prefix::Stable => first.to_string(),
        Prefix::Changed => format!("[{run_nonce}-{turn}] {first}"),
    };
    let mut out = vec![Message::new("system", &first)];
    for (k, answer) in answers.iter().enumerate().take(turn) {
        out.push(Message::new("user", FOLLOW_UPS[k % FOLLOW_UPS.len()]));
        out.push(Message::new("assistant", answer));
    }
    out.push(Message::new("user", FOLLOW_UPS[turn % FOLLOW_UPS.len()]));
    out
}

/// The pseudo tokens of some messages (role names aside).
pub fn count_message_tokens(messages: &[Message]) -> usize {
    messages.iter().map(|m| text::count_tokens(&m.content)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sized_prompts_have_about_the_size_and_differ_from_the_start() {
        for n in [64, 1024, 4096] {
            let p = sized_prompt(n, "r1-0");
            let got = text::count_tokens(&p);
            assert!(got.abs_diff(n) <= n / 50 + 2, "{got} tokens for {n}");
        }
        let (a, b) = (sized_prompt(256, "a"), sized_prompt(256, "b"));
        assert_ne!(text::pseudo_tokens(&a)[..3], text::pseudo_tokens(&b)[..3]);
        assert_eq!(sweep_sizes(4096), [64, 256, 1024, 2048, 4096]);
        assert_eq!(sweep_sizes(10), [64]);
    }

    #[test]
    fn a_conversation_grows_by_one_exchange_per_turn() {
        let answers = vec!["First answer.".to_string(), "Second answer.".to_string()];
        let t0 = turn_messages("You are brief.", Prefix::Stable, 0, &answers, "n");
        let t2 = turn_messages("You are brief.", Prefix::Stable, 2, &answers, "n");
        assert_eq!(t0.len(), 2);
        assert_eq!(t2.len(), 6);
        assert_eq!(t2[4].content, "Second answer.");
        assert_eq!(t2[5].content, FOLLOW_UPS[2]);
        assert_eq!(t0[0], t2[0], "the stable prefix stays");
        assert!(count_message_tokens(&t2) > count_message_tokens(&t0));
        let c1 = turn_messages("You are brief.", Prefix::Changed, 1, &answers, "n");
        let c2 = turn_messages("You are brief.", Prefix::Changed, 2, &answers, "n");
        assert_ne!(c1[0], c2[0], "a new first message each turn");
        assert_eq!(c2[1..], t2[1..]);
    }
}
