//! The demo chat page's field site. The app's build carries a chat page as
//! products build them (`dist/examples/chat/`); `serve` on a loopback
//! address, whatever its port and data directory, registers a site named
//! [`SITE`] for the origins it is reached at (`http://127.0.0.1:PORT` and
//! `http://localhost:PORT`), keeps the site's ingest key in the data
//! directory ([`KEY_FILE`], readable by its owner only) and prints the
//! page's address with the key in the fragment, which no server sees.
//!
//! A later start on another port adds that port's origins to the site, so
//! a page opened from any address serve printed may send. When the
//! database holds a site of that name whose key the data directory does
//! not (a key file deleted, a database shared with another data
//! directory), serve says so and prints no address rather than replacing a
//! key someone else holds.

use std::net::SocketAddr;
use std::path::Path;

use super::service::key_hash;
use super::store::{FieldSite, FieldStore, SqlField};
use crate::studies::store::StoreError;

/// The demo page's site name.
pub const SITE: &str = "demo";
/// The file in the data directory holding the demo site's ingest key.
pub const KEY_FILE: &str = "field-demo-key";
/// The page, under the app's address.
pub const PAGE: &str = "examples/chat/";
/// The other demo pages (their path under the app's address, and what they
/// are), sending to the same site with the same key: offered when the
/// build has them.
pub const MORE_PAGES: [(&str, &str); 4] = [
    ("examples/ai-sdk/", "AI SDK chat page (React, useChat)"),
    ("examples/text/", "Plain-text chat page"),
    ("examples/events/", "EventSource chat page"),
    ("examples/socket/", "WebSocket chat page"),
];

/// Why the demo page has no field site.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The key file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The key file.
        path: std::path::PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// No random bytes for a key.
    #[error("{0}")]
    Key(#[from] crate::studies::setup::SetupError),
    /// The database.
    #[error("the field database: {0}")]
    Store(#[from] StoreError),
    /// The name is taken by a site whose key this data directory lacks.
    #[error(
        "a field site named \"{SITE}\" exists in this database, but {0} does not hold its key (field data from the demo page is off; delete the site or restore the key file)"
    )]
    Foreign(std::path::PathBuf),
}

/// The origins browsers send for pages served at `bound` (loopback).
pub fn origins(bound: SocketAddr) -> Vec<String> {
    let port = bound.port();
    let own = if bound.ip().is_unspecified() || bound.is_ipv4() {
        format!("http://127.0.0.1:{port}")
    } else {
        format!("http://{bound}")
    };
    vec![own, format!("http://localhost:{port}")]
}

/// Registers (or widens) the demo site for `bound` and gives the demo
/// page's address, `local_url` (the app's address) + [`PAGE`] + `#key=…`.
pub async fn register(
    field: &SqlField,
    data: &Path,
    bound: SocketAddr,
    local_url: &str,
    now_ms: i64,
) -> Result<String, DemoError> {
    let path = data.join(KEY_FILE);
    let wanted = origins(bound);
    let held = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text.trim().to_string()).filter(|k| !k.is_empty()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(DemoError::Io { path, source }),
    };
    let site = match &held {
        Some(key) => field.site_by_key(&key_hash(key)).await?,
        None => None,
    };
    let key = match (held, site) {
        (Some(key), Some(site)) => {
            let mut all = site.origins.clone();
            all.extend(wanted.iter().filter(|o| !site.origins.contains(o)).cloned());
            if all.len() > site.origins.len() {
                field.set_origins(&site.name, &all).await?;
            }
            key
        }
        _ => {
            let key = super::new_key()?;
            let site = FieldSite { name: SITE.into(), origins: wanted };
            if !field.add_site(&site, &key_hash(&key), now_ms).await? {
                return Err(DemoError::Foreign(path));
            }
            // A stale key file (its site gone with its database) is replaced.
            let _ = std::fs::remove_file(&path);
            crate::studies::setup::write_private(&path, &key)
                .map_err(|source| DemoError::Io { path: path.clone(), source })?;
            key
        }
    };
    Ok(format!("{local_url}{PAGE}#key={key}"))
}
