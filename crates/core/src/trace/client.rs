//! The client a trace was measured in, and what its clock costs.
//!
//! - [`ClientInfo`]: facts recorded with every live run and replay: the
//!   browser (name, engine, version, read from the user agent by
//!   [`Browser::from_user_agent`]), the clock's observed step, whether the
//!   page was cross-origin isolated, the display's refresh rate.
//! - **Clock step**: browsers coarsen `performance.now()` against timing
//!   attacks. Measured here: Chromium 100 µs, Firefox 1 ms when the page is
//!   *not* cross-origin isolated; 5 µs (Chromium) and 20 µs (Firefox) when
//!   it is. Isolation needs two response headers on the page
//!   ([`ISOLATION_HEADERS`]), which `latency-lab serve` sends; a plain static
//!   host does not, and [`clock_note`] says what that costs and how to get
//!   the fine clock back.

use serde::{Deserialize, Serialize};

/// The client the trace was measured on (browser facts that bound accuracy).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientInfo {
    /// `navigator.userAgent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// Browser name ("Firefox", "Chromium", "Chrome", "Edge", "Safari").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    /// Rendering engine ("Gecko", "Blink", "WebKit").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Browser version as the user agent gives it ("140.0").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_version: Option<String>,
    /// Smallest observed step of the clock, in ms (see the module doc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_resolution_ms: Option<f64>,
    /// `self.crossOriginIsolated`: whether the fine-grained clock was on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_origin_isolated: Option<bool>,
    /// Measured display refresh rate in Hz (paint times are frame-quantised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_refresh_hz: Option<f64>,
}

/// A browser, as its user agent names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Browser {
    /// "Firefox", "Edge", "Chrome", "Chromium", "Safari".
    pub name: &'static str,
    /// "Gecko", "Blink", "WebKit".
    pub engine: &'static str,
    /// Version as given ("140.0", "148.0.7778.167").
    pub version: String,
}

fn version_after<'a>(ua: &'a str, token: &str) -> Option<&'a str> {
    let rest = &ua[ua.find(token)? + token.len()..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// "Firefox 140" from "Firefox" and "140.0".
fn name_and_major(name: &str, version: &str) -> String {
    format!("{name} {}", version.split('.').next().unwrap_or(version))
}

impl Browser {
    /// Reads the browser from a user agent string. Order matters: Edge and
    /// Chrome also say "Safari", Chromium-based browsers also say "Chrome".
    pub fn from_user_agent(ua: &str) -> Option<Self> {
        let found = |name, engine, token| version_after(ua, token).map(|v| (name, engine, v));
        let (name, engine, version) = found("Firefox", "Gecko", "Firefox/")
            .or_else(|| found("Edge", "Blink", "Edg/"))
            .or_else(|| found("Chromium", "Blink", "Chromium/"))
            .or_else(|| found("Chrome", "Blink", "HeadlessChrome/"))
            .or_else(|| found("Chrome", "Blink", "Chrome/"))
            .or_else(|| if ua.contains("Safari/") { found("Safari", "WebKit", "Version/") } else { None })?;
        Some(Self { name, engine, version: version.to_string() })
    }

    /// Name and major version ("Firefox 140"): what tells two runs' clients apart.
    pub fn short(&self) -> String {
        name_and_major(self.name, &self.version)
    }
}

impl ClientInfo {
    /// Fills `browser`, `engine` and `browser_version` from the user agent.
    pub fn with_browser(mut self) -> Self {
        if let Some(b) = self.user_agent.as_deref().and_then(Browser::from_user_agent) {
            self.browser = Some(b.name.to_string());
            self.engine = Some(b.engine.to_string());
            self.browser_version = Some(b.version);
        }
        self
    }

    /// Name and major version of the browser ("Firefox 140"), from the
    /// recorded fields or, for older traces, the user agent.
    pub fn browser_short(&self) -> Option<String> {
        match (&self.browser, &self.browser_version) {
            (Some(n), Some(v)) => Some(name_and_major(n, v)),
            _ => self.user_agent.as_deref().and_then(Browser::from_user_agent).map(|b| b.short()),
        }
    }
}

/// The two response headers that make a page cross-origin isolated.
pub const ISOLATION_HEADERS: [(&str, &str); 2] =
    [("Cross-Origin-Opener-Policy", "same-origin"), ("Cross-Origin-Embedder-Policy", "require-corp")];

/// The same two headers for nginx (one line, in the `location` of the app).
pub const NGINX_ISOLATION: &str = "add_header Cross-Origin-Opener-Policy same-origin always; add_header Cross-Origin-Embedder-Policy require-corp always;";

/// The same two headers for static hosts that read a `_headers` file
/// (Netlify, Cloudflare Pages).
pub const HEADERS_FILE_ISOLATION: &str =
    "/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp";

/// What the page's clock means for its measurements, for people.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockNote {
    /// One short line for the header ("Clock step 1 ms · not isolated").
    pub short: String,
    /// What the clock costs, in one or two sentences; `None` when isolated.
    pub lost: Option<String>,
}

/// Formats a clock step: "5 µs", "0.10 ms", "1 ms".
pub fn step_text(ms: f64) -> String {
    if ms < 0.1 {
        format!("{:.0} µs", ms * 1000.0)
    } else if (ms - ms.round()).abs() < 1e-9 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

/// The note for a page with this clock. `browser` names the browser in the
/// sentence when known.
pub fn clock_note(isolated: bool, step_ms: Option<f64>, browser: Option<&Browser>) -> ClockNote {
    let step = step_ms.map_or_else(|| "unknown".to_string(), step_text);
    let short =
        format!("Clock step {step} · {}", if isolated { "cross-origin isolated" } else { "not isolated" });
    if isolated {
        return ClockNote { short, lost: None };
    }
    let who = browser.map_or("This browser".to_string(), |b| b.short());
    let fine = match browser.map(|b| b.engine) {
        Some("Gecko") => "20 µs",
        Some("Blink") => "5 µs",
        _ => "a few µs",
    };
    let lost = format!(
        "This page is not cross-origin isolated, so {who} rounds its clock to {step} instead of {fine}: every time the lab \
         records (a token's arrival, a replay's release, a paint) is off by up to {step}, and figures smaller than that \
         (inter-token gaps of fast streams, release lateness) cannot be told apart. Replays still play on schedule."
    );
    ClockNote { short, lost: Some(lost) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
    const HEADLESS: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/148.0.7778.167 Safari/537.36";
    const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    const EDGE: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86";
    const SAFARI: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15";

    #[test]
    fn browsers_from_their_user_agents() {
        let b = |ua| Browser::from_user_agent(ua).map(|b| (b.name, b.engine, b.version));
        assert_eq!(b(FIREFOX), Some(("Firefox", "Gecko", "140.0".into())));
        assert_eq!(b(HEADLESS), Some(("Chrome", "Blink", "148.0.7778.167".into())));
        assert_eq!(b(CHROME), Some(("Chrome", "Blink", "131.0.0.0".into())));
        assert_eq!(b(EDGE), Some(("Edge", "Blink", "131.0.2903.86".into())));
        assert_eq!(b(SAFARI), Some(("Safari", "WebKit", "18.1".into())));
        assert_eq!(b("curl/8.0"), None);
        assert_eq!(b("Firefox/"), None, "a token with no version");
    }

    #[test]
    fn client_info_names_its_browser_and_older_traces_still_do() {
        let c = ClientInfo { user_agent: Some(FIREFOX.into()), ..ClientInfo::default() };
        assert_eq!(c.browser_short().as_deref(), Some("Firefox 140"), "from the user agent alone");
        let c = c.with_browser();
        assert_eq!((c.browser.as_deref(), c.engine.as_deref()), (Some("Firefox"), Some("Gecko")));
        assert_eq!(c.browser_version.as_deref(), Some("140.0"));
        assert_eq!(c.browser_short().as_deref(), Some("Firefox 140"));
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains(r#""engine":"Gecko""#), "{json}");
        assert_eq!(serde_json::from_str::<ClientInfo>(&json).unwrap(), c);
        assert_eq!(ClientInfo::default().with_browser().browser_short(), None);
    }

    #[test]
    fn the_clock_note_says_what_is_lost_and_only_when_it_is() {
        let ff = Browser::from_user_agent(FIREFOX);
        let n = clock_note(false, Some(1.0), ff.as_ref());
        assert_eq!(n.short, "Clock step 1 ms · not isolated");
        let lost = n.lost.unwrap();
        assert!(lost.contains("Firefox 140 rounds its clock to 1 ms instead of 20 µs"), "{lost}");
        let n = clock_note(false, Some(0.1), Browser::from_user_agent(HEADLESS).as_ref());
        assert!(n.lost.unwrap().contains("to 0.10 ms instead of 5 µs"));
        let n = clock_note(true, Some(0.005), None);
        assert_eq!((n.short.as_str(), n.lost), ("Clock step 5 µs · cross-origin isolated", None));
        assert_eq!(clock_note(false, None, None).short, "Clock step unknown · not isolated");
        assert_eq!(step_text(0.02), "20 µs");
    }
}
