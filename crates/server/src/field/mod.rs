//! Field data: `latency-lab serve`'s collector for what real users'
//! browsers saw (and what any OpenTelemetry SDK sends), kept in the study
//! database.
//!
//! - [`decode`]: an OTLP/HTTP body (JSON or protobuf) as spans;
//! - [`service`]: one batch checked, read and kept ([`service::Collector`]);
//! - [`store`]: sites and requests on the database, or in memory;
//! - [`http`]: the routes;
//! - [`retention`]: old requests deleted (`--field-retention-days`);
//! - [`demo`]: the demo chat page's site, registered by `serve`;
//! - [`add_site`]: `latency-lab field add-site NAME --origin URL`, which
//!   makes a site's ingest key.

pub mod decode;
pub mod demo;
pub mod http;
#[cfg(test)]
pub mod memory;
pub mod retention;
mod rows;
pub mod service;
pub mod store;

use std::path::PathBuf;

use store::{FieldSite, FieldStore};

/// A site to register: what `latency-lab field add-site` was given.
#[derive(Debug, Clone)]
pub struct NewSite {
    /// The site's name (letters, digits, `-`, `_`, `.`; at most 64).
    pub name: String,
    /// Origins its pages are served from (`scheme://host[:port]`).
    pub origins: Vec<String>,
    /// The data directory `serve --data` uses.
    pub data: PathBuf,
    /// The database `serve --db` uses, if not the data directory's SQLite file.
    pub db: Option<String>,
}

/// Why a site could not be added.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    /// A bad name or origin.
    #[error("{0}")]
    Input(String),
    /// The data directory or the key's random bytes.
    #[error("{0}")]
    Setup(#[from] crate::db::setup::SetupError),
    /// The database.
    #[error("{0}")]
    Store(#[from] crate::db::StoreError),
    /// The runtime the database runs on.
    #[error("cannot start the database's runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

impl FieldError {
    /// Process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input(_) => 2,
            Self::Setup(_) | Self::Store(_) | Self::Runtime(_) => 1,
        }
    }
}

/// An origin as browsers send it: `scheme://host[:port]`, no path.
fn origin(o: &str) -> Result<String, FieldError> {
    let bad = || {
        FieldError::Input(format!(
            "--origin {o}: give scheme://host[:port] with no path, e.g. https://shop.example"
        ))
    };
    let (scheme, rest) = o.split_once("://").ok_or_else(bad)?;
    let ok_host = !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
        && !rest.starts_with(':');
    if !matches!(scheme, "http" | "https") || !ok_host {
        return Err(bad());
    }
    Ok(format!("{scheme}://{}", rest.to_ascii_lowercase()))
}

/// Registers a site; its key.
pub fn add_site(args: &NewSite) -> Result<String, FieldError> {
    let name = &args.name;
    if name.is_empty()
        || name.len() > 64
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    {
        return Err(FieldError::Input(format!(
            "{name:?}: a site name is 1–64 letters, digits, '-', '_' or '.'"
        )));
    }
    let origins = args.origins.iter().map(|o| origin(o)).collect::<Result<Vec<_>, _>>()?;
    let key = new_key()?;
    let url = crate::db::setup::database_url(&args.data, args.db.as_deref())?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let db = crate::db::Database::connect(&url).await?;
        let site = FieldSite { name: name.clone(), origins };
        let added = store::SqlField::on(&db).add_site(&site, &service::key_hash(&key), now_ms()).await;
        db.close().await;
        match added {
            Ok(true) => Ok(key),
            Ok(false) => Err(FieldError::Input(format!("a site named \"{name}\" exists already"))),
            Err(e) => Err(e.into()),
        }
    })
}

/// A fresh ingest key: [`service::KEY_PREFIX`] and 32 random bytes in hex.
pub fn new_key() -> Result<String, crate::db::setup::SetupError> {
    let bytes: [u8; 32] = crate::db::setup::random()?;
    Ok(format!("{}{}", service::KEY_PREFIX, bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
