//! Where the server is reached, and who is asking.
//!
//! - [`PublicUrl`] (`--public-url`): the address people use
//!   (`https://lab.example.org/`), behind a TLS proxy. Every link the server
//!   hands out is built from it, never from the request's `Host` header
//!   (which anyone can set).
//! - [`Origins`]: the pages whose participant writes are taken (the
//!   same-origin check of the study server).
//! - [`client_ip`]: the client's address. A request that comes from a
//!   trusted proxy (`--trusted-proxy`) is credited to the address the proxy
//!   forwarded (`X-Forwarded-For`); from anyone else, forwarded addresses are
//!   ignored (a client could write any).

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::http::{HeaderMap, HeaderValue, header};

/// The public address of the lab: scheme and authority, no path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    origin: String,
}

/// Why a `--public-url` is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--public-url {url}: {why} (e.g. --public-url https://lab.example.org/)")]
pub struct PublicUrlError {
    url: String,
    why: &'static str,
}

impl FromStr for PublicUrl {
    type Err = PublicUrlError;

    fn from_str(url: &str) -> Result<Self, PublicUrlError> {
        let bad = |why| PublicUrlError { url: url.to_string(), why };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| bad("it needs http:// or https://"))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "https" && scheme != "http" {
            return Err(bad("it needs http:// or https://"));
        }
        let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        if authority.is_empty() || authority.contains('@') {
            return Err(bad("it needs a host name, and no user or password"));
        }
        if !authority.bytes().all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b)) {
            return Err(bad("the host holds characters a host name cannot"));
        }
        if !path.is_empty() {
            return Err(bad("the lab is served at the root of its host: give no path, query or fragment"));
        }
        Ok(Self { origin: format!("{scheme}://{}", authority.to_ascii_lowercase()) })
    }
}

impl PublicUrl {
    /// `https://lab.example.org` (what a browser sends as `Origin`).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The address of `path` (which starts with `/`).
    pub fn link(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }

    /// Whether it is reached over TLS.
    pub fn is_https(&self) -> bool {
        self.origin.starts_with("https://")
    }
}

/// The pages whose writes the study server takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    public: Option<String>,
    port: u16,
    /// Listening beyond loopback without a public URL: the page's `Host`
    /// is all the server knows of its name.
    trust_host: bool,
}

impl Origins {
    /// Pages served from `public`, or from this machine's loopback
    /// addresses on `bound`'s port. Without a public URL on an address
    /// beyond loopback, a page whose origin names the request's `Host`.
    pub fn new(public: Option<&PublicUrl>, bound: SocketAddr) -> Self {
        Self {
            public: public.map(|p| p.origin.clone()),
            port: bound.port(),
            trust_host: public.is_none() && !bound.ip().is_loopback(),
        }
    }

    /// Whether a write from a page of `origin` (the `Origin` header), sent
    /// with `host` (the `Host` header), is taken.
    pub fn allows(&self, origin: &str, host: Option<&str>) -> bool {
        let origin = origin.to_ascii_lowercase();
        if self.public.as_deref() == Some(origin.as_str()) {
            return true;
        }
        let p = self.port;
        let local =
            [format!("http://127.0.0.1:{p}"), format!("http://localhost:{p}"), format!("http://[::1]:{p}")];
        if local.contains(&origin) {
            return true;
        }
        let authority = origin.split_once("://").map_or("", |(_, a)| a);
        self.trust_host && host.is_some_and(|h| !h.is_empty() && authority.eq_ignore_ascii_case(h))
    }

    /// Whether a write with these headers comes from the lab's own pages (or
    /// from no browser at all: scripts send no `Origin`): a browser's
    /// `Sec-Fetch-Site` must not say another site, and an `Origin`, when
    /// sent, must be one [`Origins::allows`].
    pub fn allows_request(&self, headers: &HeaderMap) -> bool {
        let value = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok());
        if matches!(value(SEC_FETCH_SITE), Some("cross-site" | "same-site")) {
            return false;
        }
        value(header::ORIGIN.as_str()).is_none_or(|o| self.allows(o, value(header::HOST.as_str())))
    }
}

/// The browser's word on who made a request.
const SEC_FETCH_SITE: &str = "sec-fetch-site";

/// The client of a request from `peer`: when `peer` is a trusted proxy,
/// the nearest address in `X-Forwarded-For` that is not one (proxies append
/// the address they saw, so the ones left of it were written by the client
/// and are not believed); otherwise `peer`.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    let forwarded = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
    let hops: Vec<IpAddr> =
        forwarded.flat_map(|v| v.split(',')).filter_map(|a| a.trim().parse::<IpAddr>().ok()).collect();
    hops.into_iter().rev().find(|ip| !trusted.contains(ip)).unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_an_origin_without_a_path() {
        let u: PublicUrl = "https://Lab.Example.org/".parse().unwrap();
        assert_eq!(u.origin(), "https://lab.example.org");
        assert_eq!(u.link("/s/abc"), "https://lab.example.org/s/abc");
        assert!(u.is_https());
        assert_eq!("http://10.0.0.2:8377".parse::<PublicUrl>().unwrap().origin(), "http://10.0.0.2:8377");
        for bad in [
            "lab.example.org",
            "ftp://x/",
            "https:///",
            "https://u:p@x/",
            "https://x/lab/",
            "https://x/?a",
            "https://x y/",
        ] {
            assert!(bad.parse::<PublicUrl>().is_err(), "{bad}");
        }
        let e = "https://x/lab".parse::<PublicUrl>().unwrap_err().to_string();
        assert!(e.contains("root of its host"), "{e}");
    }

    #[test]
    fn a_request_is_the_labs_own_unless_the_browser_or_its_origin_says_otherwise() {
        let o = Origins::new(None, "127.0.0.1:8377".parse().unwrap());
        let with = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            pairs.iter().for_each(|(k, v)| {
                h.insert(*k, HeaderValue::from_static(v));
            });
            o.allows_request(&h)
        };
        assert!(with(&[]), "a script sends no Origin");
        assert!(with(&[("origin", "http://127.0.0.1:8377"), ("sec-fetch-site", "same-origin")]));
        assert!(!with(&[("origin", "https://evil.example")]));
        assert!(!with(&[("sec-fetch-site", "cross-site")]));
        assert!(!with(&[("sec-fetch-site", "same-site")]));
    }

    #[test]
    fn writes_come_from_the_public_origin_or_loopback_pages() {
        let public: PublicUrl = "https://lab.example.org/".parse().unwrap();
        let o = Origins::new(Some(&public), "127.0.0.1:8377".parse().unwrap());
        assert!(o.allows("https://lab.example.org", Some("lab.example.org")));
        assert!(o.allows("http://127.0.0.1:8377", Some("127.0.0.1:8377")));
        assert!(o.allows("http://localhost:8377", None));
        // The Host header is not trusted: a page of another site that
        // reaches the server (DNS rebinding) names itself in both.
        assert!(!o.allows("http://evil.example:8377", Some("evil.example:8377")));
        assert!(!o.allows("https://evil.example", Some("lab.example.org")));
        assert!(!o.allows("http://lab.example.org", Some("lab.example.org")), "the scheme counts");
        assert!(!o.allows("http://127.0.0.1:9999", None), "another local port");
        let local = Origins::new(None, "127.0.0.1:8377".parse().unwrap());
        assert!(!local.allows("http://evil.example:8377", Some("evil.example:8377")));
        let open = Origins::new(None, "0.0.0.0:8377".parse().unwrap());
        assert!(open.allows("http://10.0.0.2:8377", Some("10.0.0.2:8377")));
        assert!(!open.allows("http://10.0.0.2:8377", Some("10.0.0.3:8377")));
        assert!(!open.allows("http://10.0.0.2:8377", None));
    }

    #[test]
    fn forwarded_addresses_are_believed_only_from_a_trusted_proxy() {
        let proxy: IpAddr = "127.0.0.1".parse().unwrap();
        let client: IpAddr = "203.0.113.7".parse().unwrap();
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", "198.51.100.1, 203.0.113.7".parse().unwrap());
        assert_eq!(
            client_ip(proxy, &h, &[proxy]),
            client,
            "the address the proxy saw, not the one the client wrote"
        );
        assert_eq!(client_ip(proxy, &h, &[]), proxy, "no trusted proxy: the peer");
        assert_eq!(client_ip(client, &h, &[proxy]), client, "a client's own header is ignored");
        let inner: IpAddr = "10.0.0.5".parse().unwrap();
        h.insert("x-forwarded-for", "203.0.113.7, 10.0.0.5".parse().unwrap());
        assert_eq!(client_ip(proxy, &h, &[proxy, inner]), client, "two proxies in a row");
        h.insert("x-forwarded-for", "garbage".parse().unwrap());
        assert_eq!(client_ip(proxy, &h, &[proxy]), proxy);
    }
}
