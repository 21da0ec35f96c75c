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
use crate::db::StoreError;

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

/// Another page of the demo site, served from its own origin (`serve
/// --field-page URL`; `./lab serve` starts `examples/ai-sdk/server.mjs`,
/// the AI SDK page with its own `streamText` backend, and names it here):
/// its origin is let in to the demo site and its address printed with the
/// site's key and the collector's address.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldPage {
    /// The page's address as given (a fragment of its own settings kept).
    pub url: String,
    /// `scheme://host:port`, the `Origin` its browsers send.
    pub origin: String,
}

impl std::str::FromStr for FieldPage {
    type Err = String;

    fn from_str(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .map(|r| ("http", r))
            .or_else(|| url.strip_prefix("https://").map(|r| ("https", r)));
        let Some((scheme, rest)) = rest else {
            return Err(format!("{url:?} is not an http:// or https:// address"));
        };
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if host.is_empty() || host.contains(['@', ' ']) {
            return Err(format!("{url:?} names no host (expected e.g. http://127.0.0.1:3000/)"));
        }
        Ok(Self { url: url.to_string(), origin: format!("{scheme}://{host}") })
    }
}

impl FieldPage {
    /// The address to open: the page with `key` and the collector at
    /// `local_url` added to its fragment.
    pub fn address(&self, key: &str, local_url: &str) -> String {
        let more = format!("key={key}&collector={local_url}v1/traces");
        match self.url.split_once('#') {
            Some((_, "")) => format!("{}{more}", self.url),
            Some(_) => format!("{}&{more}", self.url),
            None => format!("{}#{more}", self.url),
        }
    }
}

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
    Key(#[from] crate::db::setup::SetupError),
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

/// Registers (or widens) the demo site for `bound` and the origins of
/// `more` pages, and gives its key.
pub async fn register(
    field: &SqlField,
    data: &Path,
    bound: SocketAddr,
    more: &[FieldPage],
    now_ms: i64,
) -> Result<String, DemoError> {
    let path = data.join(KEY_FILE);
    let mut wanted = origins(bound);
    for page in more {
        if !wanted.contains(&page.origin) {
            wanted.push(page.origin.clone());
        }
    }
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
            crate::db::setup::write_private(&path, &key)
                .map_err(|source| DemoError::Io { path: path.clone(), source })?;
            key
        }
    };
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::FieldPage;

    #[test]
    fn a_page_of_its_own_origin_is_let_in_and_given_the_key() {
        let page: FieldPage = "http://127.0.0.1:4000/#api=/api/chat".parse().unwrap();
        assert_eq!(page.origin, "http://127.0.0.1:4000");
        assert_eq!(
            page.address("llk_x", "http://127.0.0.1:8377/"),
            "http://127.0.0.1:4000/#api=/api/chat&key=llk_x&collector=http://127.0.0.1:8377/v1/traces"
        );
        let bare: FieldPage = "https://chat.example:8443/app?x=1".parse().unwrap();
        assert_eq!(bare.origin, "https://chat.example:8443");
        assert!(
            bare.address("k", "http://127.0.0.1:1/").starts_with("https://chat.example:8443/app?x=1#key=k&")
        );
        for wrong in ["127.0.0.1:4000", "ftp://x/", "http:///path", "http://user@host/"] {
            let e = wrong.parse::<FieldPage>().unwrap_err();
            assert!(e.contains(wrong), "{e}");
        }
    }
}
