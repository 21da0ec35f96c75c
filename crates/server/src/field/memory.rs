//! The field store in memory: the collector's tests' double of
//! [`super::store::SqlField`].

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use lab_core::field::span::FieldSpan;
use lab_core::field::summary::FieldRow;

use super::store::{FieldSite, FieldStore, draw};
use crate::db::StoreError;

/// The store in memory (the collector's tests).
#[derive(Default)]
pub struct MemoryField {
    sites: Mutex<Vec<(FieldSite, String)>>,
    /// (site, span id) → the span.
    requests: Mutex<BTreeMap<(String, String), FieldSpan>>,
}

impl FieldStore for MemoryField {
    async fn add_site(&self, site: &FieldSite, key_sha256: &str, _now_ms: i64) -> Result<bool, StoreError> {
        let mut sites = self.sites.lock().unwrap_or_else(PoisonError::into_inner);
        if sites.iter().any(|(s, k)| s.name == site.name || k == key_sha256) {
            return Ok(false);
        }
        sites.push((site.clone(), key_sha256.to_string()));
        Ok(true)
    }

    async fn site_by_key(&self, key_sha256: &str) -> Result<Option<FieldSite>, StoreError> {
        let sites = self.sites.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(sites.iter().find(|(_, k)| k == key_sha256).map(|(s, _)| s.clone()))
    }

    async fn sites(&self) -> Result<Vec<FieldSite>, StoreError> {
        Ok(self.sites.lock().unwrap_or_else(PoisonError::into_inner).iter().map(|(s, _)| s.clone()).collect())
    }

    async fn add(&self, site: &str, spans: &[FieldSpan], _now_ms: i64) -> Result<usize, StoreError> {
        let mut kept = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        let mut new = 0;
        for s in spans {
            let key = (site.to_string(), s.request.id.clone().unwrap_or_default());
            if let std::collections::btree_map::Entry::Vacant(e) = kept.entry(key) {
                e.insert(s.clone());
                new += 1;
            }
        }
        Ok(new)
    }

    async fn count(&self, site: Option<&str>, from_ms: f64, to_ms: f64) -> Result<u64, StoreError> {
        Ok(self.requests(site, from_ms, to_ms, usize::MAX, None).await?.len() as u64)
    }

    async fn requests(
        &self,
        site: Option<&str>,
        from_ms: f64,
        to_ms: f64,
        limit: usize,
        below: Option<i64>,
    ) -> Result<Vec<FieldSpan>, StoreError> {
        let kept = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out: Vec<FieldSpan> = kept
            .iter()
            .filter(|((s, _), f)| {
                site.is_none_or(|x| x == s)
                    && f.at_unix_ms >= from_ms
                    && f.at_unix_ms < to_ms
                    && below.is_none_or(|b| draw(f) < b)
            })
            .map(|(_, f)| f.clone())
            .collect();
        out.sort_by(|a, b| a.at_unix_ms.total_cmp(&b.at_unix_ms));
        out.truncate(limit);
        Ok(out)
    }

    async fn rows(&self, site: Option<&str>, from_ms: f64, to_ms: f64) -> Result<Vec<FieldRow>, StoreError> {
        let spans = self.requests(site, from_ms, to_ms, usize::MAX, None).await?;
        Ok(spans.iter().map(FieldRow::of).collect())
    }

    async fn purge(&self, before_ms: f64) -> Result<u64, StoreError> {
        let mut kept = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        let before = kept.len();
        kept.retain(|_, f| f.at_unix_ms >= before_ms);
        Ok((before - kept.len()) as u64)
    }
}
