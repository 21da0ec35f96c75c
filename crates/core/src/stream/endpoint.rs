//! What a live run sends: endpoint presets, URL resolution and the request
//! body. Pure; the browser layer does the `fetch`.
//!
//! - The **base URL** is the OpenAI-style root (`…/v1`). A base given as a
//!   bare origin (`http://127.0.0.1:8000`) gets `/v1` appended; any other
//!   path is kept as typed. The request goes to `<base>/chat/completions` or
//!   `<base>/completions`, the model list comes from `<base>/models`.
//! - The **body** always asks for a stream (`"stream": true`), with
//!   `stream_options.include_usage` when the toggle is on, the token limit
//!   under `max_tokens` (or `max_completion_tokens`, which OpenAI's newer
//!   models require), and any extra JSON fields merged on top.
//! - The **API key** is not part of [`EndpointConfig`]: it travels only in
//!   the `Authorization` header, so saving or exporting a config can never
//!   leak it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::trace::{ApiFlavor, ClientInfo, SourceKind, TraceMeta, redact_endpoint};

/// Which body field carries the token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens` (vLLM, llama.cpp, Ollama, LM Studio).
    #[default]
    MaxTokens,
    /// `max_completion_tokens` (OpenAI).
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// The body field's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::MaxTokens => "max_tokens",
            Self::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    /// The field named `name` (`max_tokens` for anything unknown).
    pub fn from_name(name: &str) -> Self {
        if name == Self::MaxCompletionTokens.name() { Self::MaxCompletionTokens } else { Self::MaxTokens }
    }
}

/// Everything about a live request except the key. The default is the
/// first preset's (the lab's own replay endpoint, at a relative `/v1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointConfig {
    /// Base URL (`http://host:port/v1`).
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Chat or completions.
    pub api: ApiFlavor,
    /// System message (chat; empty = none).
    #[serde(default)]
    pub system: String,
    /// User prompt (chat) or prompt (completions).
    pub prompt: String,
    /// Output token limit.
    pub max_tokens: u32,
    /// Body field of the limit.
    #[serde(default)]
    pub max_tokens_field: MaxTokensField,
    /// Sampling temperature (None = server default).
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Ask for the final usage chunk.
    #[serde(default = "yes")]
    pub include_usage: bool,
    /// Extra body fields as JSON object text (e.g. `{"ignore_eos": true}`).
    #[serde(default)]
    pub extra_body: String,
}

fn yes() -> bool {
    true
}

/// Why a config cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Base URL not http(s).
    #[error("the base URL must start with http:// or https:// (got \"{0}\")")]
    BaseUrl(String),
    /// No model.
    #[error("choose a model (the server's /v1/models lists them)")]
    NoModel,
    /// Extra body is not a JSON object.
    #[error("extra body fields must be a JSON object: {0}")]
    ExtraBody(String),
    /// Token limit zero.
    #[error("max tokens must be at least 1")]
    MaxTokens,
}

/// A known server type with its defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndpointPreset {
    /// Identifier.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Base URL (`None`: the page's own origin + `/v1`).
    pub base_url: Option<&'static str>,
    /// Suggested model.
    pub model: &'static str,
    /// The server wants an API key.
    pub needs_key: bool,
    /// Body field of the token limit.
    pub max_tokens_field: MaxTokensField,
    /// How to let the lab's origin through CORS.
    pub cors_hint: &'static str,
}

/// The presets, the built-in replay endpoint first (the default).
pub const PRESETS: [EndpointPreset; 6] = [
    EndpointPreset {
        id: "replay",
        name: "Built-in replay (no LLM needed)",
        base_url: None,
        model: "profile:fast-start",
        needs_key: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        cors_hint: "Served by latency-lab serve itself; nothing to configure.",
    },
    EndpointPreset {
        id: "vllm",
        name: "vLLM",
        base_url: Some("http://127.0.0.1:8000/v1"),
        model: "",
        needs_key: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        cors_hint: "Start vLLM with --allowed-origins '[\"ORIGIN\"]' (or '[\"*\"]').",
    },
    EndpointPreset {
        id: "llamacpp",
        name: "llama.cpp server",
        base_url: Some("http://127.0.0.1:8080/v1"),
        model: "",
        needs_key: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        cors_hint: "llama-server allows any origin by default; llama-cpp-python's server too (--cors-allow-origins).",
    },
    EndpointPreset {
        id: "openai",
        name: "OpenAI",
        base_url: Some("https://api.openai.com/v1"),
        model: "gpt-4o-mini",
        needs_key: true,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        cors_hint: "OpenAI's API accepts browser requests; an API key is required.",
    },
    EndpointPreset {
        id: "ollama",
        name: "Ollama",
        base_url: Some("http://127.0.0.1:11434/v1"),
        model: "llama3.2",
        needs_key: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        cors_hint: "Start Ollama with OLLAMA_ORIGINS=ORIGIN (or *).",
    },
    EndpointPreset {
        id: "lmstudio",
        name: "LM Studio",
        base_url: Some("http://127.0.0.1:1234/v1"),
        model: "",
        needs_key: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        cors_hint: "Turn on \"Enable CORS\" in LM Studio's server settings.",
    },
];

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl Message {
    /// A message.
    pub fn new(role: &str, content: &str) -> Self {
        Self { role: role.to_string(), content: content.to_string() }
    }
}

/// A preset by id.
pub fn preset(id: &str) -> Option<&'static EndpointPreset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// The base URL a user typed, normalised (trailing `/` removed, `/v1` added
/// to a bare origin).
pub fn normalize_base(base: &str) -> Result<String, ConfigError> {
    let b = base.trim().trim_end_matches('/');
    let rest = b
        .strip_prefix("http://")
        .or_else(|| b.strip_prefix("https://"))
        .ok_or_else(|| ConfigError::BaseUrl(base.to_string()))?;
    if rest.is_empty() {
        return Err(ConfigError::BaseUrl(base.to_string()));
    }
    Ok(if rest.contains('/') { b.to_string() } else { format!("{b}/v1") })
}

impl Default for EndpointConfig {
    fn default() -> Self {
        Self::from_preset(&PRESETS[0], "")
    }
}

impl EndpointConfig {
    /// The defaults of a preset (`origin` is the page's own origin).
    pub fn from_preset(p: &EndpointPreset, origin: &str) -> Self {
        Self {
            base_url: p.base_url.map_or_else(|| format!("{origin}/v1"), str::to_string),
            model: p.model.to_string(),
            api: ApiFlavor::Chat,
            system: String::new(),
            prompt: "Explain in three short paragraphs why time to first token matters more than tokens per second for a chat assistant.".into(),
            max_tokens: 200,
            max_tokens_field: p.max_tokens_field,
            temperature: Some(0.7),
            include_usage: true,
            extra_body: String::new(),
        }
    }

    /// `POST` URL of the completion.
    pub fn completion_url(&self) -> Result<String, ConfigError> {
        let base = normalize_base(&self.base_url)?;
        Ok(match self.api {
            ApiFlavor::Chat => format!("{base}/chat/completions"),
            ApiFlavor::Completions => format!("{base}/completions"),
        })
    }

    /// `GET` URL of the model list.
    pub fn models_url(&self) -> Result<String, ConfigError> {
        Ok(format!("{}/models", normalize_base(&self.base_url)?))
    }

    /// The JSON body.
    pub fn body(&self) -> Result<String, ConfigError> {
        let mut messages = Vec::new();
        if !self.system.trim().is_empty() {
            messages.push(Message::new("system", &self.system));
        }
        messages.push(Message::new("user", &self.prompt));
        self.body_with(&messages)
    }

    /// The JSON body with these messages (a completions request sends
    /// their texts joined by blank lines as its prompt).
    pub fn body_with(&self, messages: &[Message]) -> Result<String, ConfigError> {
        if self.model.trim().is_empty() {
            return Err(ConfigError::NoModel);
        }
        if self.max_tokens == 0 {
            return Err(ConfigError::MaxTokens);
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model.trim()));
        match self.api {
            ApiFlavor::Chat => {
                let list: Vec<Value> =
                    messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
                body.insert("messages".into(), Value::Array(list));
            }
            ApiFlavor::Completions => {
                let text: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
                body.insert("prompt".into(), json!(text.join("\n\n")));
            }
        }
        body.insert(self.max_tokens_field.name().into(), json!(self.max_tokens));
        if let Some(t) = self.temperature.filter(|t| t.is_finite()) {
            body.insert("temperature".into(), json!(t));
        }
        body.insert("stream".into(), json!(true));
        if self.include_usage {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        if !self.extra_body.trim().is_empty() {
            match serde_json::from_str::<Value>(&self.extra_body) {
                Ok(Value::Object(extra)) => body.extend(extra),
                Ok(_) => return Err(ConfigError::ExtraBody("not an object".into())),
                Err(e) => return Err(ConfigError::ExtraBody(crate::trace::json_error::plain(&e))),
            }
        }
        Ok(Value::Object(body).to_string())
    }
}

/// Model ids from a `/v1/models` response body (OpenAI shape `{data: [{id}]}`,
/// or Ollama's `{models: [{name}]}`).
pub fn parse_models(body: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<Value>(body) else { return Vec::new() };
    let list = v.get("data").or_else(|| v.get("models")).and_then(Value::as_array);
    list.map(|l| {
        l.iter()
            .filter_map(|m| m.get("id").or_else(|| m.get("name")).and_then(Value::as_str).map(str::to_owned))
            .collect()
    })
    .unwrap_or_default()
}

/// The metadata of a live run's trace against `config`: the endpoint with
/// its credentials removed ([`redact_endpoint`]; the API key is never in
/// the config), the model, the tool and the run's concurrency.
pub fn live_meta(
    label: &str,
    config: &EndpointConfig,
    concurrency: u32,
    created_at: Option<String>,
    client: ClientInfo,
) -> TraceMeta {
    TraceMeta {
        label: Some(label.to_string()),
        created_at,
        source: SourceKind::Live,
        endpoint: config.completion_url().ok().map(|u| redact_endpoint(&u)),
        api: Some(config.api),
        model: Some(config.model.clone()),
        tool: Some(format!("latency-lab {}", env!("CARGO_PKG_VERSION"))),
        concurrency: Some(concurrency),
        client,
        ..TraceMeta::default()
    }
}

/// When a run in progress publishes its checkpoint (the run so far, saved
/// so a closed tab loses little): at most every `every_ms`, the first time
/// at once. Publishing copies and saves the whole run, so doing it per
/// request would load the page while a rate run sends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checkpoints {
    every_ms: f64,
    last_ms: f64,
}

impl Checkpoints {
    /// At most every `every_ms`.
    pub fn every(every_ms: f64) -> Self {
        Self { every_ms, last_ms: f64::NEG_INFINITY }
    }

    /// Whether to publish at `now_ms` (and, if so, counts it as published).
    pub fn due(&mut self, now_ms: f64) -> bool {
        let due = now_ms - self.last_ms >= self.every_ms;
        if due {
            self.last_ms = now_ms;
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_fields_round_trip_their_names() {
        for f in [MaxTokensField::MaxTokens, MaxTokensField::MaxCompletionTokens] {
            assert_eq!(MaxTokensField::from_name(f.name()), f);
        }
        assert_eq!(MaxTokensField::from_name("bogus"), MaxTokensField::MaxTokens);
    }

    #[test]
    fn urls_are_normalised() {
        assert_eq!(normalize_base("http://127.0.0.1:8000").unwrap(), "http://127.0.0.1:8000/v1");
        assert_eq!(normalize_base("http://h:1/v1/").unwrap(), "http://h:1/v1");
        assert_eq!(normalize_base("https://x.ai/openai/v1").unwrap(), "https://x.ai/openai/v1");
        assert!(normalize_base("localhost:8000").is_err());
        assert!(normalize_base("http://").is_err());
        let mut c = EndpointConfig::from_preset(preset("replay").unwrap(), "http://127.0.0.1:8377");
        assert_eq!(c.completion_url().unwrap(), "http://127.0.0.1:8377/v1/chat/completions");
        c.api = ApiFlavor::Completions;
        assert_eq!(c.completion_url().unwrap(), "http://127.0.0.1:8377/v1/completions");
        assert_eq!(c.models_url().unwrap(), "http://127.0.0.1:8377/v1/models");
    }

    #[test]
    fn body_streams_and_merges_extras() {
        let mut c = EndpointConfig::from_preset(preset("openai").unwrap(), "x");
        c.system = "Be brief.".into();
        c.extra_body = r#"{"seed": 7, "temperature": 0}"#.into();
        let v: Value = serde_json::from_str(&c.body().unwrap()).unwrap();
        assert_eq!(v["stream"], true);
        assert_eq!(v["stream_options"]["include_usage"], true);
        assert_eq!(v["max_completion_tokens"], 200);
        assert_eq!(v["messages"][0]["role"], "system");
        assert_eq!(v["messages"][1]["role"], "user");
        assert_eq!(v["temperature"], 0, "extra fields win");
        c.extra_body = "[1]".into();
        assert!(matches!(c.body(), Err(ConfigError::ExtraBody(_))));
        c.extra_body = String::new();
        c.model = " ".into();
        assert_eq!(c.body(), Err(ConfigError::NoModel));
    }

    #[test]
    fn models_from_openai_and_ollama_shapes() {
        assert_eq!(parse_models(r#"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#), ["a", "b"]);
        assert_eq!(parse_models(r#"{"models":[{"name":"llama3.2"}]}"#), ["llama3.2"]);
        assert!(parse_models("<html>").is_empty());
    }

    #[test]
    fn config_never_holds_a_key() {
        let c = EndpointConfig::from_preset(preset("openai").unwrap(), "x");
        let json = serde_json::to_string(&c).unwrap();
        assert!(!json.to_lowercase().contains("key"), "{json}");
    }

    #[test]
    fn checkpoints_are_published_at_most_every_interval() {
        let mut c = Checkpoints::every(1000.0);
        let published: Vec<f64> =
            [0.0, 10.0, 999.0, 1000.0, 1500.0, 2100.0, 2200.0].into_iter().filter(|t| c.due(*t)).collect();
        assert_eq!(published, [0.0, 1000.0, 2100.0]);
    }

    #[test]
    fn a_live_trace_names_the_endpoint_without_credentials() {
        let config = EndpointConfig {
            base_url: "https://user:pw@llm.example/v1?api_key=sk-secret".into(),
            model: "m".into(),
            ..EndpointConfig::default()
        };
        let meta = live_meta("run", &config, 4, None, ClientInfo::default());
        let endpoint = meta.endpoint.clone().unwrap();
        assert!(!endpoint.contains("sk-secret") && !endpoint.contains("pw@"), "{endpoint}");
        assert_eq!(
            (meta.source, meta.concurrency, meta.model.as_deref()),
            (SourceKind::Live, Some(4), Some("m"))
        );
        assert!(meta.tool.unwrap().starts_with("latency-lab "));
    }
}
