//! `latency-lab serve`: the built app, the OpenAI-compatible replay
//! endpoint and the study server, in one process on 127.0.0.1 (or the
//! address of `--bind`, behind a TLS proxy: README "Run a study for remote
//! participants"; [`crate::ops`] has what running it as a service needs).
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

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, Method};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use lab_core::replay::profile::Profile;
use tokio_util::sync::CancellationToken;
use tower_http::cors::{AllowHeaders, Any, CorsLayer};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::api::{self, Api, Limits};
use crate::catalog::{Catalog, CatalogError};
use crate::health::Ops;
use crate::ops::address::{Origins, PublicUrl};
use crate::ops::metrics::Metrics;
use crate::ops::observe::{LogFormat, Observer, init_logs, observe};
use crate::ops::shutdown;
use crate::ops::streams::{PUBLIC_MAX_PER_CLIENT, Streams};
use crate::pacer::Pacer;
use crate::studies::http::{Reach, StudyApi};
use lab_core::serve::protocol::{GROUND_TRUTH_PATH, REQUEST_ID_HEADER};

/// Default port of the lab.
pub const DEFAULT_PORT: u16 = 8377;

/// Arguments of `serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Address and port to listen on instead, e.g. `0.0.0.0:8377` (every
    /// interface) or `10.0.0.2:8377`. Plain HTTP: put TLS in front (README
    /// "Run a study for remote participants").
    #[arg(long, conflicts_with = "port", value_name = "ADDR:PORT")]
    pub bind: Option<SocketAddr>,
    /// The address people reach the lab at, e.g.
    /// `https://lab.example.org/`: every link the server hands out
    /// (participant links) is built from it, and participants' pages must
    /// come from it.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<PublicUrl>,
    /// A reverse proxy whose `X-Forwarded-For` names the real client
    /// (repeatable; e.g. `--trusted-proxy 127.0.0.1` behind a local nginx).
    /// Others' forwarded addresses are ignored.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxies: Vec<IpAddr>,
    /// Serve `/metrics` without the researcher token on this address only
    /// (e.g. `127.0.0.1:9377` for a local Prometheus).
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_bind: Option<SocketAddr>,
    /// Request log lines on stderr: `text`, `json` (one object a line) or
    /// `off`.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Replay responses one client address may hold open at once (0: no
    /// limit). Default: no limit on 127.0.0.1; 64 on a public instance
    /// (`--public-url` or a `--bind` beyond loopback).
    #[arg(long, value_name = "N")]
    pub max_streams_per_client: Option<u32>,
    /// Longest single wait a replay request may ask for (ms): time to the
    /// headers, a stall, a gap between chunks.
    #[arg(long, default_value_t = lab_core::serve::bounds::DEFAULT.max_wait_ms, value_name = "MS")]
    pub max_wait_ms: f64,
    /// Longest replay response, arrival to last byte (ms).
    #[arg(long, default_value_t = lab_core::serve::bounds::DEFAULT.max_response_ms, value_name = "MS")]
    pub max_response_ms: f64,
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
    /// Days field data is kept (requests whose span started longer ago are
    /// deleted at start, before serving, and every hour).
    #[arg(long, default_value_t = 30.0)]
    pub field_retention_days: f64,
    /// Another page of the demo field site, served from its own origin
    /// (repeatable; `./lab serve` names `examples/ai-sdk/server.mjs`, the AI
    /// SDK page with its `streamText` backend): its origin may send field
    /// data, and its address is printed with the demo key.
    #[arg(long = "field-page", value_name = "URL")]
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
        .route("/v1/responses", post(api::responses))
        .route("/v1/messages", post(api::messages))
        .route("/v1beta/models", get(api::gemini_models))
        .route("/v1beta/models/{model_action}", post(api::gemini))
        // Gemini's stable version: google-genai (Python) calls it by default.
        .route("/v1/models/{model_action}", post(api::gemini))
        .route("/api/tags", get(api::ollama_tags))
        .route("/api/chat", post(api::ollama_chat))
        .route("/api/generate", post(api::ollama_generate))
        .route("/v1/lab/{page_stream}", post(api::page_stream).get(crate::api_pages::page_get))
        .route(&format!("{GROUND_TRUTH_PATH}{{id}}"), get(api::ground_truth))
        .with_state(api)
        .layer(header("timing-allow-origin", "*"))
        .layer(header("cross-origin-resource-policy", "cross-origin"))
        .layer(cors)
}

/// What every serving thread's router serves besides the API.
#[derive(Clone)]
pub struct Site {
    /// The built app, unless `--api-only`.
    pub dist: Option<PathBuf>,
    /// The study server.
    pub studies: Arc<StudyApi>,
    /// Health checks and metrics.
    pub ops: Arc<Ops>,
    /// Counts and logs every request.
    pub observer: Arc<Observer>,
    /// The built-in load and the traffic it is read beside ([`crate::load`]).
    pub load: Arc<crate::load::LoadApi>,
    /// The field collector ([`crate::field`]).
    pub field: Arc<crate::field::http::FieldApi>,
}

/// The whole router: API, study server ([`crate::studies::http`]), health
/// checks and metrics ([`crate::health`]: `/healthz`, `/readyz`, `/metrics`,
/// and `/health` as vLLM has it, which benchmark tools such as guidellm
/// probe), app files with SPA fallback; every request counted and logged.
pub fn router(api: Arc<Api>, site: &Site) -> Router {
    let app = crate::health::router(Arc::clone(&site.ops))
        .merge(crate::studies::http::router(Arc::clone(&site.studies)))
        .merge(crate::load::router(Arc::clone(&site.load)));
    let app = match &site.dist {
        Some(dist) => {
            // The copies `latency-lab compress` wrote, as the browser accepts
            // them (Brotli first), with `Vary: Accept-Encoding`.
            let index = ServeFile::new(dist.join("index.html")).precompressed_br().precompressed_gzip();
            let files = ServeDir::new(dist).precompressed_br().precompressed_gzip().fallback(index);
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
        .merge(crate::field::http::router(Arc::clone(&site.field)))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&site.observer), observe))
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

/// Runs the server until SIGTERM or Ctrl-C ([`shutdown`]).
pub fn run(args: ServeArgs) -> Result<(), ServeError> {
    init_logs(args.log_format);
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
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS),
        n => n,
    };
    let addr = args.bind.unwrap_or(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)));
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
    let metrics_listener = args.metrics_bind.map(listen).transpose()?;
    let metrics = Arc::new(Metrics::default());
    let public = args.public_url.is_some() || !bound.ip().is_loopback();
    let origins = Origins::new(args.public_url.as_ref(), bound);
    let reach = Reach { origins: origins.clone(), public: args.public_url.clone() };
    let (studies, field_store, db_runtime) = open_studies(&args, reach, Arc::clone(&metrics))?;
    let demo = demo_key(&args, bound, &field_store, &db_runtime);
    crate::field::retention::keep_for(
        &db_runtime,
        field_store.clone(),
        args.field_retention_days,
        crate::field::retention::PURGE_EVERY,
        crate::field::http::now_ms,
    );
    let field = Arc::new(crate::field::http::FieldApi {
        collector: crate::field::service::Collector::new(field_store),
        studies: Arc::clone(&studies),
    });
    let stop = CancellationToken::new();
    let max_streams = args.max_streams_per_client.unwrap_or(if public { PUBLIC_MAX_PER_CLIENT } else { 0 });
    let limits = Limits {
        bounds: lab_core::serve::bounds::Bounds {
            max_wait_ms: args.max_wait_ms,
            max_response_ms: args.max_response_ms,
        },
        streams: Streams::new(max_streams, metrics.open_streams.clone()),
        lateness: Some(metrics.lateness.clone()),
        shutdown: stop.clone(),
    };
    let api = Api::new(catalog, Pacer::new(), fault).limited(limits);
    let load_client =
        crate::run::client::client(false, None).map_err(|e| ServeError::Io(std::io::Error::other(e)))?;
    let site = Site {
        dist: (!args.api_only).then_some(args.dist.clone()),
        ops: Arc::new(Ops { studies: Arc::clone(&studies), metrics: Arc::clone(&metrics) }),
        studies: Arc::clone(&studies),
        observer: Arc::new(Observer { metrics, trusted: args.trusted_proxies.clone() }),
        load: Arc::new(crate::load::LoadApi::new(
            Arc::clone(&api.traffic),
            bound.port(),
            origins,
            public,
            load_client,
        )),
        field,
    };
    announce(&args, bound, metrics_listener.as_ref(), demo)?;
    let main = listeners.remove(0);
    let mut others = Vec::new();
    for listener in listeners {
        let (api, site, stop) = (api.on_thread(Pacer::new()), site.clone(), stop.clone());
        others.push(std::thread::spawn(move || {
            if let Err(e) = serve_on(listener, api, &site, &stop, None) {
                tracing::error!("a serving thread stopped: {e}");
            }
        }));
    }
    let served = serve_on(main, api, &site, &stop, Some(MainThread { metrics: metrics_listener }));
    for t in others {
        let _ = t.join();
    }
    db_runtime.block_on(studies.close());
    served
}

/// The app's address on this machine (an unspecified address, 0.0.0.0,
/// is reached locally on loopback).
fn local_url(bound: SocketAddr) -> String {
    let local = if bound.ip().is_unspecified() {
        SocketAddr::from((Ipv4Addr::LOCALHOST, bound.port()))
    } else {
        bound
    };
    format!("http://{local}/")
}

/// The demo site's field key ([`crate::field::demo`]), when this serve has
/// the demo page and listens on loopback only (`None` otherwise).
fn demo_key(
    args: &ServeArgs,
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

/// Prints where the lab is, the demo chat page's address, and what a
/// non-loopback address exposes.
fn announce(
    args: &ServeArgs,
    bound: SocketAddr,
    metrics: Option<&std::net::TcpListener>,
    demo: Option<Result<String, crate::field::demo::DemoError>>,
) -> Result<(), ServeError> {
    let url = local_url(bound);
    if let Some(path) = &args.url_file {
        std::fs::write(path, &url)?;
    }
    println!("Latency Lab is running at {url}  (Ctrl-C or SIGTERM to stop)");
    println!(
        "OpenAI-compatible replay endpoint: {url}v1  (model \"profile:fast-start\", see {url}v1/models)"
    );
    match demo {
        Some(Ok(key)) => {
            let page = crate::field::demo::PAGE;
            println!("Demo chat page (its answers go to Field): {url}{page}#key={key}");
            for (path, what) in crate::field::demo::MORE_PAGES {
                if args.dist.join(path).join("index.html").is_file() {
                    println!("{what} (its answers go to Field): {url}{path}#key={key}");
                }
            }
            for page in &args.field_pages {
                let at = page.address(&key, &url);
                println!("Page with its own backend (its answers go to Field): {at}");
            }
        }
        Some(Err(e)) => println!("Demo chat page: no field data: {e}"),
        None => {}
    }
    if let Some(p) = &args.public_url {
        println!("Public address: {}/  (participant links are built from it)", p.origin());
        if !p.is_https() {
            println!(
                "Warning: the public address is plain http: browsers give pages on it neither the fine clock nor the precise release (they need a secure context); put TLS in front."
            );
        }
    }
    if !bound.ip().is_loopback() {
        println!(
            "Listening on {bound}: the app, the replay endpoint and the study server (participant pages, answers; researcher routes behind the token) are reachable by anyone who can reach this address. This is plain HTTP: put TLS in front (README \"Run a study for remote participants\", deploy/nginx/)."
        );
    }
    if let Some(m) = metrics {
        println!("Metrics (no token): http://{}/metrics", m.local_addr()?);
    }
    Ok(())
}

/// Opens the study database (creating the data directory and the SQLite
/// file on first start, applying migrations) and the researcher token,
/// printed when it is made. The database's connections live on a runtime
/// of their own, which every serving thread uses.
fn open_studies(
    args: &ServeArgs,
    reach: Reach,
    metrics: Arc<Metrics>,
) -> Result<(Arc<StudyApi>, crate::field::store::SqlField, tokio::runtime::Runtime), ServeError> {
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
    api: Api,
    site: &Site,
    stop: &CancellationToken,
    main: Option<MainThread>,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()?;
    runtime.block_on(async move {
        tokio::spawn(api.pacer.clone().drive());
        let metrics = main.and_then(|m| {
            tokio::spawn(shutdown::on_signal(stop.clone()));
            m.metrics
        });
        if let Some(m) = metrics {
            let m = tokio::net::TcpListener::from_std(m)?;
            let router = crate::health::metrics_router(Arc::clone(&site.ops));
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
        let api = Arc::new(api);
        let app = router(api, site).into_make_service_with_connect_info::<SocketAddr>();
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
