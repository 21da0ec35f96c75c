//! `latency-lab serve`: the built app over HTTP on 127.0.0.1.
//!
//! Every response carries `Cross-Origin-Opener-Policy: same-origin` and
//! `Cross-Origin-Embedder-Policy: require-corp`, which make the page
//! cross-origin isolated: browsers then give `performance.now()` its fine
//! resolution (5 µs instead of 100 µs), which the lab's timing relies on.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use axum::Router;
use axum::http::{HeaderName, HeaderValue};
use axum::routing::get;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// Default port of the lab.
pub const DEFAULT_PORT: u16 = 8377;

/// Arguments of `serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Directory of the built app (`trunk build --release` output).
    #[arg(long, default_value = "dist")]
    pub dist: PathBuf,
    /// Write the URL to this file once listening (for scripts and tests).
    #[arg(long)]
    pub url_file: Option<PathBuf>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The app is not built.
    #[error("{0} has no index.html: build the app first (./lab serve does it)")]
    NotBuilt(PathBuf),
    /// The port could not be bound.
    #[error("cannot listen on 127.0.0.1:{port}: {source} (try --port 0 for a free port)")]
    Bind {
        /// The port.
        port: u16,
        /// The OS error.
        source: std::io::Error,
    },
    /// Runtime or I/O failure while serving.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl ServeError {
    /// Process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::NotBuilt(_) => 2,
            _ => 1,
        }
    }
}

/// The router: app files, SPA fallback, health check, isolation headers.
pub fn router(dist: PathBuf) -> Router {
    let index = dist.join("index.html");
    let files = ServeDir::new(&dist).fallback(ServeFile::new(index));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .fallback_service(files)
        .layer(SetResponseHeaderLayer::overriding(
            HeaderName::from_static("cross-origin-opener-policy"),
            HeaderValue::from_static("same-origin"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            HeaderName::from_static("cross-origin-embedder-policy"),
            HeaderValue::from_static("require-corp"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            HeaderName::from_static("cross-origin-resource-policy"),
            HeaderValue::from_static("same-origin"),
        ))
}

/// Runs the server until Ctrl-C.
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    if !args.dist.join("index.html").is_file() {
        return Err(ServeError::NotBuilt(args.dist));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { port: args.port, source })?;
        let url = format!("http://{}/", listener.local_addr()?);
        if let Some(path) = &args.url_file {
            std::fs::write(path, &url)?;
        }
        println!("Latency Lab is running at {url}  (Ctrl-C to stop)");
        axum::serve(listener, router(args.dist))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(())
    })
}
