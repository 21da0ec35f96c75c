//! The Content-Security-Policy of the lab.
//!
//! The app needs little: its own scripts and wasm (`'self'`,
//! `'wasm-unsafe-eval'` to compile WebAssembly), Trunk's one inline start-up
//! script (allowed by its SHA-256 hash, computed from the built
//! `index.html`), workers from its own origin, styles from its own origin
//! (plus inline `style` attributes, which Leptos sets), images from itself,
//! `data:` and `blob:` (chart PNG export). `connect-src *`: Live mode streams
//! from whatever endpoint the user names. Nothing else: no plugins, no
//! `<base>`, no form posts, no framing. Model output never reaches the DOM
//! as HTML (it is text, or sanitized Markdown), and this policy is the
//! second wall: even an injected `<script>` or `onerror=` would not run.
//!
//! `latency-lab serve` sends the policy as a header on the app's files;
//! `latency-lab csp --inject` writes it into `dist/index.html` as a
//! `<meta http-equiv>` for static hosting (`frame-ancestors` cannot be set
//! by a meta tag, so it is header-only).

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// Directives besides `script-src` (which carries the hashes).
pub const DIRECTIVES: [&str; 9] = [
    "default-src 'self'",
    "worker-src 'self'",
    "connect-src *",
    "img-src 'self' data: blob:",
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
];

/// Header-only directive.
pub const FRAME_ANCESTORS: &str = "frame-ancestors 'none'";

/// Marker of the injected meta tag.
const META_START: &str = "<meta http-equiv=\"Content-Security-Policy\"";

/// The contents of the inline scripts (`<script>` without `src`) of a page,
/// exactly as the browser hashes them.
pub fn inline_scripts(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let after = &rest[start..];
        let Some(tag_end) = after.find('>') else { break };
        let tag = &after[..tag_end];
        let body_start = tag_end + 1;
        let Some(close) = after[body_start..].find("</script>") else { break };
        if !tag.contains(" src=") {
            out.push(&after[body_start..body_start + close]);
        }
        rest = &after[body_start + close + "</script>".len()..];
    }
    out
}

/// `'sha256-…'` source of a script.
pub fn hash_source(script: &str) -> String {
    let digest = Sha256::digest(script.as_bytes());
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(digest))
}

/// The policy for a built `index.html`; `header` adds the header-only
/// directives.
pub fn policy(html: &str, header: bool) -> String {
    let mut script = String::from("script-src 'self' 'wasm-unsafe-eval'");
    for s in inline_scripts(html) {
        script.push(' ');
        script.push_str(&hash_source(s));
    }
    let mut parts: Vec<String> = DIRECTIVES.iter().map(|d| (*d).to_string()).collect();
    parts.insert(1, script);
    if header {
        parts.push(FRAME_ANCESTORS.into());
    }
    parts.join("; ")
}

/// The page with the policy as its first `<head>` element (replacing one
/// injected before, so running it twice changes nothing).
pub fn inject_meta(html: &str) -> String {
    let mut page = html.to_string();
    if let Some(i) = page.find(META_START)
        && let Some(len) = page[i..].find('>')
    {
        let from = page[..i].trim_end_matches([' ', '\n']).len();
        page.replace_range(from..=i + len, "");
    }
    let meta = format!("{META_START} content=\"{}\">", policy(&page, false));
    match page.find("<head>") {
        Some(i) => page.insert_str(i + "<head>".len(), &format!("\n    {meta}")),
        None => page.insert_str(0, &meta),
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html><head><script type=\"module\">\nimport init from '/a.js';\n</script>\
<script src=\"/x.js\"></script></head><body></body></html>";

    #[test]
    fn hashes_inline_scripts_only() {
        assert_eq!(inline_scripts(PAGE), ["\nimport init from '/a.js';\n"]);
        // echo -n 'alert(1)' | openssl dgst -sha256 -binary | base64
        assert_eq!(hash_source("alert(1)"), "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='");
    }

    #[test]
    fn policy_is_strict_and_meta_injection_is_idempotent() {
        let p = policy(PAGE, true);
        assert!(p.contains("script-src 'self' 'wasm-unsafe-eval' 'sha256-"));
        assert!(!p.contains("'unsafe-eval'") && !p.contains("script-src 'self' 'unsafe-inline'"));
        assert!(p.ends_with("frame-ancestors 'none'"));
        let once = inject_meta(PAGE);
        assert!(once.contains(META_START) && !once.contains("frame-ancestors"));
        assert_eq!(inject_meta(&once), once);
        // The meta tag does not change the script's hash.
        assert_eq!(policy(&once, false), policy(PAGE, false));
    }
}
