//! The collector's routes:
//!
//! | route | who | does |
//! |---|---|---|
//! | `POST /v1/traces` | a site's pages, any OTLP/HTTP exporter | keeps the batch's GenAI inference spans as requests → 200 `{}` or `{"partialSuccess": …}` |
//! | `OPTIONS /v1/traces` | browsers (CORS preflight) | 204 with CORS headers for an origin some site registered, 403 otherwise |
//! | `GET /v1/field/requests` | researcher | the requests kept (`?site=`, `?from=`/`?to=` ms since 1970, `?limit=`, `?sample=N`: a period of more than N read as a random sample of about N, said in the trace's notes; then `?browser=` and `?model=` keep those of one browser or model), as a lab trace |
//! | `GET /v1/field/summary` | researcher | a site's requests (`?site=`; none: every site's), `?from=`/`?to=`, `?browser=`, `?model=`, grouped `?by=day`, `browser`, `model` or `site`: counts, failures, stalled requests, the percentiles of each figure and QoE with 95% intervals, and the requests over time (`lab_core::field::summary`); with `?scenario=chat` (a preset), each group's scenario score over a random sample of about 2,000 of the period's requests (`lab_core::field::scores`) |
//! | `GET /v1/field/sites` | researcher | the sites, their origins and request counts |
//!
//! A batch needs its site's ingest key (`Authorization: Bearer <key>`, or
//! `?key=` where a page's `sendBeacon` cannot set headers; request logs
//! never hold queries). CORS answers name only the origins a site
//! registered. Every refusal is a 4xx (or a 503 with `Retry-After` when
//! the database failed) with `{"error": "…"}`, and nothing of the batch
//! is stored.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use http_body_util::{BodyExt, Limited};
use lab_core::field::scores::SAMPLE as SCORE_SAMPLE;
use lab_core::field::summary::{FieldSummary, GroupBy};
use lab_core::measure::score::preset;
use lab_core::serve::token;
use serde_json::json;

use super::service::{Collector, MAX_BODY, Post, Refusal};
use super::store::{FieldStore, Sample, SqlField};
use crate::db::StoreError;
use crate::error::{ApiError, refuse};
use crate::ops::observe::ClientIp;
use crate::studies::http::StudyApi;
use lab_core::field::span::FieldSpan;

/// Most requests one read returns.
pub const MAX_READ: usize = 100_000;

/// The collector's state: its store, and the study server (whose
/// researcher token guards the reading routes).
pub struct FieldApi {
    /// Checks and keeps batches.
    pub collector: Collector<SqlField>,
    /// The researcher check.
    pub studies: Arc<StudyApi>,
}

type Shared = State<Arc<FieldApi>>;

/// Now (ms since 1970), on the system clock.
pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

fn allow_origin(mut r: Response, origin: Option<&str>) -> Response {
    if let Some(v) = origin.and_then(|o| HeaderValue::from_str(o).ok()) {
        r.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        r.headers_mut().insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    r
}

fn refusal(r: &Refusal) -> Response {
    let e = ApiError::new(StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST), &r.message);
    r.retry_after_s.map_or(e.clone(), |s| e.retry_after(s)).into_response()
}

async fn ingest(
    State(api): Shared,
    client: Option<Extension<ClientIp>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let text = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok());
    let origin = text(header::ORIGIN);
    // One byte over the limit is enough to say the body is too large.
    let bytes = match Limited::new(body, MAX_BODY + 1).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => vec![0u8; MAX_BODY + 1].into(),
    };
    let key = text(header::AUTHORIZATION).and_then(token::bearer).or(query.get("key").map(String::as_str));
    let client = client.map_or_else(|| "unknown".to_string(), |Extension(ClientIp(ip))| ip.to_string());
    let post = Post {
        key,
        origin,
        content_type: text(header::CONTENT_TYPE),
        user_agent: text(header::USER_AGENT),
        body: &bytes,
        client: &client,
        now_ms: now_ms(),
    };
    match api.collector.ingest(post).await {
        Ok(got) => {
            let reply = match got.why_rejected {
                Some(why) => {
                    json!({ "partialSuccess": { "rejectedSpans": got.rejected.to_string(), "errorMessage": why } })
                }
                None => json!({}),
            };
            allow_origin(Json(reply).into_response(), origin)
        }
        Err(r) => refusal(&r),
    }
}

/// The CORS preflight: an origin some site registered may post.
async fn preflight(State(api): Shared, headers: HeaderMap) -> Response {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return refuse(StatusCode::BAD_REQUEST, "a preflight without Origin");
    };
    match api.collector.origin_registered(origin).await {
        Ok(true) => {
            let mut r = StatusCode::NO_CONTENT.into_response();
            let h = r.headers_mut();
            h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("POST"));
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static("content-type, authorization"),
            );
            h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
            allow_origin(r, Some(origin))
        }
        Ok(false) => refuse(StatusCode::FORBIDDEN, format!("origin {origin} is not registered for any site")),
        Err(e) => refuse(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

/// Query value `k` as a number (`default` when absent), or why not.
fn number(q: &HashMap<String, String>, k: &str, default: f64) -> Result<f64, String> {
    q.get(k).map_or(Ok(default), |v| v.parse::<f64>().map_err(|_| format!("?{k}= must be a number")))
}

/// `?browser=` (a browser's name, any case) and `?model=`: which requests
/// a read keeps, the same for the requests and their summary.
struct Only {
    browser: Option<String>,
    model: Option<String>,
}

impl Only {
    fn of(q: &HashMap<String, String>) -> Self {
        let given = |k: &str| q.get(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        Self { browser: given("browser").map(|b| b.to_ascii_lowercase()), model: given("model") }
    }

    fn keeps(&self, browser: Option<&str>, model: Option<&str>) -> bool {
        self.browser.as_deref().is_none_or(|b| browser.is_some_and(|x| x.eq_ignore_ascii_case(b)))
            && self.model.as_deref().is_none_or(|m| model == Some(m))
    }
}

async fn requests(
    State(api): Shared,
    client: Option<Extension<ClientIp>>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    if let Some(r) = api.studies.researcher(&headers, client.map(|Extension(ClientIp(ip))| ip)) {
        return r;
    }
    let (from, to, limit) =
        match (number(&q, "from", 0.0), number(&q, "to", f64::MAX), number(&q, "limit", MAX_READ as f64)) {
            (Ok(f), Ok(t), Ok(l)) => (f, t, (l.max(0.0) as usize).min(MAX_READ)),
            (Err(m), _, _) | (_, Err(m), _) | (_, _, Err(m)) => return refuse(StatusCode::BAD_REQUEST, m),
        };
    let site = q.get("site").map(String::as_str).filter(|s| !s.is_empty());
    // `?sample=N`: a period of more than N requests is read as a sample of about N.
    let at_most = match number(&q, "sample", 0.0) {
        Ok(n) => (n >= 1.0).then_some(n as u64),
        Err(m) => return refuse(StatusCode::BAD_REQUEST, m),
    };
    match read(&api, site, (from, to), limit, at_most).await {
        Ok((mut spans, sample)) => {
            // The limit is the store's: counted before one browser or model is kept.
            let full = limit > 0 && spans.len() >= limit;
            let only = Only::of(&q);
            spans.retain(|s| only.keeps(s.browser.as_ref().map(|b| b.0.as_str()), s.model.as_deref()));
            let mut trace = lab_core::field::trace_of(&spans);
            if let Some(s) = sample {
                trace.meta.notes.push(format!(
                    "A sample: each of the period's {} requests was kept with the same chance ({:.2}%), wherever it fell in the period; {} are here (the summary counts them all).",
                    s.of,
                    s.chance() * 100.0,
                    spans.len()
                ));
            }
            if full {
                trace.meta.notes.push(format!(
                    "Only the first {limit} requests of the period are here (one read returns at most {MAX_READ}): narrow the period or the browser for the rest."
                ));
            }
            ([(header::CONTENT_TYPE, "application/json")], trace.to_json()).into_response()
        }
        Err(e) => refuse(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

/// A period's requests, at most `limit`; with `at_most`, a period of more
/// than that many read as a random sample of about that many (which it
/// returns).
async fn read(
    api: &FieldApi,
    site: Option<&str>,
    (from, to): (f64, f64),
    limit: usize,
    at_most: Option<u64>,
) -> Result<(Vec<FieldSpan>, Option<Sample>), StoreError> {
    let store = &api.collector.store;
    let sample = match at_most {
        Some(n) => Sample::of(store.count(site, from, to).await?, n),
        None => None,
    };
    let spans = store.requests(site, from, to, limit, sample.map(|s| s.below)).await?;
    Ok((spans, sample))
}

async fn summary(
    State(api): Shared,
    client: Option<Extension<ClientIp>>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    if let Some(r) = api.studies.researcher(&headers, client.map(|Extension(ClientIp(ip))| ip)) {
        return r;
    }
    // No `?site=`: every site's requests (`?by=site` compares them).
    let site = q.get("site").map(String::as_str).filter(|s| !s.is_empty());
    let by = q.get("by").map_or("day", String::as_str);
    let Some(by) = GroupBy::from_name(by) else {
        let names: Vec<&str> = GroupBy::ALL.iter().map(|g| g.name()).collect();
        return refuse(StatusCode::BAD_REQUEST, format!("?by={by}: give one of {}", names.join(", ")));
    };
    let (from, to) = match (number(&q, "from", 0.0), number(&q, "to", f64::MAX)) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(m), _) | (_, Err(m)) => return refuse(StatusCode::BAD_REQUEST, m),
    };
    let scenario = match q.get("scenario").filter(|s| !s.is_empty()).map(|s| preset(s)) {
        Some(Err(e)) => return refuse(StatusCode::BAD_REQUEST, format!("?scenario=: {e}")),
        Some(Ok(s)) => Some(s),
        None => None,
    };
    let only = Only::of(&q);
    let store = &api.collector.store;
    let mut summary = match store.rows(site, from, to).await {
        Ok(mut rows) => {
            rows.retain(|r| only.keeps(r.browser.as_deref(), r.model.as_deref()));
            FieldSummary::of(&rows, by)
        }
        Err(e) => return refuse(StatusCode::SERVICE_UNAVAILABLE, e),
    };
    if let Some(scenario) = scenario {
        // A score is a run statistic: taken over a random sample of the
        // period's whole requests (`lab_core::field::scores`).
        match read(&api, site, (from, to), MAX_READ, Some(SCORE_SAMPLE)).await {
            Ok((mut spans, _)) => {
                spans.retain(|s| only.keeps(s.browser.as_ref().map(|b| b.0.as_str()), s.model.as_deref()));
                summary.score_groups(spans, &scenario);
            }
            Err(e) => return refuse(StatusCode::SERVICE_UNAVAILABLE, e),
        }
    }
    Json(summary).into_response()
}

async fn sites(State(api): Shared, client: Option<Extension<ClientIp>>, headers: HeaderMap) -> Response {
    if let Some(r) = api.studies.researcher(&headers, client.map(|Extension(ClientIp(ip))| ip)) {
        return r;
    }
    let store = &api.collector.store;
    let listed = match store.sites().await {
        Ok(s) => s,
        Err(e) => return refuse(StatusCode::SERVICE_UNAVAILABLE, e),
    };
    let mut out = Vec::new();
    for s in listed {
        let count = match store.count(Some(&s.name), f64::MIN, f64::MAX).await {
            Ok(n) => n,
            Err(e) => return refuse(StatusCode::SERVICE_UNAVAILABLE, e),
        };
        out.push(json!({ "name": s.name, "origins": s.origins, "requests": count }));
    }
    Json(json!({ "sites": out })).into_response()
}

/// The collector's routes.
pub fn router(api: Arc<FieldApi>) -> Router {
    Router::new()
        .route("/v1/traces", post(ingest).options(preflight))
        .route("/v1/field/requests", get(requests))
        .route("/v1/field/summary", get(summary))
        .route("/v1/field/sites", get(sites))
        .with_state(api)
}
