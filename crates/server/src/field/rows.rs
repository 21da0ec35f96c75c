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
//! ([`real`]; the figures as the collector wrote them) and are read back
//! here, each column by its name ([`Column`]). BENCHMARKS.md ("Field data") has the times.

use lab_core::field::row::Figures;
use lab_core::field::summary::FieldRow;
use sqlx::{AnyPool, Row};

use crate::db::StoreError;

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

/// What a summary reads of each request, in the order [`query`] packs
/// it (the variant's number is its place: [`Column::ALL`]). `Figures` holds
/// every latency figure by the registry's ids
/// (`lab_core::field::row::Figures::to_text`, written at ingest); requests
/// kept before migration 0007 have it NULL and their four figures of then
/// in their own columns ([`LEGACY`]), written here in the same `id=value`
/// form.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Column {
    SentUs,
    Site,
    Browser,
    Model,
    Failed,
    Stalls,
    Qoe,
    SampleRate,
    Figures,
}

impl Column {
    /// Every column, each at its own number.
    const ALL: [Column; 9] = [
        Self::SentUs,
        Self::Site,
        Self::Browser,
        Self::Model,
        Self::Failed,
        Self::Stalls,
        Self::Qoe,
        Self::SampleRate,
        Self::Figures,
    ];

    /// Its name in `field_requests` (and in the errors).
    fn name(self) -> &'static str {
        match self {
            Self::SentUs => "sent_us",
            Self::Site => "site",
            Self::Browser => "browser",
            Self::Model => "model",
            Self::Failed => "failed",
            Self::Stalls => "stalls",
            Self::Qoe => "qoe",
            Self::SampleRate => "sample_rate",
            Self::Figures => "figures",
        }
    }

    /// The SQL that writes it as text (neither separator in it).
    fn sql(self, sqlite: bool) -> String {
        let text = |c: &str| format!("REPLACE(REPLACE(COALESCE({c}, ''), $4, ''), $5, '')");
        let int = |c: &str| format!("COALESCE(CAST({c} AS TEXT), '')");
        match self {
            Self::SentUs => "CAST(sent_us AS TEXT)".into(),
            Self::Site | Self::Browser | Self::Model => text(self.name()),
            Self::Failed | Self::Stalls => int(self.name()),
            Self::Qoe | Self::SampleRate => real(self.name(), sqlite),
            // Written by the collector: ids and numbers, neither separator.
            Self::Figures => {
                let legacy: Vec<String> =
                    LEGACY.iter().map(|(c, id)| format!("'{id}=' || {}", real(c, sqlite))).collect();
                format!("COALESCE(figures, {})", legacy.join(" || ';' || "))
            }
        }
    }
}

/// The columns requests kept before migration 0007 hold their figures in,
/// with the latency row (`lab_core::measure::registry`) each one is.
const LEGACY: [(&str, &str); 4] = [
    ("ttft_ms", "ttft"),
    ("first_paint_ms", "ttfp"),
    ("paint_lag_ms", "paint_lag"),
    ("paint_gap_ms", "paint_gap"),
];

/// The columns, packed: `$4` is [`UNIT`], `$5` [`RECORD`]. One site's
/// period: `$1` the site, `$2`/`$3` the period (µs). Every site's: `$1`
/// NULL (typed, so PostgreSQL knows it). Two queries, not `$1 IS NULL OR
/// site = $1`: SQLite would not use the index for one site.
fn query(one_site: bool, sqlite: bool) -> String {
    let packed: Vec<String> = Column::ALL.iter().map(|c| c.sql(sqlite)).collect();
    let site = if one_site { "site = $1" } else { "CAST($1 AS TEXT) IS NULL" };
    format!(
        "SELECT string_agg({}, $5) FROM field_requests WHERE {site} AND sent_us >= $2 AND sent_us < $3",
        packed.join(" || $4 || ")
    )
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
        .await?;
    let packed: Option<String> = row.try_get(0)?;
    packed.map_or_else(|| Ok(Vec::new()), |p| unpack(&p))
}

/// The rows of a packed text, each column found by its name in [`columns`].
fn unpack(packed: &str) -> Result<Vec<FieldRow>, StoreError> {
    packed
        .split(RECORD)
        .enumerate()
        .map(|(i, record)| {
            let f: Vec<&str> = record.split(UNIT).collect();
            let bad =
                |what: &str| StoreError::stored(format!("field summary row {}: {what} in {record:?}", i + 1));
            if f.len() != Column::ALL.len() {
                return Err(bad(&format!("not {} columns", Column::ALL.len())));
            }
            let col = |c: Column| f[c as usize];
            let num = |c: Column| -> Result<Option<f64>, StoreError> {
                let v = col(c);
                (!v.is_empty())
                    .then(|| v.parse::<f64>().map_err(|_| bad(&format!("{} not a number", c.name()))))
                    .transpose()
            };
            let text = |c| Some(col(c)).filter(|v| !v.is_empty()).map(str::to_string);
            let sent_us: i64 = col(Column::SentUs).parse().map_err(|_| bad("no send time"))?;
            Ok(FieldRow {
                at_unix_ms: sent_us as f64 / 1000.0,
                site: text(Column::Site),
                browser: text(Column::Browser),
                model: text(Column::Model),
                figures: Figures::from_text(col(Column::Figures))
                    .map_err(|e| bad(&format!("figures: {e}")))?,
                failed: num(Column::Failed)?.unwrap_or(0.0) != 0.0,
                stalls: num(Column::Stalls)?.map_or(0, |n| n.clamp(0.0, f64::from(u32::MAX)) as u32),
                qoe: num(Column::Qoe)?,
                sample_rate: num(Column::SampleRate)?,
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

    /// A record as [`query`] packs it, its columns given by name.
    fn record(values: &[(&str, &str)]) -> String {
        Column::ALL
            .iter()
            .map(|c| values.iter().find(|(k, _)| *k == c.name()).map_or("", |(_, v)| *v))
            .collect::<Vec<_>>()
            .join(UNIT)
    }

    #[test]
    fn each_column_is_at_its_own_number() {
        for (i, c) in Column::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{c:?}");
        }
    }

    #[test]
    fn unpacks_rows_with_empty_columns_and_names_a_broken_one() {
        let packed = [
            record(&[
                ("sent_us", "1796515200000123"),
                ("site", "shop"),
                ("browser", "Firefox"),
                ("model", "tiny"),
                ("figures", "ttft=200.5;ttfp=320;paint_lag=100;paint_gap=560;e2el=900"),
                ("failed", "0"),
                ("stalls", "1"),
                ("qoe", "0.875"),
                ("sample_rate", "0.25"),
            ]),
            record(&[("sent_us", "1796515200500000"), ("site", "shop"), ("failed", "1")]),
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
            ["ttft", "ttfp", "paint_lag", "paint_gap", "e2el"].map(|id| a.figure(id)),
            [Some(200.5), Some(320.0), Some(100.0), Some(560.0), Some(900.0)]
        );
        assert_eq!((a.stalls, a.qoe, a.failed), (1, Some(0.875), false));
        assert_eq!((a.sample_rate, a.weight()), (Some(0.25), 4.0), "one of four requests reported");
        let b = &rows[1];
        assert_eq!(
            (b.browser.clone(), b.figure("ttft"), b.qoe, b.stalls, b.failed),
            (None, None, None, 0, true)
        );
        assert_eq!((b.sample_rate, b.weight()), (None, 1.0));
        let broken = ["1", "x", "y", "fast"].join(UNIT);
        assert!(unpack(&broken).unwrap_err().to_string().contains("row 1: not 9 columns"));
        let nan = record(&[("sent_us", "1"), ("qoe", "fast")]);
        assert!(unpack(&nan).unwrap_err().to_string().contains("qoe not a number"));
        let figures = record(&[("sent_us", "1"), ("figures", "ttft=fast")]);
        assert!(unpack(&figures).unwrap_err().to_string().contains("figures: ttft: `fast` is not a number"));
    }

    /// A request kept before migration 0007 (its figures in their own
    /// columns) and one kept since (by id) read alike, through SQLite.
    #[test]
    fn requests_kept_before_the_figures_column_are_read_from_their_own_columns() {
        sqlx::any::install_default_drivers();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let pool =
                sqlx::any::AnyPoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
            sqlx::migrate!("./migrations").run(&pool).await.unwrap();
            sqlx::query("INSERT INTO field_sites (name, key_sha256, origins, created_ms) VALUES ('shop', 'k', '', 0)")
                .execute(&pool)
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO field_requests (site, span_id, received_ms, sent_us, request, ttft_ms, first_paint_ms, \
                 failed, paint_lag_ms, paint_gap_ms, stalls, qoe, sample, figures) VALUES \
                 ('shop', 'old', 0, 1000, '{}', 200.5, NULL, 0, 10, NULL, 0, 0.5, 0, NULL), \
                 ('shop', 'new', 0, 2000, '{}', NULL, NULL, 0, NULL, NULL, 1, NULL, 0, 'ttft=300.25;e2el=900')",
            )
            .execute(&pool)
            .await
            .unwrap();
            let mut rows = read(&pool, Some("shop"), 0, 10_000).await.unwrap();
            rows.sort_by(|a, b| a.at_unix_ms.total_cmp(&b.at_unix_ms));
            let got: Vec<[Option<f64>; 4]> =
                rows.iter().map(|r| ["ttft", "ttfp", "paint_lag", "e2el"].map(|id| r.figure(id))).collect();
            assert_eq!(got, [[Some(200.5), None, Some(10.0), None], [Some(300.25), None, None, Some(900.0)]]);
            assert_eq!((rows[0].qoe, rows[1].stalls), (Some(0.5), 1));
        });
    }

    /// The legacy columns name rows of the registry.
    #[test]
    fn legacy_columns_are_latency_rows() {
        for (column, id) in LEGACY {
            assert!(lab_core::measure::registry::row(id).is_some(), "{column} → {id}");
        }
    }
}
