//! What the collector does with one `POST /v1/traces`, whatever stores
//! it ([`Collector::ingest`]): the checks in order, each refusal a 4xx
//! that says why and stores nothing; then the spans read as requests
//! (`lab_core::field::span`), the site's name put on each, and the batch
//! kept in one transaction before it is acknowledged.

use std::sync::{Mutex, PoisonError};

use lab_core::field::span::{self, Skip};
use lab_core::serve::limit::{Limits, RateLimiter};
use lab_core::trace::client::Browser;
use sha2::{Digest, Sha256};

use super::decode::{self, Encoding};
use super::store::{FieldSite, FieldStore};
use crate::db::StoreError;

/// Largest body read (bytes): a page's beacon holds one request's span
/// (a few kB); an SDK's batch of 512 spans fits many times over.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// Ingest per client address: a page sends a span per answer, an SDK a
/// batch every few seconds; a flood is slowed to 50 a second.
pub const INGEST: Limits = Limits { burst: 200.0, per_s: 50.0, max_keys: 100_000 };

/// Prefix of an ingest key (so one found in a config is recognisable).
pub const KEY_PREFIX: &str = "llk_";

/// The SHA-256 (hex) a key is stored as.
pub fn key_hash(key: &str) -> String {
    Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A batch kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Ingested {
    /// The site it was sent for.
    pub site: FieldSite,
    /// Requests read from it.
    pub kept: usize,
    /// Of those, new (a resent span is kept once).
    pub new: usize,
    /// Spans not kept, and why (OTLP's `partialSuccess`).
    pub rejected: usize,
    /// Why, for people.
    pub why_rejected: Option<String>,
}

/// A batch refused: nothing of it was stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// HTTP status.
    pub status: u16,
    /// Why, for people.
    pub message: String,
    /// Seconds to wait (429, 503).
    pub retry_after_s: Option<u64>,
}

fn refuse(status: u16, message: impl Into<String>) -> Refusal {
    Refusal { status, message: message.into(), retry_after_s: None }
}

/// One `POST /v1/traces` as the HTTP layer hands it over.
pub struct Post<'a> {
    /// The ingest key (`Authorization: Bearer`, or `?key=` from a beacon).
    pub key: Option<&'a str>,
    /// The page's `Origin`, when a browser sent it.
    pub origin: Option<&'a str>,
    /// `Content-Type`.
    pub content_type: Option<&'a str>,
    /// `User-Agent`: the page's browser for spans that do not name it (the
    /// lab's snippet leaves it to this header, which every beacon carries).
    pub user_agent: Option<&'a str>,
    /// The body (at most [`MAX_BODY`] + 1 bytes read).
    pub body: &'a [u8],
    /// The client's address (rate limit key).
    pub client: &'a str,
    /// Now (ms since 1970).
    pub now_ms: i64,
}

/// The collector over a store.
pub struct Collector<S> {
    /// Where field data is kept.
    pub store: S,
    limiter: Mutex<RateLimiter>,
}

impl<S: FieldStore> Collector<S> {
    /// A collector over `store`.
    pub fn new(store: S) -> Self {
        Self { store, limiter: Mutex::new(RateLimiter::new(INGEST)) }
    }

    /// The site of a page's `Origin`, for a CORS preflight (which carries
    /// no key): any site that registered it.
    pub async fn origin_registered(&self, origin: &str) -> Result<bool, StoreError> {
        Ok(self.store.sites().await?.iter().any(|s| s.origins.iter().any(|o| o == origin)))
    }

    /// Checks, reads and keeps one batch (module doc).
    pub async fn ingest(&self, p: Post<'_>) -> Result<Ingested, Refusal> {
        let taken =
            self.limiter.lock().unwrap_or_else(PoisonError::into_inner).take(p.client, p.now_ms as f64);
        if let Err(ms) = taken {
            let secs = (ms / 1000.0).ceil().max(1.0) as u64;
            return Err(Refusal {
                retry_after_s: Some(secs),
                ..refuse(429, format!("too many batches from this address; try again in {secs} s"))
            });
        }
        if p.body.len() > MAX_BODY {
            return Err(refuse(413, format!("the body is over {MAX_BODY} bytes; send smaller batches")));
        }
        let Some(key) = p.key.filter(|k| !k.is_empty()) else {
            return Err(refuse(
                401,
                "no ingest key: send \"Authorization: Bearer <key>\" (or ?key=<key> from a beacon); latency-lab field add-site makes one",
            ));
        };
        let site = match self.store.site_by_key(&key_hash(key)).await {
            Ok(Some(site)) => site,
            Ok(None) => return Err(refuse(401, "unknown ingest key")),
            Err(e) => return Err(store_failed(&e)),
        };
        if let Some(origin) = p.origin
            && !site.origins.iter().any(|o| o == origin)
        {
            return Err(refuse(
                403,
                format!(
                    "origin {origin} is not one of site {}'s registered origins (add-site --origin names them)",
                    site.name
                ),
            ));
        }
        let encoding = Encoding::of(p.content_type).ok_or_else(|| {
            refuse(415, "send OTLP/HTTP: Content-Type application/json or application/x-protobuf")
        })?;
        let raw = decode::spans(p.body, encoding).map_err(|e| refuse(400, e))?;
        let (mut spans, mut why) = (Vec::new(), [0usize; 3]);
        for s in &raw {
            match span::read(s) {
                Ok(mut f) => {
                    f.site = Some(site.name.clone());
                    if f.browser.is_none() {
                        f.browser = p
                            .user_agent
                            .and_then(Browser::from_user_agent)
                            .map(|b| (b.name.to_string(), b.engine.to_string(), b.version));
                    }
                    spans.push(f);
                }
                Err(Skip::NotGenAi) => why[0] += 1,
                Err(Skip::NotInference) => why[1] += 1,
                Err(Skip::NoFirstChunk) => why[2] += 1,
            }
        }
        let new = match spans.is_empty() {
            true => 0,
            false => self.store.add(&site.name, &spans, p.now_ms).await.map_err(|e| store_failed(&e))?,
        };
        let rejected = why.iter().sum();
        Ok(Ingested {
            kept: spans.len(),
            new,
            rejected,
            why_rejected: (rejected > 0).then(|| {
                format!(
                    "not kept: {} spans that are not GenAI, {} GenAI operations that stream no text, {} inference spans without a first-chunk time",
                    why[0], why[1], why[2]
                )
            }),
            site,
        })
    }
}

/// When to send a batch again after the database failed (s).
pub const RETRY_AFTER_S: u64 = 5;

/// The database failed: a 503 (which OTLP exporters retry) with
/// `Retry-After`. The cause is in the server log, not in the answer: a
/// batch's sender is not the database's operator.
fn store_failed(e: &StoreError) -> Refusal {
    tracing::error!("field database: {e}");
    Refusal {
        retry_after_s: Some(RETRY_AFTER_S),
        ..refuse(
            503,
            format!(
                "the field database is unavailable or failed (the server log says why); nothing of this batch was stored: send it again in {RETRY_AFTER_S} s"
            ),
        )
    }
}

#[cfg(test)]
mod tests;
