//! Reading user files and offering downloads.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// Larger than the caller's limit.
    #[error("{name} is {size} bytes, more than the {limit} bytes this view accepts")]
    TooLarge {
        /// File name.
        name: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The browser failed to read it.
    #[error("could not read {name}: {message}")]
    Read {
        /// File name.
        name: String,
        /// Browser message.
        message: String,
    },
    /// It was read but is not what this view opens.
    #[error("{name}: {message}")]
    Invalid {
        /// File name.
        name: String,
        /// What is wrong (line and what was expected, from the parser).
        message: String,
    },
    /// The browser would not offer it as a download.
    #[error("could not offer {name} as a download: {message}")]
    Offer {
        /// File name.
        name: String,
        /// Browser message.
        message: String,
    },
}

/// Describes a JS error value in one line.
pub fn js_message(v: &JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string().unwrap_or_else(|| format!("{v:?}"))
}

/// Reads a `File` as UTF-8 text, refusing files over `limit` bytes.
pub async fn read_text(file: &web_sys::File, limit: u64) -> Result<String, FileError> {
    let name = file.name();
    let size = file.size() as u64;
    if size > limit {
        return Err(FileError::TooLarge { name, size, limit });
    }
    let text = JsFuture::from(file.text())
        .await
        .map_err(|e| FileError::Read { name: name.clone(), message: js_message(&e) })?;
    text.as_string().ok_or(FileError::Read { name, message: "not text".into() })
}

/// Reads a trace file (at most `lab_core::trace::MAX_TRACE_BYTES`); the
/// error names the file and says what is wrong with it.
pub async fn read_trace(file: &web_sys::File) -> Result<lab_core::trace::Trace, FileError> {
    let name = file.name();
    let text = read_text(file, lab_core::trace::MAX_TRACE_BYTES as u64).await?;
    lab_core::trace::Trace::from_json(&text).map_err(|e| FileError::Invalid { name, message: e.to_string() })
}

/// The files chosen in a file input (from its `change` event). The input is
/// cleared, so choosing the same file again fires again.
pub fn take_chosen(ev: &web_sys::Event) -> Vec<web_sys::File> {
    let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
        return Vec::new();
    };
    let files = input.files().map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default();
    input.set_value("");
    files
}

/// Makes a `blob:` URL holding `text` (the caller revokes it).
pub fn blob_url(text: &str, mime: &str) -> Result<String, JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    web_sys::Url::create_object_url_with_blob(&blob)
}

/// Offers `text` as a file download named `name`.
pub fn download_text(name: &str, mime: &str, text: &str) -> Result<(), FileError> {
    blob_url(text, mime).and_then(|url| download_url(&url, name)).map_err(|e| offer(name, &e))
}

/// Offers a Blob (or File) as a download named `name`.
pub fn download_blob(blob: &web_sys::Blob, name: &str) -> Result<(), FileError> {
    web_sys::Url::create_object_url_with_blob(blob)
        .and_then(|url| download_url(&url, name))
        .map_err(|e| offer(name, &e))
}

fn offer(name: &str, e: &JsValue) -> FileError {
    FileError::Offer { name: name.to_string(), message: js_message(e) }
}

/// Clicks a download link to a `blob:` URL, then revokes it.
fn download_url(url: &str, name: &str) -> Result<(), JsValue> {
    let document =
        web_sys::window().and_then(|w| w.document()).ok_or_else(|| JsValue::from_str("no document"))?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(url)
}
