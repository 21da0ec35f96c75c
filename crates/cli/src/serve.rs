//! `latency-lab serve`: the built app and the OpenAI-compatible replay
//! endpoint, in one process on 127.0.0.1.
//!
//! - `/` …: the app. Responses carry `Cross-Origin-Opener-Policy:
//!   same-origin` and `Cross-Origin-Embedder-Policy: require-corp`, which make
//!   the page cross-origin isolated: browsers then give `performance.now()`
//!   its fine resolution (5 µs instead of 100 µs). They also carry a strict
//!   Content-Security-Policy ([`crate::csp`]), `X-Content-Type-Options:
//!   nosniff` and `Referrer-Policy: no-referrer`.
//! - `/v1/…`: the replay API ([`crate::api`]), with CORS open to any origin
//!   (so chat UIs and the lab served elsewhere can use it), the ground-truth
//!   id exposed to scripts, and `Timing-Allow-Origin: *` so browsers expose
//!   Resource Timing details.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, Method};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use lab_core::replay::profile::Profile;
use tower_http::cors::{AllowHeaders, Any, CorsLayer};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::api::{self, Api};
use crate::catalog::{Catalog, CatalogError};
use crate::pacer::Pacer;
use crate::studies::http::StudyApi;
use lab_core::serve::protocol::{GROUND_TRUTH_PATH, REQUEST_ID_HEADER};

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
    /// A trace file to offer as `trace:<file stem>` (repeatable).
    #[arg(long = "trace")]
    pub traces: Vec<PathBuf>,
    /// Profile (preset name or spec) to play for model names the server does
    /// not know, so any chat UI works: e.g. `--profile slow-start` or
    /// `--profile ttft=300,tpot=20`.
    #[arg(long)]
    pub profile: Option<String>,
    /// Serve only the API, without the app (no `dist` needed).
    #[arg(long)]
    pub api_only: bool,
    /// Faults injected into every completion request, e.g.
    /// `--fault drop_after=10` or `--fault status=429,retry_after=5`
    /// (keys: status, retry_after, headers_delay_ms, stall_after+stall_ms,
    /// drop_after, malformed_after, garbage_after, oversized).
    #[arg(long)]
    pub fault: Option<String>,
    /// Serving threads, each with its own connections and pacer (the
    /// kernel spreads new connections over them, `SO_REUSEPORT`); 0 = one
    /// per core, at most [`MAX_THREADS`]. One is the most precise on a
    /// 2-core machine that also runs the client (BENCHMARKS.md); more
    /// accept and set up connections faster.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Where the study server keeps its database and researcher token
    /// (created on first start).
    #[arg(long, default_value = crate::studies::setup::DEFAULT_DATA_DIR)]
    pub data: PathBuf,
    /// The study database: `postgres://user@host/db` so several servers
    /// share one (default: SQLite in the data directory).
    #[arg(long)]
    pub db: Option<String>,
    /// The researcher token file (default: in the data directory).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
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
    /// The port could not be bound.
    #[error("cannot listen on 127.0.0.1:{port}: {source} (try --port 0 for a free port)")]
    Bind {
        /// The port.
        port: u16,
        /// The OS error.
        source: std::io::Error,
    },
    /// The study server's data directory, token or database.
    #[error("study server: {0}")]
    Studies(String),
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

fn header(name: &'static str, value: &'static str) -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(HeaderName::from_static(name), HeaderValue::from_static(value))
}

/// The API routes.
pub fn api_router(api: Arc<Api>) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([HeaderName::from_static(REQUEST_ID_HEADER), HeaderName::from_static("retry-after")])
        .max_age(std::time::Duration::from_secs(600));
    Router::new()
        .route("/v1/models", get(api::models))
        .route("/v1/chat/completions", post(api::chat))
        .route("/v1/completions", post(api::completions))
        .route(&format!("{GROUND_TRUTH_PATH}{{id}}"), get(api::ground_truth))
        .with_state(api)
        .layer(header("timing-allow-origin", "*"))
        .layer(header("cross-origin-resource-policy", "cross-origin"))
        .layer(cors)
}

/// The whole router: API, study server ([`crate::studies::http`]), health
/// checks (`/healthz`, and `/health` as vLLM has it, which benchmark tools
/// such as guidellm probe), app files with SPA fallback.
pub fn router(api: Arc<Api>, dist: Option<PathBuf>, studies: Arc<StudyApi>) -> Router {
    let app = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/health", get(|| async { "ok" }))
        .merge(crate::studies::http::router(studies));
    let app = match dist {
        Some(dist) => {
            // The copies `latency-lab compress` wrote, as the browser accepts
            // them (Brotli first), with `Vary: Accept-Encoding`.
            let index = ServeFile::new(dist.join("index.html")).precompressed_br().precompressed_gzip();
            let files = ServeDir::new(&dist).precompressed_br().precompressed_gzip().fallback(index);
            let files = Router::new()
                .fallback_service(files)
                .layer(axum::middleware::from_fn_with_state(Arc::new(dist.clone()), missing_files))
                .layer(axum::middleware::from_fn(cache_headers));
            let html = std::fs::read_to_string(dist.join("index.html")).unwrap_or_default();
            let policy = HeaderValue::from_str(&crate::csp::policy(&html, true))
                .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"));
            app.merge(files)
                .layer(header("cross-origin-resource-policy", "same-origin"))
                .layer(SetResponseHeaderLayer::overriding(
                    HeaderName::from_static("content-security-policy"),
                    policy,
                ))
                .layer(header("x-content-type-options", "nosniff"))
                .layer(header("referrer-policy", "no-referrer"))
        }
        None => app,
    };
    app.layer(header("cross-origin-opener-policy", "same-origin"))
        .layer(header("cross-origin-embedder-policy", "require-corp"))
        .merge(api_router(api))
}

/// Sets `Cache-Control` on the app's files ([`crate::assets::cache_control`]):
/// content-hashed names are immutable, the rest revalidated.
async fn cache_headers(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let value = crate::assets::cache_control(req.uri().path());
    let mut res = next.run(req).await;
    let headers = res.headers_mut();
    headers.insert(axum::http::header::CACHE_CONTROL, HeaderValue::from_static(value));
    // Caches keep one copy per encoding (the file is sent precompressed).
    headers.insert(axum::http::header::VARY, HeaderValue::from_static("accept-encoding"));
    res
}

/// Answers 404 for a file the build does not hold
/// ([`crate::assets::missing_asset`]); everything else goes on to the files.
async fn missing_files(
    axum::extract::State(dist): axum::extract::State<Arc<PathBuf>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if crate::assets::missing_asset(&dist, req.uri().path()) {
        return (axum::http::StatusCode::NOT_FOUND, "not found\n").into_response();
    }
    next.run(req).await
}

/// Threads planning requests and reading files (Tokio's blocking pool),
/// bounded so a burst of 1,000 requests does not start hundreds of threads.
pub const BLOCKING_THREADS: usize = 4;

/// Runs the server until Ctrl-C.
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    if !args.api_only && !args.dist.join("index.html").is_file() {
        return Err(ServeError::NotBuilt(args.dist));
    }
    let fallback = match &args.profile {
        Some(p) => Some(match lab_core::replay::profile::preset(p) {
            Some(p) => p,
            None => p.parse::<Profile>().map_err(CatalogError::from)?,
        }),
        None => None,
    };
    let fault = args
        .fault
        .as_deref()
        .map(str::parse::<lab_core::serve::fault::Fault>)
        .transpose()
        .map_err(CatalogError::from)?;
    let catalog = Catalog::new(&args.traces, fallback)?;
    let (studies, _db_runtime) = open_studies(&args)?;
    let api = Api::new(catalog, Pacer::new(), fault);
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS),
        n => n,
    };
    let dist = (!args.api_only).then_some(args.dist.clone());
    // Every thread listens on the same port; the first picks it. A port
    // another process listens on (even a server sharing ports) is refused;
    // one left in TIME_WAIT by a server just killed is not, so a restart
    // gets its port back at once.
    if args.port != 0 {
        let probe = || -> std::io::Result<()> {
            let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
            socket.set_reuse_address(true)?;
            socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)).into())?;
            socket.listen(1)
        };
        probe().map_err(|source| ServeError::Bind { port: args.port, source })?;
    }
    let first = listen(args.port)?;
    let addr = first.local_addr()?;
    let mut listeners = vec![first];
    for _ in 1..threads {
        listeners.push(listen(addr.port())?);
    }
    let url = format!("http://{addr}/");
    if let Some(path) = &args.url_file {
        std::fs::write(path, &url)?;
    }
    println!("Latency Lab is running at {url}  (Ctrl-C to stop)");
    println!(
        "OpenAI-compatible replay endpoint: {url}v1  (model \"profile:fast-start\", see {url}v1/models)"
    );
    let main = listeners.remove(0);
    for listener in listeners {
        let (api, dist, studies) = (api.on_thread(Pacer::new()), dist.clone(), Arc::clone(&studies));
        std::thread::spawn(move || {
            if let Err(e) = serve_on(listener, api, dist, studies) {
                eprintln!("latency-lab serve: a serving thread stopped: {e}");
            }
        });
    }
    serve_on(main, api, dist, studies)
}

/// Opens the study database (creating the data directory and the SQLite
/// file on first start, applying migrations) and the researcher token,
/// printed when it is made. The database's connections live on a runtime
/// of their own, which every serving thread uses.
fn open_studies(args: &ServeArgs) -> Result<(Arc<StudyApi>, tokio::runtime::Runtime), ServeError> {
    use crate::studies::setup;
    let fail = |e: &dyn std::fmt::Display| ServeError::Studies(e.to_string());
    let url = setup::database_url(&args.data, args.db.as_deref()).map_err(|e| fail(&e))?;
    let token_file = args.token_file.clone().unwrap_or_else(|| args.data.join(setup::TOKEN_FILE));
    let (token, made) = setup::researcher_token(&token_file).map_err(|e| fail(&e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
    let store = runtime
        .block_on(crate::studies::sql::SqlStore::connect(&url))
        .map_err(|e| ServeError::Studies(format!("{e} (database {})", redact(&url))))?;
    if made {
        println!("Researcher token (shown once; saved in {}): {token}", token_file.display());
    } else {
        println!("Researcher token: in {}", token_file.display());
    }
    println!("Study database: {}", redact(&url));
    Ok((Arc::new(StudyApi::new(store, token)), runtime))
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

/// Binds 127.0.0.1:`port` with `SO_REUSEPORT`, so several threads can
/// accept on it.
fn listen(port: u16) -> Result<std::net::TcpListener, ServeError> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let bind = || -> std::io::Result<std::net::TcpListener> {
        use socket2::{Domain, Socket, Type};
        let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
        socket.set_reuse_address(true)?;
        #[cfg(unix)]
        socket.set_reuse_port(true)?;
        socket.bind(&addr.into())?;
        socket.listen(1024)?;
        socket.set_nonblocking(true)?;
        Ok(socket.into())
    };
    bind().map_err(|source| ServeError::Bind { port, source })
}

/// One serving thread: a single-threaded runtime running the connections
/// it accepts and the pacer that times their chunks (see `pacer`: a firing
/// is then a local wake-up, not a cross-thread one), until Ctrl-C.
fn serve_on(
    listener: std::net::TcpListener,
    api: Api,
    dist: Option<PathBuf>,
    studies: Arc<StudyApi>,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()?;
    runtime.block_on(async move {
        tokio::spawn(api.pacer.clone().drive());
        let listener = tokio::net::TcpListener::from_std(listener)?;
        // Each chunk must leave when written: with Nagle's algorithm a small
        // write waits for the ACK of the previous one, which the client may
        // delay by up to 40 ms (this showed as tens of ms of TTFT at 600
        // streams).
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let api = Arc::new(api);
        axum::serve(listener, router(api, dist, studies))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(())
    })
}
