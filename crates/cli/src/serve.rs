//! `latency-lab serve`: its flags, made into the server's
//! [`Config`] ([`lab_server::serve`] has what each part serves).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use lab_server::db::setup;
use lab_server::field::demo::FieldPage;
use lab_server::ops::address::PublicUrl;
use lab_server::ops::observe::LogFormat;
use lab_server::serve::Config;

/// Default port of the lab.
pub const DEFAULT_PORT: u16 = 8377;

/// Arguments of `serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Address and port to listen on instead, e.g. `0.0.0.0:8377` (every
    /// interface) or `10.0.0.2:8377`. Plain HTTP: put TLS in front (docs/src/operations/remote-studies.md).
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
    #[arg(long, default_value = "text", value_parser = log_format)]
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
    /// per core, at most 4 (`MAX_THREADS`). One is the most precise on a
    /// 2-core machine that also runs the client (BENCHMARKS.md); more
    /// accept and set up connections faster.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Where the study server keeps its database and researcher token
    /// (created on first start).
    #[arg(long, default_value = setup::DEFAULT_DATA_DIR)]
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
    pub field_pages: Vec<FieldPage>,
}

/// `--log-format`'s value, with the names it takes in the error.
fn log_format(s: &str) -> Result<LogFormat, String> {
    s.parse()
}

impl From<ServeArgs> for Config {
    fn from(a: ServeArgs) -> Self {
        Config {
            addr: a.bind.unwrap_or(SocketAddr::from((Ipv4Addr::LOCALHOST, a.port))),
            public_url: a.public_url,
            trusted_proxies: a.trusted_proxies,
            metrics_bind: a.metrics_bind,
            log_format: a.log_format,
            max_streams_per_client: a.max_streams_per_client,
            max_wait_ms: a.max_wait_ms,
            max_response_ms: a.max_response_ms,
            dist: a.dist,
            url_file: a.url_file,
            traces: a.traces,
            profile: a.profile,
            api_only: a.api_only,
            fault: a.fault,
            threads: a.threads,
            data: a.data,
            db: a.db,
            token_file: a.token_file,
            field_retention_days: a.field_retention_days,
            field_pages: a.field_pages,
        }
    }
}
