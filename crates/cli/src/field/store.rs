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
use sqlx::{AnyPool, Row};

use crate::studies::store::StoreError;

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

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
    /// Requests kept (of one site, or all).
    fn count(&self, site: Option<&str>) -> impl Future<Output = Result<u64, StoreError>> + Send;
    /// Requests sent in `[from_ms, to_ms)` (of one site, or all), oldest
    /// first, at most `limit`.
    fn requests(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<FieldSpan>, StoreError>> + Send;
    /// What summaries read of the requests of `site` sent in `[from_ms, to_ms)`.
    fn rows(
        &self,
        site: &str,
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
    pub fn on(db: &crate::studies::sql::SqlStore) -> Self {
        let (write, read) = db.pools();
        Self { write, read }
    }
}

fn us(ms: f64) -> i64 {
    (ms * 1000.0).round() as i64
}

fn origins_of(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
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
        .map_err(err)?;
        Ok(r.rows_affected() == 1)
    }

    async fn site_by_key(&self, key_sha256: &str) -> Result<Option<FieldSite>, StoreError> {
        let row = sqlx::query("SELECT name, origins FROM field_sites WHERE key_sha256 = $1")
            .bind(key_sha256)
            .fetch_optional(&self.read)
            .await
            .map_err(err)?;
        row.map(|r| {
            Ok(FieldSite {
                name: r.try_get(0).map_err(err)?,
                origins: origins_of(&r.try_get::<String, _>(1).map_err(err)?),
            })
        })
        .transpose()
    }

    async fn sites(&self) -> Result<Vec<FieldSite>, StoreError> {
        let rows = sqlx::query("SELECT name, origins FROM field_sites ORDER BY name")
            .fetch_all(&self.read)
            .await
            .map_err(err)?;
        rows.iter()
            .map(|r| {
                Ok(FieldSite {
                    name: r.try_get(0).map_err(err)?,
                    origins: origins_of(&r.try_get::<String, _>(1).map_err(err)?),
                })
            })
            .collect()
    }

    async fn add(&self, site: &str, spans: &[FieldSpan], now_ms: i64) -> Result<usize, StoreError> {
        let mut tx = self.write.begin().await.map_err(err)?;
        let mut new = 0;
        for s in spans {
            let json = serde_json::to_string(s).map_err(err)?;
            let row = FieldRow::of(s);
            let r = sqlx::query(
                "INSERT INTO field_requests (site, span_id, received_ms, sent_us, model, browser, request, ttft_ms, first_paint_ms, failed, \
                 paint_lag_ms, paint_gap_ms, stalls, qoe) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING",
            )
            .bind(site)
            .bind(s.request.id.clone().unwrap_or_default())
            .bind(now_ms)
            .bind(us(s.at_unix_ms))
            .bind(s.model.clone())
            .bind(s.browser.as_ref().map(|b| b.0.clone()))
            .bind(json)
            .bind(row.ttft_ms)
            .bind(row.first_paint_ms)
            .bind(i64::from(row.failed))
            .bind(row.paint_lag_ms)
            .bind(row.paint_gap_ms)
            .bind(i64::from(row.stalls))
            .bind(row.qoe)
            .execute(&mut *tx)
            .await
            .map_err(err)?;
            new += r.rows_affected() as usize;
        }
        tx.commit().await.map_err(err)?;
        Ok(new)
    }

    async fn count(&self, site: Option<&str>) -> Result<u64, StoreError> {
        let row = match site {
            Some(s) => {
                sqlx::query("SELECT COUNT(*) FROM field_requests WHERE site = $1")
                    .bind(s)
                    .fetch_one(&self.read)
                    .await
            }
            None => sqlx::query("SELECT COUNT(*) FROM field_requests").fetch_one(&self.read).await,
        }
        .map_err(err)?;
        Ok(row.try_get::<i64, _>(0).map_err(err)?.max(0) as u64)
    }

    async fn requests(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
        limit: usize,
    ) -> Result<Vec<FieldSpan>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = match site {
            Some(s) => {
                sqlx::query(
                    "SELECT request FROM field_requests WHERE site = $1 AND sent_us >= $2 AND sent_us < $3 ORDER BY sent_us LIMIT $4",
                )
                .bind(s)
                .bind(us(from_ms))
                .bind(us(to_ms))
                .bind(limit)
                .fetch_all(&self.read)
                .await
            }
            None => {
                sqlx::query("SELECT request FROM field_requests WHERE sent_us >= $1 AND sent_us < $2 ORDER BY sent_us LIMIT $3")
                    .bind(us(from_ms))
                    .bind(us(to_ms))
                    .bind(limit)
                    .fetch_all(&self.read)
                    .await
            }
        }
        .map_err(err)?;
        rows.iter()
            .map(|r| serde_json::from_str(&r.try_get::<String, _>(0).map_err(err)?).map_err(err))
            .collect()
    }

    async fn rows(&self, site: &str, from_ms: f64, to_ms: f64) -> Result<Vec<FieldRow>, StoreError> {
        super::rows::read(&self.read, site, us(from_ms), us(to_ms)).await
    }

    async fn purge(&self, before_ms: f64) -> Result<u64, StoreError> {
        let r = sqlx::query("DELETE FROM field_requests WHERE sent_us < $1")
            .bind(us(before_ms))
            .execute(&self.write)
            .await
            .map_err(err)?;
        Ok(r.rows_affected())
    }
}
