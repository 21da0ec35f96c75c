//! How long field data is kept (`serve --field-retention-days`): a
//! request whose span started before the cut-off ([`cutoff_ms`]) is
//! deleted, once before serve takes requests, then every
//! [`PURGE_EVERY`], each pass at the time a clock says ([`keep_for`]).

use std::time::Duration;

use super::store::FieldStore;
use crate::db::StoreError;

/// How often old field data is deleted.
pub const PURGE_EVERY: Duration = Duration::from_secs(3600);

const DAY_MS: f64 = 86_400_000.0;

/// The cut-off of a retention of `days` at `now_ms` (ms since 1970): a
/// request sent before it is deleted, one sent at it or later is kept.
/// `None` (keep everything) when `days` is not a positive number.
pub fn cutoff_ms(now_ms: i64, days: f64) -> Option<f64> {
    (days.is_finite() && days > 0.0).then_some(now_ms as f64 - days * DAY_MS)
}

/// One pass at `now_ms`: deletes the requests older than `days`; how many.
pub async fn purge<S: FieldStore>(store: &S, now_ms: i64, days: f64) -> Result<u64, StoreError> {
    match cutoff_ms(now_ms, days) {
        Some(before) => store.purge(before).await,
        None => Ok(0),
    }
}

async fn pass<S: FieldStore>(store: &S, now_ms: i64, days: f64) {
    match purge(store, now_ms, days).await {
        Ok(0) => {}
        Ok(n) => tracing::info!("field data: {n} requests older than {days} days deleted"),
        Err(e) => tracing::error!("field data: deleting requests older than {days} days failed: {e}"),
    }
}

/// Keeps `store` to `days`: the first pass before it returns (so a server
/// never serves what its retention deleted), then one every `every` on
/// `runtime`. A failed pass is logged and the next one tries again.
pub fn keep_for<S, C>(runtime: &tokio::runtime::Runtime, store: S, days: f64, every: Duration, clock: C)
where
    S: FieldStore + 'static,
    C: Fn() -> i64 + Send + 'static,
{
    if cutoff_ms(0, days).is_none() {
        return;
    }
    runtime.block_on(pass(&store, clock(), days));
    runtime.spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            pass(&store, clock(), days).await;
        }
    });
}

#[cfg(test)]
mod tests;
