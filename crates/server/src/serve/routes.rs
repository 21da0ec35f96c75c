//! Every route `serve` answers, listed once: the reference page
//! (`docs/src/reference/http.md`) and the OpenAPI document at
//! `/openapi.json` are made from [`ROUTES`], and
//! `crates/server/tests/router.rs` holds the list to the router both ways
//! (each route of the server's source is listed; each listed route is
//! routed).

use serde_json::{Map, Value, json};

/// One route: its method, path (`{name}` for a path parameter), the part of
/// the server that answers it, and what it does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Route {
    /// `GET`, `POST`, `DELETE` or `OPTIONS`.
    pub method: &'static str,
    /// The path as the router has it.
    pub path: &'static str,
    /// The part of the server ([`PARTS`]).
    pub part: &'static str,
    /// What it does, in one line.
    pub what: &'static str,
}

/// The parts, in the order the reference shows them, with what their
/// routes share.
pub const PARTS: [(&str, &str); 5] = [
    ("The replay endpoint", "CORS open to any origin; refusals in the error shape of the route's wire"),
    ("The built-in load", "this machine's pages only"),
    ("The study server", "researcher routes need `Authorization: Bearer <token>`"),
    ("Field data", "ingest with a site's key; reads with the researcher token"),
    ("Health and metrics", "for probes and scrapers"),
];

const fn r(method: &'static str, path: &'static str, part: usize, what: &'static str) -> Route {
    Route { method, path, part: PARTS[part].0, what }
}

/// Every route.
pub const ROUTES: [Route; 38] = [
    r("GET", "/v1/models", 0, "the profiles and traces it plays, OpenAI's list shape"),
    r("POST", "/v1/chat/completions", 0, "OpenAI Chat Completions, streamed or whole"),
    r("POST", "/v1/completions", 0, "OpenAI legacy Completions"),
    r("POST", "/v1/responses", 0, "OpenAI Responses (typed SSE events)"),
    r("POST", "/v1/messages", 0, "Anthropic Messages"),
    r("GET", "/v1beta/models", 0, "Gemini's model list"),
    r(
        "POST",
        "/v1beta/models/{model_action}",
        0,
        "Gemini `MODEL:streamGenerateContent` (`?alt=sse`) and `MODEL:generateContent`",
    ),
    r(
        "POST",
        "/v1/models/{model_action}",
        0,
        "the same under Gemini's stable version (google-genai for Python calls it)",
    ),
    r("GET", "/api/tags", 0, "Ollama's model list"),
    r("POST", "/api/chat", 0, "Ollama chat (NDJSON)"),
    r("POST", "/api/generate", 0, "Ollama generate (NDJSON)"),
    r(
        "POST",
        "/v1/lab/{page_stream}",
        0,
        "what pages receive from their own backends: `ui-stream` (the AI SDK UI message stream), `data-stream`, `text-stream`; `?model=` names the profile",
    ),
    r(
        "GET",
        "/v1/lab/{page_stream}",
        0,
        "for pages that do not `fetch`: `event-stream` (an EventSource's, `?model=…&q=…`) and `ws` (a WebSocket)",
    ),
    r(
        "GET",
        "/v1/lab/requests/{id}",
        0,
        "ground truth: what was sent for a request, and when (the id comes in `X-Latency-Lab-Request-Id`)",
    ),
    r("GET", "/openapi.json", 4, "this list as an OpenAPI 3.1 document"),
    r("GET", "/v1/lab/load", 1, "the load running, if one is"),
    r("POST", "/v1/lab/load", 1, "starts one: `{\"model\", \"speed\", \"duration_s\"}`"),
    r("DELETE", "/v1/lab/load", 1, "stops it"),
    r("GET", "/v1/lab/load/requests", 1, "its requests, measured per load"),
    r("GET", "/v1/lab/traffic", 1, "every admission's wait for a slot, numbered (`?after=N`)"),
    r("POST", "/api/studies", 2, "publishes a study (researcher) → 201 `{id, link}`"),
    r("GET", "/api/studies", 2, "the published studies with their counts (researcher)"),
    r("GET", "/api/studies/{id}", 2, "the study a participant plays, and whether it is open"),
    r("POST", "/api/studies/{id}/participants", 2, "joins: the participant's id and number"),
    r("POST", "/api/studies/{id}/answers", 2, "one answer → 201 saved, 200 kept before"),
    r("GET", "/api/studies/{id}/design", 2, "the design as published (researcher)"),
    r("GET", "/api/studies/{id}/results", 2, "every answer as a results file, `?format=csv` (researcher)"),
    r("POST", "/api/studies/{id}/close", 2, "stops new answers (researcher)"),
    r("GET", "/s/{id}", 2, "the participant link: opens the app on the study"),
    r("POST", "/v1/traces", 3, "OTLP/HTTP spans (JSON or protobuf) with a site's ingest key"),
    r("OPTIONS", "/v1/traces", 3, "the CORS preflight of a registered site's origin"),
    r("GET", "/v1/field/requests", 3, "the stored requests of a period (researcher)"),
    r("GET", "/v1/field/summary", 3, "their summary by site, browser, model (researcher)"),
    r("GET", "/v1/field/sites", 3, "the registered sites (researcher)"),
    r("GET", "/healthz", 4, "the process answers"),
    r("GET", "/health", 4, "the same, as vLLM has it (benchmark tools probe it)"),
    r("GET", "/readyz", 4, "the database answers with every migration applied (503 otherwise)"),
    r("GET", "/metrics", 4, "Prometheus text (researcher token, or alone on `--metrics-bind`)"),
];

/// The reference page (`docs/src/reference/http.md`), part by part.
pub fn reference_page() -> String {
    let mut out = String::from(
        "# HTTP routes\n\nEvery route `latency-lab serve` answers, by the part of the server that answers it \
         (`crates/server`), made from `crates/server/src/serve/routes.rs` (also served as an OpenAPI 3.1 \
         document at `/openapi.json`). Every refusal is a JSON body with a top-level `\"error\"`: the lab's \
         `{\"error\": \"…\"}`, or on the replay routes the error shape of the route's wire, as its official \
         SDK reads it. Everything else is the built app's files (with `--api-only`, nothing) and this book at \
         `/docs/`.\n",
    );
    for (part, shared) in PARTS {
        out.push_str(&format!("\n## {part}\n\n{shared}.\n\n| method | path | what |\n|---|---|---|\n"));
        for r in ROUTES.iter().filter(|r| r.part == part) {
            out.push_str(&format!("| `{}` | `{}` | {} |\n", r.method, r.path, r.what.replace('|', "\\|")));
        }
    }
    out
}

/// The OpenAPI 3.1 document of [`ROUTES`]: each operation's summary, its
/// part as a tag and its path parameters.
pub fn openapi() -> Value {
    let mut paths = Map::new();
    for r in &ROUTES {
        let params: Vec<Value> = r
            .path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(|name| json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }))
            .collect();
        let op = json!({
            "summary": r.what,
            "tags": [r.part],
            "parameters": params,
            "responses": { "default": { "description": "the answer; a refusal is a JSON body with a top-level \"error\"" } },
        });
        let entry = paths.entry(r.path.to_string()).or_insert_with(|| json!({}));
        if let Some(ops) = entry.as_object_mut() {
            ops.insert(r.method.to_ascii_lowercase(), op);
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Latency Lab (latency-lab serve)",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The replay endpoint of every wire, the built-in load, the study server, the field collector, health and metrics.",
        },
        "tags": PARTS.iter().map(|(name, shared)| json!({ "name": name, "description": shared })).collect::<Vec<_>>(),
        "paths": paths,
    })
}
