//! What `serve` prints once it listens: where the lab is, the demo pages'
//! addresses and what a non-loopback address exposes.

use std::net::{Ipv4Addr, SocketAddr};

use super::{Config, ServeError};

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

/// Prints where the lab is, the demo chat page's address, and what a
/// non-loopback address exposes.
pub(super) fn announce(
    args: &Config,
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
    if !args.api_only && args.dist.join("docs/index.html").is_file() {
        println!("Docs: {url}docs/  (every route also as {url}openapi.json)");
    }
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
            "Listening on {bound}: the app, the replay endpoint and the study server (participant pages, answers; researcher routes behind the token) are reachable by anyone who can reach this address. This is plain HTTP: put TLS in front (the docs: /docs/operations/remote-studies.html; deploy/nginx/)."
        );
    }
    if let Some(m) = metrics {
        println!("Metrics (no token): http://{}/metrics", m.local_addr()?);
    }
    Ok(())
}
