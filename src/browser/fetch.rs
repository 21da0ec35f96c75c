//! Small GET requests (model lists, ground truth), through `gloo-net`.

use gloo_net::http::Request;
use web_sys::RequestCredentials;

/// What the browser said of a failed request: the message, as a person
/// reads it in the console ("Failed to fetch"), without the error's type.
pub fn browser_says(e: gloo_net::Error) -> String {
    match e {
        gloo_net::Error::JsError(js) => js.message,
        other => other.to_string(),
    }
}

/// Fetches a document with GET (no cookies; the key, if any, only in the
/// Authorization header). Returns the body text, or a message that says
/// what went wrong (with the server's answer for an HTTP error).
pub async fn get_text(url: &str, api_key: Option<&str>) -> Result<String, String> {
    let mut req = Request::get(url).credentials(RequestCredentials::Omit);
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        req = req.header("Authorization", &format!("Bearer {key}"));
    }
    let resp = req.send().await.map_err(browser_says)?;
    let text = resp.text().await.map_err(browser_says)?;
    if resp.ok() {
        Ok(text)
    } else {
        Err(format!("HTTP {}: {}", resp.status(), lab_core::stream::openai::snippet(&text)))
    }
}
