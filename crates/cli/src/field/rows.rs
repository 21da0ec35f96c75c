//! What a summary reads of a period's requests ([`FieldRow`]), read as one
//! packed text rather than row by row.
//!
//! Why: sqlx's `Any` driver costs about 10 µs per row returned (each row is
//! decoded twice and passed between threads), which made a summary of a
//! million requests take 10 s and more, while SQLite itself steps a million
//! entries of the covering index (migration 0005) in well under a second.
//! So the database joins each request's columns with [`UNIT`] and the
//! requests with [`RECORD`] (`string_agg`: PostgreSQL, and SQLite since
//! 3.44; sqlx bundles 3.46), and one row comes back. Browser and model have
//! both separators removed; numbers travel as text that reads back as the same `f64`
//! ([`real`]) and are read back here. BENCHMARKS.md ("Field data") has the times.

use lab_core::field::summary::FieldRow;
use sqlx::{AnyPool, Row};

use crate::studies::store::StoreError;

/// Between two columns of a request.
const UNIT: &str = "\u{1f}";
/// Between two requests.
const RECORD: &str = "\u{1e}";

/// A REAL column as text that reads back as the same `f64`, or `''` for
/// NULL. PostgreSQL's cast gives the shortest exact form; SQLite's gives 15
/// significant digits, a rounding that can move a value across a
/// two-decimal boundary (issue 44: a median read 254.25 here and 254.26 in
/// `analyze`), so SQLite writes 17 (`%!.17g`: the `!` lifts its printf's
/// 16-digit limit).
fn real(column: &str, sqlite: bool) -> String {
    if sqlite {
        format!("CASE WHEN {column} IS NULL THEN '' ELSE printf('%!.17g', {column}) END")
    } else {
        format!("COALESCE(CAST({column} AS TEXT), '')")
    }
}

/// The columns, packed: `$4` is [`UNIT`], `$5` [`RECORD`]. One site's
/// period: `$1` the site, `$2`/`$3` the period (µs). Every site's: `$1`
/// NULL (typed, so PostgreSQL knows it). Two queries, not `$1 IS NULL OR
/// site = $1`: SQLite would not use the index for one site.
fn query(one_site: bool, sqlite: bool) -> String {
    let [ttft, paint, lag, gap, qoe, rate] =
        ["ttft_ms", "first_paint_ms", "paint_lag_ms", "paint_gap_ms", "qoe", "sample_rate"]
            .map(|c| real(c, sqlite));
    let site = if one_site { "site = $1" } else { "CAST($1 AS TEXT) IS NULL" };
    format!(
        "SELECT string_agg(CAST(sent_us AS TEXT) || $4 || \
         REPLACE(REPLACE(site, $4, ''), $5, '') || $4 || \
         REPLACE(REPLACE(COALESCE(browser, ''), $4, ''), $5, '') || $4 || \
         REPLACE(REPLACE(COALESCE(model, ''), $4, ''), $5, '') || $4 || \
         {ttft} || $4 || {paint} || $4 || \
         COALESCE(CAST(failed AS TEXT), '') || $4 || {lag} || $4 || \
         {gap} || $4 || COALESCE(CAST(stalls AS TEXT), '') || $4 || \
         {qoe} || $4 || {rate}, $5) FROM field_requests WHERE {site} AND sent_us >= $2 AND sent_us < $3"
    )
}

fn err(e: impl std::fmt::Display + 'static) -> StoreError {
    StoreError::of(e)
}

/// The rows of the requests of `site` (or every site) sent in `[from_us, to_us)`.
pub async fn read(
    pool: &AnyPool,
    site: Option<&str>,
    from_us: i64,
    to_us: i64,
) -> Result<Vec<FieldRow>, StoreError> {
    let sqlite = pool.connect_options().database_url.scheme() == "sqlite";
    let sql = query(site.is_some(), sqlite);
    let row = sqlx::query(&sql)
        .bind(site)
        .bind(from_us)
        .bind(to_us)
        .bind(UNIT)
        .bind(RECORD)
        .fetch_one(pool)
        .await
        .map_err(err)?;
    let packed: Option<String> = row.try_get(0).map_err(err)?;
    packed.map_or_else(|| Ok(Vec::new()), |p| unpack(&p))
}

/// The rows of a packed text.
fn unpack(packed: &str) -> Result<Vec<FieldRow>, StoreError> {
    packed
        .split(RECORD)
        .enumerate()
        .map(|(i, record)| {
            let f: Vec<&str> = record.split(UNIT).collect();
            let bad = |what: &str| err(format!("field summary row {}: {what} in {record:?}", i + 1));
            if f.len() != 12 {
                return Err(bad("not 12 columns"));
            }
            let num = |k: usize| -> Result<Option<f64>, StoreError> {
                (!f[k].is_empty()).then(|| f[k].parse::<f64>().map_err(|_| bad("not a number"))).transpose()
            };
            let text = |k: usize| (!f[k].is_empty()).then(|| f[k].to_string());
            let sent_us: i64 = f[0].parse().map_err(|_| bad("no send time"))?;
            Ok(FieldRow {
                at_unix_ms: sent_us as f64 / 1000.0,
                site: text(1),
                browser: text(2),
                model: text(3),
                ttft_ms: num(4)?,
                first_paint_ms: num(5)?,
                failed: num(6)?.unwrap_or(0.0) != 0.0,
                paint_lag_ms: num(7)?,
                paint_gap_ms: num(8)?,
                stalls: num(9)?.map_or(0, |n| n.clamp(0.0, f64::from(u32::MAX)) as u32),
                qoe: num(10)?,
                sample_rate: num(11)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values whose 15-digit text reads back as another `f64`, one that
    /// rounds to other hundredths (254.2550000000001 → "254.255" → 254.25),
    /// and NULL, through SQLite's text as the summary query writes it.
    #[test]
    fn sqlite_writes_each_real_so_it_reads_back_the_same() {
        sqlx::any::install_default_drivers();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let pool = AnyPool::connect("sqlite::memory:").await.unwrap();
            let sql = format!("SELECT {} FROM (SELECT $1 AS x)", real("x", true));
            let tricky = 254.2550000000001_f64;
            assert_eq!(format!("{tricky:.2}"), "254.26");
            for v in [tricky, 0.1 + 0.2, 1e-7, 123_456_789.123_456_78, 2523.9, 5e300] {
                let text: String = sqlx::query(&sql).bind(v).fetch_one(&pool).await.unwrap().get(0);
                assert_eq!(text.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{v:?} came back as {text}");
            }
            let null: String = sqlx::query(&sql).bind(None::<f64>).fetch_one(&pool).await.unwrap().get(0);
            assert_eq!(null, "");
            // The cast the summary used before: 15 digits, another f64.
            let old: String =
                sqlx::query("SELECT CAST($1 AS TEXT)").bind(tricky).fetch_one(&pool).await.unwrap().get(0);
            assert_eq!(format!("{:.2}", old.parse::<f64>().unwrap()), "254.25", "{old}");
        });
    }

    #[test]
    fn unpacks_rows_with_empty_columns_and_names_a_broken_one() {
        let packed = [
            [
                "1796515200000123",
                "shop",
                "Firefox",
                "tiny",
                "200.5",
                "320",
                "0",
                "100",
                "560",
                "1",
                "0.875",
                "0.25",
            ]
            .join(UNIT),
            ["1796515200500000", "shop", "", "", "", "", "1", "", "", "", "", ""].join(UNIT),
        ]
        .join(RECORD);
        let rows = unpack(&packed).unwrap();
        assert_eq!(rows.len(), 2);
        let a = &rows[0];
        assert_eq!(a.at_unix_ms, 1_796_515_200_000.123);
        assert_eq!(
            (a.site.as_deref(), a.browser.as_deref(), a.model.as_deref()),
            (Some("shop"), Some("Firefox"), Some("tiny"))
        );
        assert_eq!(
            (a.ttft_ms, a.first_paint_ms, a.paint_lag_ms, a.paint_gap_ms),
            (Some(200.5), Some(320.0), Some(100.0), Some(560.0))
        );
        assert_eq!((a.stalls, a.qoe, a.failed), (1, Some(0.875), false));
        assert_eq!((a.sample_rate, a.weight()), (Some(0.25), 4.0), "one of four requests reported");
        let b = &rows[1];
        assert_eq!((b.browser.clone(), b.ttft_ms, b.qoe, b.stalls, b.failed), (None, None, None, 0, true));
        assert_eq!((b.sample_rate, b.weight()), (None, 1.0));
        let broken = ["1", "x", "y", "fast"].join(UNIT);
        assert!(unpack(&broken).unwrap_err().0.contains("row 1: not 12 columns"));
        let nan = ["1", "shop", "", "", "fast", "", "", "", "", "", "", ""].join(UNIT);
        assert!(unpack(&nan).unwrap_err().0.contains("not a number"));
    }
}
