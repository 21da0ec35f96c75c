//! Prompts that keep a workload's cache behaviour: each `hash_ids` block
//! becomes a deterministic run of words, one word per token of the block,
//! so requests that share ids share a text prefix and therefore a token
//! prefix on a real engine with prefix caching; different ids give
//! different words.
//!
//! A block's words are common English words, each with a leading space:
//! one token each in BPE vocabularies (cl100k, Llama's) and exactly one
//! pseudo token of the lab's own split ([`crate::replay::text`]), which the
//! replay endpoint's prefix cache counts in. A prompt is its blocks' words,
//! cut at the request's `input_length` (the last block is usually partial);
//! rows without blocks get words of their own (seeded by their line), so
//! they share nothing.

use super::Request;
use crate::replay::rng::mix64;

/// Single-token words (with a leading space in the prompt), none longer
/// than the pseudo split's longest piece ([`crate::replay::text::MAX_PIECE_CHARS`]).
const WORDS: [&str; 64] = [
    "time", "year", "people", "way", "day", "man", "thing", "woman", "life", "child", "world", "school",
    "state", "family", "group", "hand", "part", "place", "case", "week", "system", "work", "number", "night",
    "point", "home", "water", "room", "mother", "area", "money", "story", "fact", "month", "lot", "right",
    "study", "book", "eye", "job", "word", "issue", "side", "kind", "head", "house", "friend", "father",
    "power", "hour", "game", "line", "end", "member", "law", "car", "city", "name", "team", "minute", "idea",
    "body", "face", "door",
];

/// Word `j` of block `id`.
fn word(id: u64, j: u64) -> &'static str {
    WORDS[(mix64(mix64(id) ^ j) % WORDS.len() as u64) as usize]
}

/// Ids of the blocks of rows without `hash_ids` start here (far from the
/// files' own small ids).
const OWN_BLOCKS: u64 = 1 << 62;

/// The id standing for block `b` of the row on `line`, past its `hash_ids`
/// (rows without blocks, or longer than them): its own, shared with no one.
pub fn own_block(line: usize, b: u64) -> u64 {
    OWN_BLOCKS + ((line as u64) << 20) + b
}

/// The prompt of `r`: `input_tokens` words, block by block
/// (`block_tokens` words a block).
pub fn prompt(r: &Request, block_tokens: u32) -> String {
    let n = r.input_tokens as usize;
    let block = block_tokens.max(1) as usize;
    let mut out = String::with_capacity(n * 7);
    for k in 0..n {
        let (b, j) = (k / block, (k % block) as u64);
        let id = r.hash_ids.get(b).copied().unwrap_or_else(|| own_block(r.line, b as u64));
        out.push(' ');
        out.push_str(word(id, j));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::text::pseudo_tokens;

    fn req(ids: &[u64], tokens: u32, line: usize) -> Request {
        Request { hash_ids: ids.to_vec(), input_tokens: tokens, line, ..Request::default() }
    }

    #[test]
    fn one_pseudo_token_a_word_and_shared_ids_share_a_prefix() {
        let a = prompt(&req(&[0, 1, 2], 40, 1), 16);
        let b = prompt(&req(&[0, 1, 9], 40, 2), 16);
        assert_eq!(pseudo_tokens(&a).len(), 40);
        assert_eq!(pseudo_tokens(&format!("{a}\n")).len(), 41, "the chat framing's newline is one more");
        let (ta, tb) = (pseudo_tokens(&a), pseudo_tokens(&b));
        let shared = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
        assert!(shared >= 32, "two shared blocks of 16: {shared}");
        assert_ne!(ta[32..], tb[32..], "the third block differs");
        assert_eq!(a, prompt(&req(&[0, 1, 2], 40, 7), 16), "the same ids, the same words");
        let own1 = prompt(&req(&[], 30, 1), 16);
        let own2 = prompt(&req(&[], 30, 2), 16);
        assert_eq!(pseudo_tokens(&own1).len(), 30);
        assert_ne!(
            pseudo_tokens(&own1)[..16],
            pseudo_tokens(&own2)[..16],
            "rows without blocks share nothing"
        );
        assert!(WORDS.iter().all(|w| pseudo_tokens(&format!(" {w}")).len() == 1));
    }
}
