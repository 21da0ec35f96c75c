//! The server's parts opened from a [`Config`]: the replay endpoint's
//! catalog and limits, the database with the study server and the field
//! collector on it, health, metrics and the built-in load, put together as
//! the [`Routes`] every serving thread serves.

use std::net::SocketAddr;
use std::sync::Arc;

use lab_core::replay::profile::Profile;
use tokio_util::sync::CancellationToken;

use super::router::Routes;
use super::{Config, ServeError};
use crate::health::Ops;
use crate::ops::address::Origins;
use crate::ops::metrics::Metrics;
use crate::ops::observe::Observer;
use crate::ops::streams::{PUBLIC_MAX_PER_CLIENT, Streams};
use crate::replay::api::{Api, Limits};
use crate::replay::catalog::{Catalog, CatalogError};
use crate::replay::pacer::Pacer;
use crate::studies::http::{Reach, StudyApi};

/// A server opened and not yet serving.
pub struct Server {
    /// What every serving thread serves ([`super::router::router`]).
    pub routes: Routes,
    /// Cancelled on SIGTERM: every serving thread and open stream stops.
    pub stop: CancellationToken,
    /// The runtime the database's connections live on; every serving
    /// thread uses it.
    pub db: tokio::runtime::Runtime,
    /// The demo site's field key, when this serve has the demo page.
    pub demo: Option<Result<String, crate::field::demo::DemoError>>,
}

impl Server {
    /// Opens everything `config` names, for a server listening on `bound`
    /// (its port is the built-in load's target; a loopback address makes
    /// a private instance). Prints the researcher token when it is made.
    pub fn open(config: &Config, bound: SocketAddr) -> Result<Self, ServeError> {
        let fallback = match &config.profile {
            Some(p) => Some(match lab_core::replay::profile::preset(p) {
                Some(p) => p,
                None => p.parse::<Profile>().map_err(CatalogError::from)?,
            }),
            None => None,
        };
        let fault = config
            .fault
            .as_deref()
            .map(str::parse::<lab_core::serve::fault::Fault>)
            .transpose()
            .map_err(CatalogError::from)?;
        let catalog = Catalog::new(&config.traces, fallback)?;
        let metrics = Arc::new(Metrics::default());
        let public = config.public_url.is_some() || !bound.ip().is_loopback();
        let origins = Origins::new(config.public_url.as_ref(), bound);
        let reach = Reach { origins: origins.clone(), public: config.public_url.clone() };
        let (studies, field_store, db) = open_studies(config, reach, Arc::clone(&metrics))?;
        let demo = demo_key(config, bound, &field_store, &db);
        crate::field::retention::keep_for(
            &db,
            field_store.clone(),
            config.field_retention_days,
            crate::field::retention::PURGE_EVERY,
            crate::field::http::now_ms,
        );
        let field = Arc::new(crate::field::http::FieldApi {
            collector: crate::field::service::Collector::new(field_store),
            studies: Arc::clone(&studies),
        });
        let stop = CancellationToken::new();
        let max_streams =
            config.max_streams_per_client.unwrap_or(if public { PUBLIC_MAX_PER_CLIENT } else { 0 });
        let limits = Limits {
            bounds: lab_core::serve::bounds::Bounds {
                max_wait_ms: config.max_wait_ms,
                max_response_ms: config.max_response_ms,
            },
            streams: Streams::new(max_streams, metrics.open_streams.clone()),
            lateness: Some(metrics.lateness.clone()),
            shutdown: stop.clone(),
        };
        let api = Arc::new(Api::new(catalog, Pacer::new(), fault).limited(limits));
        let load_client = crate::client::tls::client(false, None)?;
        let load = crate::replay::load::LoadApi::new(
            Arc::clone(&api.traffic),
            bound.port(),
            origins,
            public,
            load_client,
        );
        let routes = Routes {
            api,
            dist: (!config.api_only).then_some(config.dist.clone()),
            ops: Arc::new(Ops { studies: Arc::clone(&studies), metrics: Arc::clone(&metrics) }),
            studies,
            observer: Arc::new(Observer { metrics, trusted: config.trusted_proxies.clone() }),
            load: Arc::new(load),
            field,
        };
        Ok(Self { routes, stop, db, demo })
    }

    /// Closes the database's connections (SQLite then checkpoints its log).
    pub fn close(self) {
        self.db.block_on(self.routes.studies.close());
    }
}

/// The demo site's field key ([`crate::field::demo`]), when this serve has
/// the demo page and listens on loopback only (`None` otherwise).
fn demo_key(
    args: &Config,
    bound: SocketAddr,
    field: &crate::field::store::SqlField,
    runtime: &tokio::runtime::Runtime,
) -> Option<Result<String, crate::field::demo::DemoError>> {
    use crate::field::demo;
    let has_page = !args.api_only
        && args.public_url.is_none()
        && bound.ip().is_loopback()
        && args.dist.join(demo::PAGE).join("index.html").is_file();
    has_page.then(|| {
        runtime.block_on(demo::register(
            field,
            &args.data,
            bound,
            &args.field_pages,
            crate::field::http::now_ms(),
        ))
    })
}

/// Opens the study database (creating the data directory and the SQLite
/// file on first start, applying migrations) and the researcher token,
/// printed when it is made. The database's connections live on a runtime
/// of their own, which every serving thread uses.
fn open_studies(
    args: &Config,
    reach: Reach,
    metrics: Arc<Metrics>,
) -> Result<(Arc<StudyApi>, crate::field::store::SqlField, tokio::runtime::Runtime), ServeError> {
    use crate::db::setup;
    let url = setup::database_url(&args.data, args.db.as_deref())?;
    let token_file = args.token_file.clone().unwrap_or_else(|| args.data.join(setup::TOKEN_FILE));
    let (token, made) = setup::researcher_token(&token_file)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
    let store = runtime
        .block_on(crate::db::Database::connect(&url))
        .map_err(|source| ServeError::Database { url: redact(&url), source })?;
    if made {
        println!("Researcher token (shown once; saved in {}): {token}", token_file.display());
    } else {
        println!("Researcher token: in {}", token_file.display());
    }
    println!("Study database: {}", redact(&url));
    let field = crate::field::store::SqlField::on(&store);
    Ok((Arc::new(StudyApi::new(store, token, reach, metrics)), field, runtime))
}

/// A database URL without its password.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let user = &url[s + 3..at];
            let name = user.split(':').next().unwrap_or("");
            format!("{}{name}{}{}", &url[..s + 3], if user.contains(':') { ":***" } else { "" }, &url[at..])
        }
        _ => url.to_string(),
    }
}
