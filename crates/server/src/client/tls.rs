//! The runner's HTTP client: keep-alive HTTP/1.1 pools, or one HTTP/2
//! connection; `https://` targets over rustls, trusting the system's roots
//! and any `--ca` file, with ALPN, so a TLS server that offers HTTP/2 gets
//! it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hyper_rustls::HttpsConnectorBuilder;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use super::send::HttpClient;

/// How long an idle pooled connection is kept.
const POOL_IDLE: Duration = Duration::from_secs(90);

/// Why the client could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The `--ca` file is missing or is not PEM.
    #[error("--ca {}: {source}", path.display())]
    Ca {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        source: rustls::pki_types::pem::Error,
    },
    /// The `--ca` file holds no certificate.
    #[error("--ca {}: no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// A certificate of the `--ca` file that rustls does not take as a root.
    #[error("--ca {}: {source}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// Why rustls refused it.
        source: rustls::Error,
    },
    /// rustls refused the configuration.
    #[error("TLS: {0}")]
    Tls(#[from] rustls::Error),
}

/// The certificates trusted for `https://` targets: the system's, plus
/// every certificate of the PEM file `ca`.
fn roots(ca: Option<&Path>) -> Result<rustls::RootCertStore, ClientError> {
    let mut store = rustls::RootCertStore::empty();
    // A system store that cannot be read leaves only `--ca`; a target it
    // would have vouched for then fails per request, saying why.
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = store.add(cert);
    }
    if let Some(path) = ca {
        let path = path.to_path_buf();
        let certs = CertificateDer::pem_file_iter(&path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|source| ClientError::Ca { path: path.clone(), source })?;
        if certs.is_empty() {
            return Err(ClientError::NoCertificate { path });
        }
        for cert in certs {
            store.add(cert).map_err(|source| ClientError::Refused { path: path.clone(), source })?;
        }
    }
    Ok(store)
}

/// The client of a run (and of the built-in load): `http2` uses one HTTP/2
/// connection (prior knowledge on `http://`, ALPN `h2` on `https://`).
pub fn client(http2: bool, ca: Option<&Path>) -> Result<HttpClient, ClientError> {
    // rustls 0.23.48 marks ring's provider deprecated (it has no
    // post-quantum key exchange); its alternative, aws-lc-rs, would add a
    // CMake build of aws-lc to every fresh machine. Classical key exchange
    // is enough to measure latency against a serving endpoint.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots(ca)?)
        .with_no_client_auth();
    let https = HttpsConnectorBuilder::new().with_tls_config(tls).https_or_http();
    let connector = if http2 { https.enable_http2().build() } else { https.enable_all_versions().build() };
    Ok(Client::builder(TokioExecutor::new()).http2_only(http2).pool_idle_timeout(POOL_IDLE).build(connector))
}
