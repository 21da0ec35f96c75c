//! The field collector of the `latency-lab serve` that served this page, as
//! a researcher reads it (routes in `crates/server/src/field/http.rs`): its
//! sites, a period's summary by day, browser, model or site (with its requests
//! over time), and a period of one site's requests (one browser or model
//! if asked) as a lab trace, handed on as a file (the import worker reads
//! it like any other: metrics, scores, replay, comparison) and kept to
//! download.
//!
//! Plain HTTP through `gloo-net`, as the product's design names it for
//! calls made from the on-demand modules. The researcher token (the study
//! server's, kept for the tab) goes only into the `Authorization` header.

use gloo_net::http::{Request, Response};
use lab_core::field::summary::{FieldSummary, GroupBy};
use leptos::prelude::*;
use serde::Deserialize;
use wasm_bindgen_futures::spawn_local;

use super::study::TOKEN_KEY;
use super::use_storage::{Store, UseStorage, use_storage};

/// Why the collector could not be read; each a sentence for people.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldCollectorError {
    /// No researcher token given.
    #[error(
        "Give the researcher token: the researcher-token file in the data directory of the serve that collects (serve prints its path when it starts)."
    )]
    NoToken,
    /// No reply (network, server down).
    #[error("The collector did not answer ({0}). Is `latency-lab serve` running?")]
    NoAnswer(String),
    /// The server refused (its message).
    #[error("The collector said HTTP {status}: {message}")]
    Http {
        /// HTTP status.
        status: u16,
        /// The server's `{"error": …}`, or the start of its body.
        message: String,
    },
    /// A success whose body is not what the lab expects.
    #[error("The collector's reply is not understood ({0}).")]
    Unreadable(String),
}

/// A site, as `GET /v1/field/sites` lists it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FieldSite {
    /// Its name.
    pub name: String,
    /// Its registered origins.
    pub origins: Vec<String>,
    /// Requests kept.
    pub requests: u64,
}

#[derive(Deserialize)]
struct Sites {
    sites: Vec<FieldSite>,
}

/// What to read: one site's requests (every site's when `site` is empty)
/// sent from the day `from` to the day `to` (`YYYY-MM-DD`, UTC, both
/// included; empty: no bound), of one browser or model when not empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldQuery {
    /// The site.
    pub site: String,
    /// First day.
    pub from: String,
    /// Last day.
    pub to: String,
    /// A browser's name ("Firefox").
    pub browser: String,
    /// A model.
    pub model: String,
    /// The preset scenario (`chat`, …) the summary's groups are scored
    /// against (empty: none).
    pub scenario: String,
}

/// Milliseconds in a day.
const DAY_MS: f64 = 86_400_000.0;

/// Most requests *Load as a run* reads: a larger period comes as a random
/// sample of about this many, which its notes say (a snippet's request is
/// about 6 kB of trace, so this is about 60 MB for the import worker; a
/// summary always counts every request).
pub const LOAD_AT_MOST: u32 = 10_000;

impl FieldQuery {
    /// The query string of `GET /v1/field/requests`: at most
    /// [`LOAD_AT_MOST`], a larger period as a random sample.
    pub fn path(&self) -> String {
        format!("/v1/field/requests?{}&sample={LOAD_AT_MOST}", self.params())
    }

    /// The query string of `GET /v1/field/summary`, grouped `by`.
    pub fn summary_path(&self, by: GroupBy) -> String {
        let scenario = match self.scenario.trim() {
            "" => String::new(),
            s => format!("&scenario={}", js_sys::encode_uri_component(s)),
        };
        format!("/v1/field/summary?{}&by={}{scenario}", self.params(), by.name())
    }

    fn params(&self) -> String {
        let day = |d: &str| Some(js_sys::Date::parse(d.trim())).filter(|v| v.is_finite());
        let mut q: Vec<(&str, String)> = Vec::new();
        if !self.site.trim().is_empty() {
            q.push(("site", self.site.trim().to_string()));
        }
        q.extend(day(&self.from).map(|v| ("from", format!("{v:.0}"))));
        q.extend(day(&self.to).map(|v| ("to", format!("{:.0}", v + DAY_MS))));
        for (k, v) in [("browser", self.browser.trim()), ("model", self.model.trim())] {
            if !v.is_empty() {
                q.push((k, v.to_string()));
            }
        }
        let pairs: Vec<String> =
            q.iter().map(|(k, v)| format!("{k}={}", String::from(js_sys::encode_uri_component(v)))).collect();
        pairs.join("&")
    }
}

/// How the name of a period read from the collector ends (the rest is the
/// site): the Field view shows the runs of these files, the Import view
/// the others.
const COLLECTOR_FILE: &str = ".field-collector.trace.json";

/// Whether `name` is a period read from the collector.
pub fn is_collector_file(name: &str) -> bool {
    name.ends_with(COLLECTOR_FILE)
}

/// The collector as the Field view uses it.
#[derive(Clone, Copy)]
pub struct UseFieldCollector {
    /// The researcher token.
    pub token: UseStorage,
    /// The sites, once listed.
    pub sites: RwSignal<Vec<FieldSite>>,
    /// The last summary asked for.
    pub summary: RwSignal<Option<FieldSummary>>,
    /// The last failure.
    pub error: RwSignal<Option<String>>,
    /// A call is under way.
    pub busy: RwSignal<bool>,
    /// The last period read, as its trace file (to download).
    pub last: RwSignal<Option<web_sys::File>, LocalStorage>,
}

/// Starts the hook (nothing is read until asked).
pub fn use_field_collector() -> UseFieldCollector {
    UseFieldCollector {
        token: use_storage(Store::Session, TOKEN_KEY),
        sites: RwSignal::new(Vec::new()),
        summary: RwSignal::new(None),
        error: RwSignal::new(None),
        busy: RwSignal::new(false),
        last: RwSignal::new_local(None),
    }
}

async fn get(path: &str, token: &str) -> Result<String, FieldCollectorError> {
    if token.trim().is_empty() {
        return Err(FieldCollectorError::NoToken);
    }
    let res: Response = Request::get(path)
        .header("Authorization", &format!("Bearer {}", token.trim()))
        .send()
        .await
        .map_err(|e| FieldCollectorError::NoAnswer(e.to_string()))?;
    let body = res.text().await.map_err(|e| FieldCollectorError::NoAnswer(e.to_string()))?;
    if !res.ok() {
        let message = lab_core::serve::protocol::refusal_message(&body);
        return Err(FieldCollectorError::Http { status: res.status(), message });
    }
    Ok(body)
}

impl UseFieldCollector {
    fn call<F: std::future::Future<Output = Result<(), FieldCollectorError>> + 'static>(&self, f: F) {
        let s = *self;
        s.busy.set(true);
        spawn_local(async move {
            s.error.set(f.await.err().map(|e| e.to_string()));
            s.busy.set(false);
        });
    }

    /// Keeps the token for this browser session (blank: forget it).
    pub fn set_token(&self, token: String) {
        if let Err(e) = self.token.set(token.trim().to_string()) {
            self.error.set(Some(format!("The token cannot be kept in this tab: {e}")));
        }
    }

    /// Lists the sites.
    pub fn list_sites(&self) {
        let (s, token) = (*self, self.token.value.get_untracked());
        self.call(async move {
            let body = get("/v1/field/sites", &token).await?;
            let listed: Sites =
                serde_json::from_str(&body).map_err(|e| FieldCollectorError::Unreadable(e.to_string()))?;
            s.sites.set(listed.sites);
            Ok(())
        });
    }

    /// Summarises `query`'s requests grouped `by`.
    pub fn summarize(&self, query: FieldQuery, by: GroupBy) {
        let (s, token) = (*self, self.token.value.get_untracked());
        self.call(async move {
            let body = get(&query.summary_path(by), &token).await?;
            let summary =
                serde_json::from_str(&body).map_err(|e| FieldCollectorError::Unreadable(e.to_string()))?;
            s.summary.set(Some(summary));
            Ok(())
        });
    }

    /// Reads `query`'s requests and hands them to `then` as a trace file
    /// named after the query.
    pub fn load(&self, query: FieldQuery, then: Callback<web_sys::File>) {
        let (s, token) = (*self, self.token.value.get_untracked());
        self.call(async move {
            let body = get(&query.path(), &token).await?;
            let parts = js_sys::Array::of1(&body.into());
            let site = if query.site.is_empty() { "every-site" } else { query.site.as_str() };
            let name = format!("{site}{COLLECTOR_FILE}");
            let file = web_sys::File::new_with_str_sequence(&parts, &name)
                .map_err(|e| FieldCollectorError::Unreadable(super::files::js_message(&e)))?;
            s.last.set(Some(file.clone()));
            then.run(file);
            Ok(())
        });
    }

    /// Downloads the last period read, as the lab trace file `analyze`,
    /// the Import view and studies read.
    pub fn download_last(&self) {
        let Some(file) = self.last.get_untracked() else { return };
        if let Err(e) = super::files::download_blob(&file, &file.name()) {
            self.error.set(Some(e.to_string()));
        }
    }
}
