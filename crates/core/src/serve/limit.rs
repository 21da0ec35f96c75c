//! Rate limits for the server's write APIs: a token bucket per key (a
//! participant session, a client address), with time passed in as ms.
//!
//! Each key may send [`Limits::burst`] requests at once and then
//! [`Limits::per_s`] a second: its bucket holds at most `burst` tokens, a
//! request takes one, and tokens come back at `per_s` a second. A request
//! that finds the bucket empty is refused with the time until a token is
//! back (the `Retry-After` a server sends). At most [`Limits::max_keys`]
//! keys are remembered; past that the least recently seen is forgotten
//! (it comes back with a full bucket, which bounds memory, not fairness).

use std::collections::HashMap;

/// How much a key may send.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Requests at once.
    pub burst: f64,
    /// Requests a second after the burst.
    pub per_s: f64,
    /// Keys remembered.
    pub max_keys: usize,
}

/// A participant answers a trial every few seconds; a page that retries a
/// queue of offline answers sends them in a burst.
pub const ANSWERS: Limits = Limits { burst: 60.0, per_s: 2.0, max_keys: 100_000 };

/// Participants joining one study: a class of 500 opening the link at the
/// same minute gets in, a script creating participants is slowed to 20 a
/// second.
pub const JOINS: Limits = Limits { burst: 500.0, per_s: 20.0, max_keys: 10_000 };

/// Researcher requests that publish, close or read, per client address:
/// generous for scripts, a wall against guessing the token.
pub const RESEARCHER: Limits = Limits { burst: 120.0, per_s: 10.0, max_keys: 10_000 };

/// Token buckets by key.
#[derive(Debug, Clone)]
pub struct RateLimiter {
    limits: Limits,
    /// Key → (tokens, last refill ms).
    buckets: HashMap<String, (f64, f64)>,
}

impl RateLimiter {
    /// An empty limiter.
    pub fn new(limits: Limits) -> Self {
        Self { limits, buckets: HashMap::new() }
    }

    /// Takes a token of `key` at `now_ms`: `Ok` with the tokens left, or
    /// `Err` with the ms until one is back.
    pub fn take(&mut self, key: &str, now_ms: f64) -> Result<f64, f64> {
        let Limits { burst, per_s, max_keys } = self.limits;
        if !self.buckets.contains_key(key) && self.buckets.len() >= max_keys.max(1) {
            let oldest = self.buckets.iter().min_by(|a, b| a.1.1.total_cmp(&b.1.1)).map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.buckets.remove(&k);
            }
        }
        let (tokens, last) = self.buckets.entry(key.to_string()).or_insert((burst, now_ms));
        let elapsed = (now_ms - *last).max(0.0);
        *tokens = (*tokens + elapsed / 1000.0 * per_s).min(burst);
        *last = now_ms.max(*last);
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(*tokens)
        } else if per_s > 0.0 {
            Err((1.0 - *tokens) / per_s * 1000.0)
        } else {
            Err(f64::INFINITY)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limits = Limits { burst: 3.0, per_s: 2.0, max_keys: 2 };

    #[test]
    fn a_burst_then_the_rate() {
        let mut r = RateLimiter::new(L);
        assert_eq!(r.take("a", 0.0), Ok(2.0));
        assert_eq!(r.take("a", 0.0), Ok(1.0));
        assert_eq!(r.take("a", 0.0), Ok(0.0));
        assert_eq!(r.take("a", 0.0), Err(500.0), "one token back after half a second");
        assert_eq!(r.take("a", 500.0), Ok(0.0));
        assert_eq!(r.take("b", 500.0), Ok(2.0), "keys do not share");
        // Long idle: back to the burst, never above.
        assert_eq!(r.take("a", 100_000.0), Ok(2.0));
        // Time going backwards refills nothing.
        assert_eq!(r.take("a", 0.0), Ok(1.0));
    }

    #[test]
    fn memory_is_bounded_by_forgetting_the_oldest_key() {
        let mut r = RateLimiter::new(L);
        for _ in 0..3 {
            r.take("a", 0.0).unwrap();
        }
        r.take("b", 10.0).unwrap();
        r.take("c", 20.0).unwrap(); // forgets "a", the least recently seen
        assert_eq!(r.buckets.len(), 2);
        assert_eq!(r.take("a", 30.0), Ok(2.0), "a forgotten key starts full");
    }
}
