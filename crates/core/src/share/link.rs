//! Share links: a profile, a side-by-side preset or a study in the URL
//! fragment, so one link opens straight into it.
//!
//! Form: `#share=v1.<payload>`, the payload being the JSON of a [`Shared`]
//! compressed with raw DEFLATE (RFC 1951: `miniz_oxide` at level 9
//! natively, the browser's `CompressionStream` in the web app) and written
//! in unpadded base64url (RFC 4648 §5). Only what is shared goes in: profiles,
//! titles, study texts and, for recorded conditions, the request's chunks.
//! Endpoints and API keys have no place in these types, so a link cannot
//! carry them.

use serde::{Deserialize, Serialize};

pub use crate::replay::shared::SharedPane;
use crate::study::{Study, StudyError};

/// Prefix of the current link format.
pub const PREFIX: &str = "v1.";
/// Fragment key.
pub const FRAGMENT_KEY: &str = "share=";
/// Links longer than this (bytes) are refused when decoding (2 MiB is the
/// longest URL browsers keep; a decompression bomb stops here too).
pub const MAX_LINK_BYTES: usize = 2 * 1024 * 1024;
/// Largest decompressed payload accepted.
pub const MAX_JSON_BYTES: usize = 8 * 1024 * 1024;
/// Above this length a link still works but is unwieldy to paste: the app
/// warns.
pub const LONG_LINK_BYTES: usize = 8 * 1024;

fn is_false(b: &bool) -> bool {
    !*b
}

/// What a link holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shared {
    /// Panes to replay side by side.
    Panes {
        /// Caption of the preset.
        title: String,
        /// The panes (2–4).
        panes: Vec<SharedPane>,
        /// Rendered as streamed Markdown (links made before it: plain text).
        #[serde(default, skip_serializing_if = "is_false")]
        markdown: bool,
        /// Playback speed, when not ×1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        speed: Option<f64>,
    },
    /// A study (opens the participant flow).
    Study(Box<Study>),
}

/// Why a link could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShareError {
    /// Not a share link of this lab.
    #[error("this link holds no Latency Lab share (expected \"#share=v1.…\")")]
    NotALink,
    /// Too long.
    #[error("the link is {0} bytes, more than the {MAX_LINK_BYTES} accepted")]
    TooLong(usize),
    /// Damaged (cut when copied?).
    #[error("the link is damaged (was it cut when copied?): {0}")]
    Damaged(String),
    /// A study that does not validate.
    #[error("the shared study cannot run: {0}")]
    Study(#[from] StudyError),
    /// Panes that cannot play (the pane and why).
    #[error("{0}")]
    Pane(String),
    /// A link of panes without any.
    #[error("it holds no pane")]
    NoPane,
    /// This browser could not make a link (it cannot compress).
    #[error("The link could not be made: {0}")]
    Unmade(String),
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url.
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// Decodes unpadded (or padded) base64url.
pub fn from_base64url(text: &str) -> Result<Vec<u8>, ShareError> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        let v = ALPHABET.iter().position(|&a| a == c).ok_or_else(|| {
            ShareError::Damaged(format!("'{}' is not a base64url character", char::from(c)))
        })?;
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

impl Shared {
    /// The link payload (`v1.…`), without `#share=`.
    pub fn encode(&self) -> String {
        payload_of(&miniz_oxide::deflate::compress_to_vec(&self.to_json(), 9))
    }

    /// Reads a payload, a fragment (`#share=…`) or a whole URL.
    pub fn decode(link: &str) -> Result<Self, ShareError> {
        let packed = packed_of(link)?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_JSON_BYTES)
            .map_err(|e| ShareError::Damaged(format!("cannot decompress ({:?})", e.status)))?;
        Self::from_json(&json)
    }

    /// What a link packs: the JSON (before compression).
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A link's content from its decompressed JSON (a study is validated).
    pub fn from_json(json: &[u8]) -> Result<Self, ShareError> {
        let shared: Shared = serde_json::from_slice(json)
            .map_err(|e| ShareError::Damaged(crate::trace::json_error::plain(&e)))?;
        if let Shared::Study(s) = &shared {
            s.validate()?;
        }
        Ok(shared)
    }
}

/// The payload (`v1.…`) of compressed bytes (raw DEFLATE). [`Shared::encode`]
/// compresses with `miniz_oxide`; the web app, with the browser's own
/// `CompressionStream("deflate-raw")`: the same format, so either reads
/// the other's links.
pub fn payload_of(packed: &[u8]) -> String {
    format!("{PREFIX}{}", base64url(packed))
}

/// The compressed bytes in a payload, a fragment (`#share=…`) or a whole
/// URL, checked for length and alphabet.
pub fn packed_of(link: &str) -> Result<Vec<u8>, ShareError> {
    if link.len() > MAX_LINK_BYTES {
        return Err(ShareError::TooLong(link.len()));
    }
    let payload = match link.find(FRAGMENT_KEY) {
        Some(i) => &link[i + FRAGMENT_KEY.len()..],
        None => link,
    };
    let payload = payload.split('&').next().unwrap_or("").trim();
    let body = payload.strip_prefix(PREFIX).ok_or(ShareError::NotALink)?;
    from_base64url(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::smooth::Smoothing;

    #[test]
    fn base64url_round_trips() {
        for n in 0..40 {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(from_base64url(&base64url(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64url(b"Ma"), "TWE");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert!(from_base64url("ab+c").is_err());
    }

    #[test]
    fn links_round_trip_and_stay_short() {
        let panes = Shared::Panes {
            title: "Same tokens/s".into(),
            panes: vec![
                SharedPane {
                    title: "fast start".into(),
                    profile: "ttft=150,tpot=40,tokens=80".into(),
                    prompt_tokens: 200,
                    smoothing: Smoothing::Words { delay_ms: 10.0 },
                },
                SharedPane {
                    title: "slow start".into(),
                    profile: "ttft=2520,tpot=10,tokens=80".into(),
                    prompt_tokens: 200,
                    smoothing: Smoothing::Off,
                },
            ],
            markdown: true,
            speed: Some(2.0),
        };
        let link = panes.encode();
        assert!(link.starts_with("v1.") && link.len() < 240, "{link}");
        assert_eq!(Shared::decode(&format!("http://127.0.0.1:8377/#share={link}")).unwrap(), panes);
        let study = Shared::Study(Box::new(Study::example()));
        let link = study.encode();
        assert!(link.len() < LONG_LINK_BYTES, "{}", link.len());
        assert_eq!(Shared::decode(&link).unwrap(), study);
    }

    #[test]
    fn damaged_links_say_so() {
        let link = Shared::Study(Box::new(Study::example())).encode();
        assert!(matches!(Shared::decode(&link[..link.len() / 2]), Err(ShareError::Damaged(_))));
        assert_eq!(Shared::decode("#replay"), Err(ShareError::NotALink));
        assert!(matches!(Shared::decode("v1.@@@"), Err(ShareError::Damaged(_))));
        let bomb = format!(
            "v1.{}",
            base64url(&miniz_oxide::deflate::compress_to_vec(&vec![b' '; MAX_JSON_BYTES + 10], 9))
        );
        assert!(matches!(Shared::decode(&bomb), Err(ShareError::Damaged(_))));
        let mut bad = Study::example();
        bad.conditions.truncate(1);
        let link = Shared::Study(Box::new(bad)).encode();
        assert!(matches!(Shared::decode(&link), Err(ShareError::Study(_))));
    }
}
