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

/// Arguments of `field`.
#[derive(Debug, clap::Args)]
pub struct FieldArgs {
    #[command(subcommand)]
    pub command: FieldCommand,
}

/// What `field` does.
#[derive(Debug, clap::Subcommand)]
pub enum FieldCommand {
    /// Register a site whose pages send field data; prints its ingest key
    /// (shown once).
    AddSite(AddSiteArgs),
}

/// Arguments of `field add-site`.
#[derive(Debug, clap::Args)]
pub struct AddSiteArgs {
    /// The site's name (letters, digits, `-`, `_`, `.`; at most 64).
    pub name: String,
    /// An origin its pages are served from, e.g. `https://shop.example`
    /// (repeat for several). Only these get CORS answers and may send.
    #[arg(long = "origin", required = true)]
    pub origins: Vec<String>,
    /// The data directory `serve --data` uses.
    #[arg(long, default_value = crate::studies::setup::DEFAULT_DATA_DIR)]
    pub data: PathBuf,
    /// The database `serve --db` uses, if not the data directory's SQLite file.
    #[arg(long)]
    pub db: Option<String>,
}

/// Why a site could not be added.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    /// A bad name or origin.
    #[error("{0}")]
    Input(String),
    /// The database.
    #[error("{0}")]
    Store(String),
}

impl FieldError {
    /// Process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input(_) => 2,
            Self::Store(_) => 1,
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
pub fn add_site(args: &AddSiteArgs) -> Result<String, FieldError> {
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
    let key = new_key().map_err(|e| FieldError::Store(e.to_string()))?;
    let url = crate::studies::setup::database_url(&args.data, args.db.as_deref())
        .map_err(|e| FieldError::Store(e.to_string()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| FieldError::Store(e.to_string()))?;
    runtime.block_on(async {
        let db = crate::studies::sql::SqlStore::connect(&url)
            .await
            .map_err(|e| FieldError::Store(e.to_string()))?;
        let site = FieldSite { name: name.clone(), origins };
        let added = store::SqlField::on(&db).add_site(&site, &service::key_hash(&key), now_ms()).await;
        db.close().await;
        match added {
            Ok(true) => Ok(key),
            Ok(false) => Err(FieldError::Input(format!("a site named \"{name}\" exists already"))),
            Err(e) => Err(FieldError::Store(e.to_string())),
        }
    })
}

/// A fresh ingest key: [`service::KEY_PREFIX`] and 32 random bytes in hex.
pub fn new_key() -> Result<String, crate::studies::setup::SetupError> {
    let bytes: [u8; 32] = crate::studies::setup::random()?;
    Ok(format!("{}{}", service::KEY_PREFIX, bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
