//! Keeping secrets out of traces.

/// Query parameters whose values are treated as secrets.
const SECRET_PARAMS: [&str; 8] =
    ["key", "api_key", "apikey", "api-key", "token", "access_token", "auth", "sig"];

/// Removes credentials from an endpoint URL before it is stored anywhere:
/// `user:password@` is dropped and the values of key-like query parameters
/// are replaced by `REDACTED`. Works on plain strings (no URL parser), so it
/// never fails; text that is not a URL is returned unchanged.
pub fn redact_endpoint(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i + 3], &url[i + 3..]),
        None => ("", url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (path, query_and_fragment) = match tail.find('?') {
        Some(i) => (&tail[..i], Some(&tail[i + 1..])),
        None => (tail, None),
    };
    let mut out = format!("{scheme}{host}{path}");
    if let Some(qf) = query_and_fragment {
        let (query, fragment) = match qf.find('#') {
            Some(i) => (&qf[..i], Some(&qf[i..])),
            None => (qf, None),
        };
        let redacted: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((k, _)) if SECRET_PARAMS.contains(&k.to_ascii_lowercase().as_str()) => {
                    format!("{k}=REDACTED")
                }
                _ => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&redacted.join("&"));
        if let Some(f) = fragment {
            out.push_str(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_removes_credentials() {
        assert_eq!(
            redact_endpoint("https://user:secret@api.example.com/v1?api_key=sk-1&x=2#f"),
            "https://api.example.com/v1?api_key=REDACTED&x=2#f"
        );
        assert_eq!(redact_endpoint("http://localhost:8000/v1"), "http://localhost:8000/v1");
        assert_eq!(redact_endpoint("not a url"), "not a url");
        assert_eq!(redact_endpoint("http://h/p?Token=abc"), "http://h/p?Token=REDACTED");
    }
}
