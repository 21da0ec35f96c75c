//! `latency-lab serve`: the built app, the OpenAI-compatible replay
//! endpoint and the study server, in one process on 127.0.0.1 (or the
//! address of `--bind`, behind a TLS proxy: docs/src/operations/remote-studies.md; [`crate::ops`] has what running it as a service needs).
//!
//! - `/` …: the app. Responses carry `Cross-Origin-Opener-Policy:
//!   same-origin` and `Cross-Origin-Embedder-Policy: require-corp`, which make
//!   the page cross-origin isolated: browsers then give `performance.now()`
//!   its fine resolution (5 µs instead of 100 µs). They also carry a strict
//!   Content-Security-Policy ([`crate::site::csp`]), `X-Content-Type-Options:
//!   nosniff` and `Referrer-Policy: no-referrer`.
//! - `/v1/…`: the replay API ([`crate::replay::api`]), with CORS open to any origin
//!   (so chat UIs and the lab served elsewhere can use it), the ground-truth
//!   id exposed to scripts, and `Timing-Allow-Origin: *` so browsers expose
//!   Resource Timing details.

mod announce;
mod open;
pub mod router;
pub mod routes;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::serve::ListenerExt;
use tokio_util::sync::CancellationToken;

use crate::ops::address::PublicUrl;
use crate::ops::observe::{LogFormat, init_logs};
use crate::ops::shutdown;
use crate::replay::catalog::CatalogError;
use announce::announce;
pub use open::Server;
use router::{Routes, router};

/// What `serve` runs: the command line's choices (`latency-lab serve
/// --help` names each flag after its field).
#[derive(Debug, Clone)]
pub struct Config {
    /// Address and port to listen on (port 0 picks a free one).
    pub addr: SocketAddr,
    /// The address people reach the lab at: participant links are built
    /// from it, and participants' pages must come from it.
    pub public_url: Option<PublicUrl>,
    /// Reverse proxies whose `X-Forwarded-For` names the real client.
    pub trusted_proxies: Vec<IpAddr>,
    /// Serve `/metrics` without the researcher token on this address only.
    pub metrics_bind: Option<SocketAddr>,
    /// Request log lines on stderr.
    pub log_format: LogFormat,
    /// Replay responses one client address may hold open at once (0: no
    /// limit; `None`: none on loopback, [`crate::ops::streams::PUBLIC_MAX_PER_CLIENT`] on a
    /// public instance).
    pub max_streams_per_client: Option<u32>,
    /// Longest single wait a replay request may ask for (ms).
    pub max_wait_ms: f64,
    /// Longest replay response, arrival to last byte (ms).
    pub max_response_ms: f64,
    /// Directory of the built app.
    pub dist: PathBuf,
    /// Write the URL to this file once listening.
    pub url_file: Option<PathBuf>,
    /// Trace files offered as `trace:<file stem>`.
    pub traces: Vec<PathBuf>,
    /// Profile (preset name or spec) for model names the server does not know.
    pub profile: Option<String>,
    /// Serve only the API, without the app.
    pub api_only: bool,
    /// Faults injected into every completion request.
    pub fault: Option<String>,
    /// Serving threads (0 = one per core, at most [`MAX_THREADS`]).
    pub threads: usize,
    /// The data directory (database and researcher token).
    pub data: PathBuf,
    /// The database URL, if not the data directory's SQLite file.
    pub db: Option<String>,
    /// The researcher token file, if not in the data directory.
    pub token_file: Option<PathBuf>,
    /// Days field data is kept.
    pub field_retention_days: f64,
    /// Other pages of the demo field site, served from their own origins.
    pub field_pages: Vec<crate::field::demo::FieldPage>,
}

/// Most serving threads `--threads 0` picks.
pub const MAX_THREADS: usize = 4;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The app is not built.
    #[error("{0} has no index.html: build the app first (./lab serve does it), or pass --api-only")]
    NotBuilt(PathBuf),
    /// Bad `--trace` or `--profile`.
    #[error("{0}")]
    Catalog(#[from] CatalogError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source} (try --port 0 for a free port)")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
    /// The data directory or the researcher token.
    #[error("study server: {0}")]
    Setup(#[from] crate::db::setup::SetupError),
    /// The database (its URL said without a password).
    #[error("study server: {source} (database {url})")]
    Database {
        /// The database URL, password redacted.
        url: String,
        /// What failed.
        source: crate::db::StoreError,
    },
    /// The built-in load's HTTP client.
    #[error("the built-in load's client: {0}")]
    Client(#[from] crate::client::tls::ClientError),
    /// Runtime or I/O failure while serving.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl ServeError {
    /// Process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::NotBuilt(_) | Self::Catalog(_) => 2,
            _ => 1,
        }
    }
}

/// Threads planning requests and reading files (Tokio's blocking pool),
/// bounded so a burst of 1,000 requests does not start hundreds of threads.
pub const BLOCKING_THREADS: usize = 4;

/// Runs the server until SIGTERM or Ctrl-C ([`shutdown`]).
pub fn run(config: Config) -> Result<(), ServeError> {
    init_logs(config.log_format);
    if !config.api_only && !config.dist.join("index.html").is_file() {
        return Err(ServeError::NotBuilt(config.dist));
    }
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS),
        n => n,
    };
    let addr = config.addr;
    // Every thread listens on the same port; the first picks it. A port
    // another process listens on (even a server sharing ports) is refused;
    // one left in TIME_WAIT by a server just killed is not, so a restart
    // gets its port back at once.
    if addr.port() != 0 {
        let probe = || -> std::io::Result<()> {
            let socket =
                socket2::Socket::new(socket2::Domain::for_address(addr), socket2::Type::STREAM, None)?;
            socket.set_reuse_address(true)?;
            socket.bind(&addr.into())?;
            socket.listen(1)
        };
        probe().map_err(|source| ServeError::Bind { addr, source })?;
    }
    let first = listen(addr)?;
    let bound = first.local_addr()?;
    let mut listeners = vec![first];
    for _ in 1..threads {
        listeners.push(listen(bound)?);
    }
    let metrics_listener = config.metrics_bind.map(listen).transpose()?;
    let mut server = Server::open(&config, bound)?;
    announce(&config, bound, metrics_listener.as_ref(), server.demo.take())?;
    let main = listeners.remove(0);
    let mut others = Vec::new();
    for listener in listeners {
        let (routes, stop) = (server.routes.on_thread(), server.stop.clone());
        others.push(std::thread::spawn(move || {
            if let Err(e) = serve_on(listener, routes, &stop, None) {
                tracing::error!("a serving thread stopped: {e}");
            }
        }));
    }
    let main_thread = Some(MainThread { metrics: metrics_listener });
    let served = serve_on(main, server.routes.clone(), &server.stop, main_thread);
    for t in others {
        let _ = t.join();
    }
    server.close();
    served
}

/// Binds `addr` with `SO_REUSEPORT`, so several threads can accept on it.
fn listen(addr: SocketAddr) -> Result<std::net::TcpListener, ServeError> {
    let bind = || -> std::io::Result<std::net::TcpListener> {
        use socket2::{Domain, Socket, Type};
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
        socket.set_reuse_address(true)?;
        #[cfg(unix)]
        socket.set_reuse_port(true)?;
        socket.bind(&addr.into())?;
        socket.listen(1024)?;
        socket.set_nonblocking(true)?;
        Ok(socket.into())
    };
    bind().map_err(|source| ServeError::Bind { addr, source })
}

/// What only the main serving thread does.
struct MainThread {
    /// The `--metrics-bind` listener.
    metrics: Option<std::net::TcpListener>,
}

/// One serving thread: a single-threaded runtime running the connections
/// it accepts and the pacer that times their chunks (see `pacer`: a firing
/// is then a local wake-up, not a cross-thread one), until `stop` is
/// cancelled and its requests are done (at most [`shutdown::GRACE`] later).
/// The main thread also listens for the signal and serves `--metrics-bind`.
fn serve_on(
    listener: std::net::TcpListener,
    routes: Routes,
    stop: &CancellationToken,
    main: Option<MainThread>,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()?;
    runtime.block_on(async move {
        tokio::spawn(routes.api.pacer.clone().drive());
        let metrics = main.and_then(|m| {
            tokio::spawn(shutdown::on_signal(stop.clone()));
            m.metrics
        });
        if let Some(m) = metrics {
            let m = tokio::net::TcpListener::from_std(m)?;
            let router = crate::health::metrics_router(Arc::clone(&routes.ops));
            let stop = stop.clone();
            tokio::spawn(async move {
                let _ = axum::serve(m, router).with_graceful_shutdown(stop.cancelled_owned()).await;
            });
        }
        let listener = tokio::net::TcpListener::from_std(listener)?;
        // Each chunk must leave when written: with Nagle's algorithm a small
        // write waits for the ACK of the previous one, which the client may
        // delay by up to 40 ms (this showed as tens of ms of TTFT at 600
        // streams).
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let app = router(&routes).into_make_service_with_connect_info::<SocketAddr>();
        let server = axum::serve(listener, app).with_graceful_shutdown(stop.clone().cancelled_owned());
        let deadline = async {
            stop.cancelled().await;
            tokio::time::sleep(shutdown::GRACE).await;
        };
        tokio::select! {
            served = server => served?,
            () = deadline => tracing::warn!("requests still open {} s after the signal: closed", shutdown::GRACE.as_secs()),
        }
        Ok(())
    })
}
