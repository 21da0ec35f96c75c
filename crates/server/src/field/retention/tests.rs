//! Retention on a clock the test sets, through the real SQL store on
//! SQLite and PostgreSQL: requests older than the cut-off go, the one at
//! it and newer ones stay.

use super::*;
use crate::db::Database;
use crate::field::store::{FieldSite, SqlField};
use lab_core::field::span::FieldSpan;

/// A clock the test sets: 2001-09-09T01:46:40Z, nowhere near today.
const NOW_MS: i64 = 1_000_000_000_000;
const DAYS: f64 = 30.0;
const CUT_MS: i64 = NOW_MS - 30 * 86_400_000;

#[test]
fn the_cutoff_is_the_period_before_now() {
    assert_eq!(cutoff_ms(NOW_MS, DAYS), Some(CUT_MS as f64));
    assert_eq!(cutoff_ms(NOW_MS, 0.5), Some((NOW_MS - 43_200_000) as f64));
    for never in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(cutoff_ms(NOW_MS, never), None, "{never} days keeps everything");
    }
}

fn span(id: &str, at_unix_ms: i64) -> FieldSpan {
    let request = lab_core::trace::RequestTrace { id: Some(id.into()), ..Default::default() };
    FieldSpan::recorded(request, at_unix_ms as f64, Some("shop"))
}

/// Requests on either side of the cut-off, the cut-off itself, now and
/// later (a page's clock ahead of the server's).
const SENT: [(&str, i64); 6] = [
    ("forty-days", NOW_MS - 40 * 86_400_000),
    ("just-before", CUT_MS - 1),
    ("at-cutoff", CUT_MS),
    ("just-after", CUT_MS + 1),
    ("now", NOW_MS),
    ("tomorrow", NOW_MS + 86_400_000),
];

async fn kept(store: &SqlField) -> Vec<String> {
    let spans = store.requests(None, f64::MIN, f64::MAX, 100, None).await.unwrap();
    spans.into_iter().map(|s| s.request.id.unwrap_or_default()).collect()
}

/// The serve loop's first pass (before [`keep_for`] returns) at
/// [`NOW_MS`], then a pass a day later.
fn old_requests_go_and_new_ones_stay(url: &str) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let store = rt.block_on(async {
        let db = Database::connect(url).await.unwrap();
        let store = SqlField::on(&db);
        let site = FieldSite { name: "shop".into(), origins: vec!["https://shop.example".into()] };
        assert!(store.add_site(&site, "k", 0).await.unwrap());
        let spans: Vec<FieldSpan> = SENT.iter().map(|(id, at)| span(id, *at)).collect();
        assert_eq!(store.add("shop", &spans, NOW_MS).await.unwrap(), SENT.len());
        store
    });
    keep_for(&rt, store.clone(), DAYS, PURGE_EVERY, || NOW_MS);
    assert_eq!(rt.block_on(kept(&store)), ["at-cutoff", "just-after", "now", "tomorrow"]);
    // A day on: the cut-off has moved a day.
    let later = NOW_MS + 86_400_000;
    assert_eq!(rt.block_on(purge(&store, later, DAYS)).unwrap(), 2);
    assert_eq!(rt.block_on(kept(&store)), ["now", "tomorrow"]);
    assert_eq!(rt.block_on(purge(&store, later, 0.0)).unwrap(), 0, "no retention: nothing deleted");
}

#[test]
fn sqlite_retention_deletes_what_is_older_than_the_period_and_keeps_the_rest() {
    let dir = std::env::temp_dir().join(format!("lab-retention-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    old_requests_go_and_new_ones_stay(&format!("sqlite://{}?mode=rwc", dir.join("studies.db").display()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn postgres_retention_deletes_what_is_older_than_the_period_and_keeps_the_rest() {
    let pg = lab_testkit::pg_cluster::PgCluster::start("retention");
    old_requests_go_and_new_ones_stay(&pg.url());
}
