//! The replay endpoint's **prefix cache**: what a server with automatic
//! prefix caching (vLLM's APC, SGLang's radix cache, llama.cpp's slot cache)
//! saves when a prompt starts like a recent one.
//!
//! Model (vLLM's block hashing): the prompt's pseudo tokens
//! ([`crate::replay::text::pseudo_tokens`]) are cut into blocks of
//! [`BLOCK_TOKENS`]; block j is named by a hash of the model name, the
//! blocks before it and its own tokens, so a block only matches when
//! everything before it matches too. A prompt's **cached tokens** are the
//! tokens of its leading blocks already in the cache, and at most the
//! prompt length − 1 (the last token is always computed, as in vLLM).
//! After the lookup every full block of the prompt is inserted (the prefill
//! fills them). The cache holds [`CAPACITY_BLOCKS`] blocks and evicts the
//! least recently used one. Prefill then costs `prefill` ms per uncached
//! prompt token only.
//!
//! Simplification: blocks are inserted when the request arrives, not when
//! its prefill ends, so two identical prompts arriving together share.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};

/// Tokens per cache block (vLLM's default block size).
pub const BLOCK_TOKENS: usize = 16;

/// Blocks the cache holds (1 Mi tokens).
pub const CAPACITY_BLOCKS: usize = 65_536;

/// An LRU cache of prompt blocks.
#[derive(Debug, Clone)]
pub struct PrefixCache {
    capacity: usize,
    /// Block hash → tick of its last use.
    blocks: HashMap<u64, u64>,
    /// Tick → block hash, oldest first.
    by_age: BTreeMap<u64, u64>,
    tick: u64,
}

impl Default for PrefixCache {
    fn default() -> Self {
        Self::with_capacity(CAPACITY_BLOCKS)
    }
}

impl PrefixCache {
    /// An empty cache of `capacity` blocks (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self { capacity: capacity.max(1), blocks: HashMap::new(), by_age: BTreeMap::new(), tick: 0 }
    }

    /// Blocks held.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The cached tokens of a prompt of `tokens` for `model`, then keeps
    /// its blocks.
    pub fn admit(&mut self, model: &str, tokens: &[&str]) -> u64 {
        self.admit_blocks(&block_hashes(model, tokens), tokens.len())
    }

    /// The cached tokens of a prompt of `len` tokens whose full blocks are
    /// named `hashes` (chained: each names everything before it too), then
    /// keeps them. [`Self::admit`] names blocks by their text; a workload's
    /// prediction names them by its `hash_ids` (`crate::workload::cache`).
    pub fn admit_blocks(&mut self, hashes: &[u64], len: usize) -> u64 {
        let hits = hashes.iter().take_while(|h| self.blocks.contains_key(h)).count();
        for &h in hashes {
            self.touch(h);
        }
        let cached = (hits * BLOCK_TOKENS).min(len.saturating_sub(1));
        cached as u64
    }

    fn touch(&mut self, h: u64) {
        self.tick += 1;
        if let Some(old) = self.blocks.insert(h, self.tick) {
            self.by_age.remove(&old);
        }
        self.by_age.insert(self.tick, h);
        while self.blocks.len() > self.capacity {
            let Some((_, oldest)) = self.by_age.pop_first() else { break };
            self.blocks.remove(&oldest);
        }
    }
}

/// The chained hashes of the full blocks of `tokens`.
fn block_hashes(model: &str, tokens: &[&str]) -> Vec<u64> {
    let mut parent = {
        let mut h = DefaultHasher::new();
        model.hash(&mut h);
        h.finish()
    };
    tokens
        .chunks_exact(BLOCK_TOKENS)
        .map(|block| {
            let mut h = DefaultHasher::new();
            parent.hash(&mut h);
            block.hash(&mut h);
            parent = h.finish();
            parent
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize, tag: &str) -> Vec<String> {
        (0..n).map(|i| format!(" {tag}{i}")).collect()
    }

    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    #[test]
    fn a_repeated_prompt_is_cached_but_its_last_token() {
        let mut c = PrefixCache::default();
        let p = words(100, "a");
        assert_eq!(c.admit("m", &refs(&p)), 0);
        // 6 full blocks = 96 tokens; the partial block is computed again.
        assert_eq!(c.admit("m", &refs(&p)), 96);
        let exact = words(64, "b");
        c.admit("m", &refs(&exact));
        assert_eq!(c.admit("m", &refs(&exact)), 63, "the last token is always computed");
        assert_eq!(c.admit("other model", &refs(&p)), 0, "models do not share");
    }

    #[test]
    fn a_shared_prefix_counts_up_to_the_first_difference() {
        let mut c = PrefixCache::default();
        let mut conv = words(40, "sys");
        c.admit("m", &refs(&conv));
        conv.extend(words(30, "turn"));
        // 2 full blocks (32 tokens) of the first prompt match; block 3 had only 8 of its tokens.
        assert_eq!(c.admit("m", &refs(&conv)), 32);
        // A changed first message changes every block after it.
        let mut busted = conv.clone();
        busted[0] = " changed".into();
        assert_eq!(c.admit("m", &refs(&busted)), 0);
    }

    #[test]
    fn the_least_recently_used_block_goes_first() {
        let mut c = PrefixCache::with_capacity(4);
        let (a, b) = (words(32, "a"), words(32, "b"));
        c.admit("m", &refs(&a)); // a0 a1
        c.admit("m", &refs(&b)); // b0 b1: full
        assert_eq!(c.admit("m", &refs(&a)), 31, "a is used again: b is now the oldest");
        let d = words(32, "d");
        c.admit("m", &refs(&d)); // evicts b0, b1
        assert_eq!(c.len(), 4);
        assert_eq!(c.admit("m", &refs(&b)), 0);
    }
}
