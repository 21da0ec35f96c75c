//! The replay endpoint's responses in flight, per client address: each
//! holds a [`StreamGuard`] until its last byte (or until its client goes
//! away). A client already holding `--max-streams-per-client` is refused
//! with 429, so one address cannot keep a public instance's connections.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use prometheus_client::metrics::gauge::Gauge;

/// Default of `--max-streams-per-client` on a public instance (a non-loopback
/// `--bind` or a `--public-url`): a person's tabs and a benchmark of a few
/// dozen users fit; a script opening thousands does not.
pub const PUBLIC_MAX_PER_CLIENT: u32 = 64;

/// Responses in flight by client.
pub struct Streams {
    /// At most this many per client (0: no limit).
    max: u32,
    open: Mutex<HashMap<IpAddr, u32>>,
    gauge: Gauge,
}

/// One response in flight; dropping it ends it.
pub struct StreamGuard {
    streams: Arc<Streams>,
    client: IpAddr,
}

impl Streams {
    /// Counts into `gauge`; at most `max` per client (0: no limit).
    pub fn new(max: u32, gauge: Gauge) -> Arc<Self> {
        Arc::new(Self { max, open: Mutex::default(), gauge })
    }

    /// A new response of `client`, or the number it already holds when
    /// that is the limit.
    pub fn enter(self: &Arc<Self>, client: IpAddr) -> Result<StreamGuard, u32> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let n = open.entry(client).or_insert(0);
        if self.max > 0 && *n >= self.max {
            return Err(*n);
        }
        *n += 1;
        self.gauge.inc();
        Ok(StreamGuard { streams: Arc::clone(self), client })
    }

    /// Responses in flight of `client`.
    #[cfg(test)]
    fn of(&self, client: IpAddr) -> u32 {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).get(&client).copied().unwrap_or(0)
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.client);
            }
        }
        self.streams.gauge.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_its_share_and_gets_it_back() {
        let gauge = Gauge::default();
        let s = Streams::new(2, gauge.clone());
        let (a, b): (IpAddr, IpAddr) = ("203.0.113.1".parse().unwrap(), "203.0.113.2".parse().unwrap());
        let one = s.enter(a).unwrap();
        let two = s.enter(a).unwrap();
        assert_eq!(s.enter(a).err(), Some(2));
        let other = s.enter(b).unwrap();
        assert_eq!(gauge.get(), 3);
        drop(one);
        assert_eq!(s.of(a), 1);
        let again = s.enter(a).unwrap();
        drop((two, again, other));
        assert_eq!((s.of(a), s.of(b), gauge.get()), (0, 0, 0));
        let open = Streams::new(0, Gauge::default());
        let many: Vec<_> = (0..1000).map(|_| open.enter(a).unwrap()).collect();
        assert_eq!(open.of(a), 1000);
        drop(many);
    }
}
