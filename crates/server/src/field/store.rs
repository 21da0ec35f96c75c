//! Where field data is kept: sites with their ingest keys and origins, and
//! the requests their pages sent ([`FieldStore`]). On the study database
//! ([`SqlField`]: SQLite by default, PostgreSQL with `--db`, shared by
//! several serve processes), or in memory for tests (`super::memory::MemoryField`).
//!
//! A batch is kept in one transaction and acknowledged only after it
//! committed (SQLite: WAL with `synchronous=FULL`), so a collector killed
//! after answering has lost nothing it answered for; a span id kept before
//! is not kept twice (a resent beacon).

use lab_core::field::span::FieldSpan;
use lab_core::field::summary::FieldRow;
use sha2::{Digest, Sha256};
use sqlx::{AnyPool, Row};

use crate::db::StoreError;

/// A site: its name and the origins its pages are served from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldSite {
    /// Its name (`latency-lab field add-site NAME`).
    pub name: String,
    /// `https://shop.example` …, exactly as browsers send `Origin`.
    pub origins: Vec<String>,
}

/// Sites and their requests.
pub trait FieldStore: Send + Sync {
    /// Keeps a new site under the SHA-256 of its key (`false`: the name is taken).
    fn add_site(
        &self,
        site: &FieldSite,
        key_sha256: &str,
        now_ms: i64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
    /// The site whose key hashes to `key_sha256`.
    fn site_by_key(
        &self,
        key_sha256: &str,
    ) -> impl Future<Output = Result<Option<FieldSite>, StoreError>> + Send;
    /// Every site.
    fn sites(&self) -> impl Future<Output = Result<Vec<FieldSite>, StoreError>> + Send;
    /// Keeps `spans` of `site` in one transaction; how many were new.
    fn add(
        &self,
        site: &str,
        spans: &[FieldSpan],
        now_ms: i64,
    ) -> impl Future<Output = Result<usize, StoreError>> + Send;
    /// How many requests were sent in `[from_ms, to_ms)` (of one site, or
    /// all; `f64::MIN..f64::MAX`: every one kept).
    fn count(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
    /// Requests sent in `[from_ms, to_ms)` (of one site, or all), oldest
    /// first, at most `limit`; with `below`, only those whose [`draw`] is
    /// under it (a sample).
    fn requests(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
        limit: usize,
        below: Option<i64>,
    ) -> impl Future<Output = Result<Vec<FieldSpan>, StoreError>> + Send;
    /// What summaries read of the requests of `site` (or every site) sent
    /// in `[from_ms, to_ms)`.
    fn rows(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
    ) -> impl Future<Output = Result<Vec<FieldRow>, StoreError>> + Send;
    /// Forgets requests sent before `before_ms`; how many.
    fn purge(&self, before_ms: f64) -> impl Future<Output = Result<u64, StoreError>> + Send;
}

/// The store on the study database.
#[derive(Clone)]
pub struct SqlField {
    /// Writes (SQLite: the database's one writer).
    pub write: AnyPool,
    /// Reads.
    pub read: AnyPool,
}

impl SqlField {
    /// The store on the study database `db`.
    pub fn on(db: &crate::db::Database) -> Self {
        let (write, read) = db.pools();
        Self { write, read }
    }
}

/// The draws' range: each request's [`draw`] is in `0..DRAWS`.
pub const DRAWS: i64 = 1 << 31;

/// A request's draw for samples, kept beside it: 31 bits of a hash of its
/// span id (the same for a resent span; span ids are random, so draws are
/// uniform). Requests kept before draws were (migration 0005) drew the low
/// 31 bits of their send time in µs.
pub fn draw(span: &FieldSpan) -> i64 {
    let id = span.request.id.as_deref().unwrap_or_default();
    let h = Sha256::digest(id.as_bytes());
    i64::from(u32::from_le_bytes([h[0], h[1], h[2], h[3]]) >> 1)
}

/// A period read as a sample: each request kept when its draw is under
/// `below`, so with the same chance wherever it is in the period.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Requests in the period.
    pub of: u64,
    /// The draws kept.
    pub below: i64,
}

impl Sample {
    /// About `n` of a period of `of` requests; `None` when all of them fit.
    pub fn of(of: u64, n: u64) -> Option<Self> {
        (of > n).then(|| Self { of, below: ((DRAWS as f64) * n as f64 / of as f64).floor() as i64 })
    }

    /// The chance each request had.
    pub fn chance(&self) -> f64 {
        self.below as f64 / DRAWS as f64
    }
}

fn us(ms: f64) -> i64 {
    (ms * 1000.0).round() as i64
}

fn origins_of(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
}

impl SqlField {
    /// Sets the origins of site `name` (`false`: no such site).
    pub async fn set_origins(&self, name: &str, origins: &[String]) -> Result<bool, StoreError> {
        let r = sqlx::query("UPDATE field_sites SET origins = $1 WHERE name = $2")
            .bind(origins.join("\n"))
            .bind(name)
            .execute(&self.write)
            .await?;
        Ok(r.rows_affected() == 1)
    }
}

impl FieldStore for SqlField {
    async fn add_site(&self, site: &FieldSite, key_sha256: &str, now_ms: i64) -> Result<bool, StoreError> {
        let r = sqlx::query(
            "INSERT INTO field_sites (name, key_sha256, origins, created_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(&site.name)
        .bind(key_sha256)
        .bind(site.origins.join("\n"))
        .bind(now_ms)
        .execute(&self.write)
        .await
        ?;
        Ok(r.rows_affected() == 1)
    }

    async fn site_by_key(&self, key_sha256: &str) -> Result<Option<FieldSite>, StoreError> {
        let row = sqlx::query("SELECT name, origins FROM field_sites WHERE key_sha256 = $1")
            .bind(key_sha256)
            .fetch_optional(&self.read)
            .await?;
        row.map(|r| Ok(FieldSite { name: r.try_get(0)?, origins: origins_of(&r.try_get::<String, _>(1)?) }))
            .transpose()
    }

    async fn sites(&self) -> Result<Vec<FieldSite>, StoreError> {
        let rows =
            sqlx::query("SELECT name, origins FROM field_sites ORDER BY name").fetch_all(&self.read).await?;
        rows.iter()
            .map(|r| Ok(FieldSite { name: r.try_get(0)?, origins: origins_of(&r.try_get::<String, _>(1)?) }))
            .collect()
    }

    async fn add(&self, site: &str, spans: &[FieldSpan], now_ms: i64) -> Result<usize, StoreError> {
        // In span id order: two batches holding the same spans (a beacon
        // resent to another server sharing PostgreSQL) then take their
        // rows' locks in the same order, so one waits for the other
        // instead of both being refused as a deadlock.
        let mut spans: Vec<&FieldSpan> = spans.iter().collect();
        spans.sort_by(|a, b| a.request.id.cmp(&b.request.id));
        let mut tx = self.write.begin().await?;
        let mut new = 0;
        for s in spans {
            let json = serde_json::to_string(s)?;
            let row = FieldRow::of(s);
            let r = sqlx::query(
                "INSERT INTO field_requests (site, span_id, received_ms, sent_us, model, browser, request, failed, \
                 stalls, qoe, sample, sample_rate, figures) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING",
            )
            .bind(site)
            .bind(s.request.id.clone().unwrap_or_default())
            .bind(now_ms)
            .bind(us(s.at_unix_ms))
            .bind(s.model.clone())
            .bind(s.browser.as_ref().map(|b| b.0.clone()))
            .bind(json)
            .bind(i64::from(row.failed))
            .bind(i64::from(row.stalls))
            .bind(row.qoe)
            .bind(draw(s))
            .bind(row.sample_rate)
            .bind(row.figures.to_text())
            .execute(&mut *tx)
            .await
            ?;
            new += r.rows_affected() as usize;
        }
        tx.commit().await?;
        Ok(new)
    }

    async fn requests(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
        limit: usize,
        below: Option<i64>,
    ) -> Result<Vec<FieldSpan>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let below = below.unwrap_or(DRAWS);
        // Two queries, not `$1 IS NULL OR site = $1`: SQLite would not use the index.
        let rows = match site {
            Some(s) => {
                sqlx::query(
                    "SELECT request FROM field_requests WHERE site = $1 AND sent_us >= $2 AND sent_us < $3 AND sample < $5 \
                     ORDER BY sent_us LIMIT $4",
                )
                .bind(s)
                .bind(us(from_ms))
                .bind(us(to_ms))
                .bind(limit)
                .bind(below)
                .fetch_all(&self.read)
                .await
            }
            None => {
                sqlx::query(
                    "SELECT request FROM field_requests WHERE sent_us >= $1 AND sent_us < $2 AND sample < $4 \
                     ORDER BY sent_us LIMIT $3",
                )
                .bind(us(from_ms))
                .bind(us(to_ms))
                .bind(limit)
                .bind(below)
                .fetch_all(&self.read)
                .await
            }
        }
        ?;
        rows.iter()
            .map(|r| serde_json::from_str(&r.try_get::<String, _>(0)?).map_err(StoreError::from))
            .collect()
    }

    async fn count(&self, site: Option<&str>, from_ms: f64, to_ms: f64) -> Result<u64, StoreError> {
        let row =
            match site {
                Some(s) => sqlx::query(
                    "SELECT COUNT(*) FROM field_requests WHERE site = $1 AND sent_us >= $2 AND sent_us < $3",
                )
                .bind(s)
                .bind(us(from_ms))
                .bind(us(to_ms))
                .fetch_one(&self.read)
                .await,
                None => {
                    sqlx::query("SELECT COUNT(*) FROM field_requests WHERE sent_us >= $1 AND sent_us < $2")
                        .bind(us(from_ms))
                        .bind(us(to_ms))
                        .fetch_one(&self.read)
                        .await
                }
            }?;
        Ok(row.try_get::<i64, _>(0)?.max(0) as u64)
    }

    async fn rows(&self, site: Option<&str>, from_ms: f64, to_ms: f64) -> Result<Vec<FieldRow>, StoreError> {
        super::rows::read(&self.read, site, us(from_ms), us(to_ms)).await
    }

    async fn purge(&self, before_ms: f64) -> Result<u64, StoreError> {
        let r = sqlx::query("DELETE FROM field_requests WHERE sent_us < $1")
            .bind(us(before_ms))
            .execute(&self.write)
            .await?;
        Ok(r.rows_affected())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_keeps_each_request_with_the_same_chance() {
        assert_eq!(Sample::of(100, 100), None, "all of them fit");
        let s = Sample::of(1_000_000, 10_000).unwrap();
        assert!((s.chance() - 0.01).abs() < 1e-9);
        // Draws of span ids as pages make them (random hex), and of
        // sequential ones: both uniform, so the share kept is the chance.
        let span = |id: String| {
            FieldSpan::recorded(
                lab_core::trace::RequestTrace { id: Some(id), ..Default::default() },
                0.0,
                None,
            )
        };
        let s = Sample::of(20_000, 2_000).unwrap();
        for ids in [
            (0..20_000u64)
                .map(|i| format!("{:016x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                .collect::<Vec<_>>(),
            (0..20_000u64).map(|i| format!("{i:016x}")).collect(),
        ] {
            let kept = ids.into_iter().filter(|id| draw(&span(id.clone())) < s.below).count();
            assert!((1_800..=2_200).contains(&kept), "{kept} of 20,000 kept at 10%");
        }
        let one = span("00f067aa0ba902b7".into());
        assert_eq!(draw(&one), draw(&one.clone()), "a resent span draws the same");
        assert!((0..DRAWS).contains(&draw(&one)));
    }
}
