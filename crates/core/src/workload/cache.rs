//! What the replay endpoint's prefix cache ([`crate::serve::cache`]) will
//! report for each request of a workload sent with [`super::prompts`]'
//! prompts, predicted from the rows' `hash_ids` alone, without their text.
//!
//! The endpoint counts the prompt of a chat request as its pseudo tokens:
//! the prompt's words (one per token, [`super::prompts`]) and the newline
//! the chat framing adds, so `input_tokens + 1`. It cuts them into blocks of
//! [`BLOCK_TOKENS`]. Each token is named here by where its word came from
//! (block id, position in the block; the closing newline by a mark of its
//! own), each endpoint block by a chain over its tokens' names and the
//! blocks before it, and the same LRU of [`CAPACITY_BLOCKS`] is kept
//! ([`PrefixCache::admit_blocks`]). Requests must be predicted in the order
//! they reach the endpoint: for rows sent at the same instant that order is
//! the network's, so a test of the prediction sends rows at distinct times.

use super::Request;
use super::prompts::own_block;
use crate::replay::rng::mix64;
use crate::serve::cache::{BLOCK_TOKENS, CAPACITY_BLOCKS, PrefixCache};

/// Predicts cached tokens request by request.
#[derive(Debug, Clone)]
pub struct CachePredictor {
    cache: PrefixCache,
    block_tokens: u64,
}

impl CachePredictor {
    /// A predictor for an endpoint cache of `capacity` blocks (the
    /// endpoint's is [`CAPACITY_BLOCKS`]) and a workload of `block_tokens`
    /// tokens a `hash_ids` block.
    pub fn new(capacity: usize, block_tokens: u32) -> Self {
        Self { cache: PrefixCache::with_capacity(capacity), block_tokens: u64::from(block_tokens.max(1)) }
    }

    /// The endpoint's own size.
    pub fn endpoint(block_tokens: u32) -> Self {
        Self::new(CAPACITY_BLOCKS, block_tokens)
    }

    /// The cached tokens the endpoint reports for `r`, arriving now.
    pub fn admit(&mut self, r: &Request) -> u64 {
        let words = u64::from(r.input_tokens);
        let len = words + 1;
        let name = |p: u64| -> u64 {
            if p == words {
                return u64::MAX;
            }
            let b = p / self.block_tokens;
            let id = r.hash_ids.get(b as usize).copied().unwrap_or_else(|| own_block(r.line, b));
            mix64(mix64(id) ^ (p % self.block_tokens))
        };
        let full = len / BLOCK_TOKENS as u64;
        let mut parent = 0u64;
        let hashes: Vec<u64> = (0..full)
            .map(|k| {
                for p in k * BLOCK_TOKENS as u64..(k + 1) * BLOCK_TOKENS as u64 {
                    parent = mix64(parent ^ name(p));
                }
                parent
            })
            .collect();
        self.cache.admit_blocks(&hashes, len as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::text::pseudo_tokens;
    use crate::workload::prompts::prompt;

    fn req(ids: &[u64], tokens: u32, line: usize) -> Request {
        Request { hash_ids: ids.to_vec(), input_tokens: tokens, line, ..Request::default() }
    }

    /// The endpoint's own cache on the prompts' text, beside the prediction
    /// from ids, over a workload with shared prefixes and evictions.
    #[test]
    fn the_prediction_from_ids_equals_the_endpoint_cache_on_the_text() {
        let mut rows = Vec::new();
        let mut next = 100u64;
        for i in 0..300usize {
            let shared: Vec<u64> = match i % 4 {
                0 => vec![0, 1],
                1 => vec![0, 2, 3],
                2 => vec![],
                _ => vec![4],
            };
            let own = 1 + (i % 5) as u64;
            let ids: Vec<u64> = shared.iter().copied().chain(next..next + own).collect();
            next += own;
            let tokens = (ids.len() as u32) * 32 - (i % 31) as u32;
            rows.push(req(&ids, tokens, i + 1));
        }
        rows.push(req(&[], 47, 999));
        rows.push(req(&[0, 1], 63, 1000));
        for capacity in [CAPACITY_BLOCKS, 40] {
            let mut endpoint = PrefixCache::with_capacity(capacity);
            let mut predicted = CachePredictor::new(capacity, 32);
            let mut hits = 0;
            for r in &rows {
                let text = format!("{}\n", prompt(r, 32));
                let truth = endpoint.admit("profile:x", &pseudo_tokens(&text));
                assert_eq!(predicted.admit(r), truth, "line {} at capacity {capacity}", r.line);
                hits += u64::from(truth > 0);
            }
            assert!(hits > 100, "the workload shares prefixes: {hits} hits at capacity {capacity}");
        }
    }
}
