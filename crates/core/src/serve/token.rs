//! The researcher token of a study server: made from random bytes the
//! caller supplies (the server reads them from the OS), written as URL-safe
//! text, and compared in constant time so a wrong guess learns nothing from
//! how long the refusal took.

/// Random bytes in a token (256 bits).
pub const TOKEN_BYTES: usize = 32;

/// The token text of `bytes`: `llr_` and lowercase hex.
pub fn from_bytes(bytes: &[u8; TOKEN_BYTES]) -> String {
    let mut s = String::with_capacity(4 + 2 * TOKEN_BYTES);
    s.push_str("llr_");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// True when `given` equals `expected`, in time that depends only on their
/// lengths (every byte is compared, no early exit).
pub fn matches(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    let mut diff = u8::from(a.len() != b.len());
    for (i, want) in b.iter().enumerate() {
        diff |= a.get(i).copied().unwrap_or(0) ^ want;
    }
    diff == 0
}

/// The token in an `Authorization: Bearer …` header value, if any.
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_hex_and_compare_exactly() {
        let t = from_bytes(&[0xab; TOKEN_BYTES]);
        assert_eq!(t.len(), 4 + 64);
        assert!(t.starts_with("llr_abab"));
        assert!(matches(&t, &t));
        assert!(!matches(&t[..t.len() - 1], &t), "a prefix is not the token");
        assert!(!matches(&format!("{t}0"), &t), "nor a longer text");
        let mut other = t.clone().into_bytes();
        other[10] = b'0';
        assert!(!matches(std::str::from_utf8(&other).unwrap(), &t));
        assert!(!matches("", &t));
        assert_eq!(bearer("Bearer llr_x"), Some("llr_x"));
        assert_eq!(bearer("bearer  llr_x "), Some("llr_x"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
    }
}
