//! The whole router of `serve`, in process (no socket: the point is what
//! each route answers): opened from a [`Config`] as `latency-lab serve`
//! opens it, on a real SQLite database in a temporary directory.
//!
//! Every refusal of every route is an [`lab_server::error::ApiError`]: a
//! JSON body with a top-level `"error"` (the lab's `{"error": "…"}` or the
//! wire's own error shape, each of which has one), never axum's plain-text
//! rejections.

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use lab_server::ops::observe::LogFormat;
use lab_server::serve::router::router;
use lab_server::serve::routes::{ROUTES, openapi, reference_page};
use lab_server::serve::{Config, Server};
use tower::ServiceExt;

fn config(data: PathBuf) -> Config {
    Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        public_url: None,
        trusted_proxies: Vec::new(),
        metrics_bind: None,
        log_format: LogFormat::Off,
        max_streams_per_client: None,
        max_wait_ms: lab_core::serve::bounds::DEFAULT.max_wait_ms,
        max_response_ms: lab_core::serve::bounds::DEFAULT.max_response_ms,
        dist: PathBuf::from("dist"),
        url_file: None,
        traces: Vec::new(),
        profile: None,
        api_only: true,
        fault: None,
        threads: 1,
        data,
        db: None,
        token_file: None,
        field_retention_days: 30.0,
        field_pages: Vec::new(),
    }
}

/// A fresh data directory of its own for each test.
fn data_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lab-router-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A refusal asked for: method, path, headers, body and the status it gets.
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str, u16);

/// Opens the routes from a config on the data directory `data`, as serve
/// opens them, and runs `test` on the router with the pacer driven (as a
/// serving thread drives it); then closes the database.
fn in_process(data: PathBuf, test: impl AsyncFnOnce(axum::Router)) {
    let server = Server::open(&config(data), "127.0.0.1:8377".parse().unwrap()).unwrap();
    let app = router(&server.routes);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        tokio::spawn(server.routes.api.pacer.clone().drive());
        test(app).await;
    });
    // The runtime goes first: a connection handed back to the pool is
    // returned by a task on it, which closing the pool waits for.
    drop(rt);
    server.close();
}

/// One request through the router: status and body.
async fn ask(
    app: &axum::Router,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (StatusCode, String) {
    let mut req = Request::builder().method(method).uri(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut req = req.body(Body::from(body.to_string())).unwrap();
    req.extensions_mut().insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 40000))));
    let answer = async {
        let res = app.clone().oneshot(req).await.unwrap();
        let status = res.status();
        (status, res.into_body().collect().await.unwrap().to_bytes())
    };
    let Ok((status, bytes)) = tokio::time::timeout(std::time::Duration::from_secs(20), answer).await else {
        panic!("{method} {path}: no whole answer within 20 s");
    };
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

#[test]
fn the_router_opened_from_a_config_answers_in_process() {
    let dir = data_dir("answers");
    in_process(dir.clone(), async |app| {
        assert_eq!(ask(&app, "GET", "/healthz", &[], "").await, (StatusCode::OK, "ok".into()));
        let (status, _) = ask(&app, "GET", "/readyz", &[], "").await;
        assert_eq!(status, StatusCode::OK, "the SQLite database is up with every migration");
        let (status, models) = ask(&app, "GET", "/v1/models", &[], "").await;
        assert_eq!(status, StatusCode::OK);
        assert!(models.contains("profile:fast-start"), "{models}");
        let token = std::fs::read_to_string(dir.join("researcher-token")).unwrap();
        let bearer = format!("Bearer {}", token.trim());
        let (status, list) = ask(&app, "GET", "/api/studies", &[("authorization", &bearer)], "").await;
        assert_eq!((status, list.trim()), (StatusCode::OK, "[]"));
    });
}

#[test]
fn every_route_refuses_with_an_api_error() {
    let json = ("content-type", "application/json");
    let foreign = ("origin", "https://elsewhere.example");
    let big = "x".repeat(lab_server::replay::api::MAX_BODY_BYTES + 1);
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#;
    // (method, path, headers, body, status): one refusal for each route.
    let cases: Vec<Case> = vec![
        ("POST", "/v1/chat/completions", vec![json], "{not json", 400),
        ("POST", "/v1/chat/completions", vec![json], r#"{"model":"nope","messages":[]}"#, 404),
        ("POST", "/v1/chat/completions", vec![json], &big, 413),
        ("POST", "/v1/completions", vec![json], "[]", 400),
        ("POST", "/v1/responses", vec![json], "{", 400),
        ("POST", "/v1/messages", vec![json], "{", 400),
        ("POST", "/v1beta/models/nope:streamGenerateContent", vec![json], gemini, 404),
        ("POST", "/v1/models/nope:generateContent", vec![json], gemini, 404),
        ("POST", "/api/chat", vec![json], "{", 400),
        ("POST", "/api/generate", vec![json], "{", 400),
        ("POST", "/v1/lab/ui-stream", vec![json], "{", 400),
        ("POST", "/v1/lab/no-such-stream", vec![json], "{}", 404),
        ("GET", "/v1/lab/event-stream?model=nope&q=hi", vec![], "", 404),
        ("GET", "/v1/lab/requests/nope", vec![], "", 404),
        ("POST", "/v1/lab/load", vec![json, foreign], "{}", 403),
        ("POST", "/v1/lab/load", vec![json], "{", 400),
        ("POST", "/v1/lab/load", vec![json], &big, 413),
        ("GET", "/v1/lab/traffic?after=many", vec![], "", 400),
        ("GET", "/api/studies", vec![], "", 401),
        ("POST", "/api/studies", vec![json, ("authorization", "Bearer wrong")], "{}", 401),
        ("POST", "/api/studies", vec![json], &big, 413),
        ("GET", "/api/studies/nope", vec![], "", 404),
        ("POST", "/api/studies/nope/participants", vec![json], "{}", 404),
        ("POST", "/api/studies/nope/answers", vec![json, foreign], "{}", 403),
        ("POST", "/api/studies/nope/answers", vec![json], &big, 413),
        ("GET", "/api/studies/nope/design", vec![], "", 401),
        ("GET", "/api/studies/nope/results", vec![], "", 401),
        ("POST", "/api/studies/nope/close", vec![], "", 401),
        ("POST", "/v1/traces", vec![json], "{}", 401),
        ("POST", "/v1/traces", vec![json], &big, 413),
        ("OPTIONS", "/v1/traces", vec![], "", 400),
        ("GET", "/v1/field/requests", vec![], "", 401),
        ("GET", "/v1/field/summary", vec![], "", 401),
        ("GET", "/v1/field/sites", vec![], "", 401),
        ("GET", "/metrics", vec![], "", 401),
    ];
    in_process(data_dir("refusals"), async |app| {
        let mut wrong = Vec::new();
        for (method, path, headers, body, want) in &cases {
            let (status, text) = ask(&app, method, path, headers, body).await;
            let parsed: Option<serde_json::Value> = serde_json::from_str(&text).ok();
            let has_error = parsed.as_ref().is_some_and(|v| v.get("error").is_some());
            if status.as_u16() != *want || !has_error {
                let text: String = text.chars().take(160).collect();
                wrong.push(format!("{method} {path} (want {want}): {status} {text}"));
            }
        }
        assert!(wrong.is_empty(), "refusals that are not the expected ApiError:\n{}", wrong.join("\n"));
    });
}

/// The listed routes: `(METHOD, /path)`.
fn documented() -> Vec<(String, String)> {
    ROUTES.iter().map(|r| (r.method.to_string(), r.path.to_string())).collect()
}

/// Every `.route(PATH, handlers)` of the server's source, as `(METHOD,
/// /path)`: literal paths, the protocol's constants, and the ground truth's
/// `format!`.
fn routed_in_source() -> Vec<(String, String)> {
    use lab_core::serve::protocol::{GROUND_TRUTH_PATH, LOAD_PATH, LOAD_REQUESTS_PATH, TRAFFIC_PATH};
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests.rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for call in code.split(".route(").skip(1) {
            let (path_arg, rest) = call.split_once(',').unwrap();
            let path = match path_arg.trim() {
                p if p.starts_with('"') => p.trim_matches('"').to_string(),
                "LOAD_PATH" => LOAD_PATH.to_string(),
                "LOAD_REQUESTS_PATH" => LOAD_REQUESTS_PATH.to_string(),
                "TRAFFIC_PATH" => TRAFFIC_PATH.to_string(),
                "&format!(\"{GROUND_TRUTH_PATH}{{id}}\")" => format!("{GROUND_TRUTH_PATH}{{id}}"),
                other => panic!("{}: a route whose path this test cannot read: {other}", f.display()),
            };
            // The handlers up to the end of this call's line.
            let handlers = rest.lines().next().unwrap_or_default();
            for (name, method) in
                [("get(", "GET"), ("post(", "POST"), ("delete(", "DELETE"), ("options(", "OPTIONS")]
            {
                if handlers.contains(name) {
                    out.push((method.to_string(), path.clone()));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_reference_lists_every_route_and_each_is_routed() {
    let mut doc = documented();
    doc.sort();
    let source = routed_in_source();
    assert!(source.len() > 35, "read {} routes", source.len());
    let missing: Vec<_> = source.iter().filter(|r| !doc.contains(r)).collect();
    assert!(missing.is_empty(), "routes not in serve::routes::ROUTES: {missing:?}");
    let extra: Vec<_> = doc.iter().filter(|r| !source.contains(r)).collect();
    assert!(extra.is_empty(), "serve::routes::ROUTES lists routes the server does not have: {extra:?}");
    // And each row answers from a route, not the router's fallback (an
    // empty 404 here: no app files with --api-only).
    in_process(data_dir("reference"), async |app| {
        let mut unrouted = Vec::new();
        for (method, path) in &doc {
            let path = path
                .replace("{model_action}", "nope:generateContent")
                .replace("{page_stream}", "nope")
                .replace("{id}", "nope");
            let (status, body) = ask(&app, method, &path, &[], "").await;
            if status == StatusCode::NOT_FOUND && body.is_empty() || status == StatusCode::METHOD_NOT_ALLOWED
            {
                unrouted.push(format!("{method} {path}: {status}"));
            }
        }
        assert!(unrouted.is_empty(), "documented but not routed: {unrouted:?}");
        // The check tells a route from the fallback.
        assert_eq!(ask(&app, "GET", "/no/such/route", &[], "").await, (StatusCode::NOT_FOUND, String::new()));
    });
}

/// The reference page is made from the same list (`LAB_BLESS=1 cargo test
/// -p lab-server --test router reference` writes it), and `/openapi.json`
/// serves it as an OpenAPI 3.1 document with every route.
#[test]
fn the_reference_page_and_the_openapi_document_are_the_list() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/src/reference/http.md");
    let made = reference_page();
    lab_testkit::reference_page::check(
        std::path::Path::new(path),
        &made,
        "serve::routes::ROUTES",
        "cargo test -p lab-server --test router reference",
    );
    for r in &ROUTES {
        assert!(made.contains(&format!("| `{}` | `{}` |", r.method, r.path)), "{r:?}");
    }
    in_process(data_dir("openapi"), async |app| {
        let (status, body) = ask(&app, "GET", "/openapi.json", &[], "").await;
        assert_eq!(status, StatusCode::OK);
        let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(doc, openapi());
        assert_eq!(doc["openapi"], "3.1.0");
        let operations: usize =
            doc["paths"].as_object().unwrap().values().map(|p| p.as_object().unwrap().len()).sum();
        assert_eq!(operations, ROUTES.len(), "one operation per route");
        assert_eq!(doc["paths"]["/api/studies/{id}/answers"]["post"]["parameters"][0]["name"], "id");
    });
}
