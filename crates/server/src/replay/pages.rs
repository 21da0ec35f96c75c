//! What pages that do not `fetch` their answers are answered with (issue
//! 46): an `EventSource`, which can only GET, at `GET
//! /v1/lab/event-stream?model=…&q=…` (the question in `q`), and a WebSocket
//! at `GET /v1/lab/ws`, where each text message the page sends is a Chat
//! request (`{"model", "messages"}`) answered one message per event of the
//! Chat wire (each chunk's JSON, then `[DONE]`), an error as
//! `{"error": {"message"}}`. Both are the Chat route's answer
//! ([`crate::replay::api::chat`]): the same profiles, pace and ground truth.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use lab_core::stream::sse::SseParser;
use serde_json::{Value, json};

use crate::ops::observe::ClientIp;
use crate::replay::api::{Api, error};

type Client = Option<axum::Extension<ClientIp>>;

/// `GET /v1/lab/{kind}`: `event-stream` or `ws`.
pub async fn page_get(
    State(api): State<Arc<Api>>,
    Path(kind): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    client: Client,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    match kind.as_str() {
        "event-stream" => {
            let body = json!({
                "model": q.get("model").map_or("profile:fast-start", String::as_str),
                "stream": true,
                "stream_options": { "include_usage": true },
                "messages": [{ "role": "user", "content": q.get("q").map_or("", String::as_str) }],
            });
            crate::replay::api::chat(State(api), client, headers, Ok(Bytes::from(body.to_string()))).await
        }
        "ws" => match ws {
            Ok(ws) => ws.on_upgrade(move |socket| answer_socket(api, socket, client, headers)),
            Err(e) => {
                let message = format!("/v1/lab/ws answers over a WebSocket: {e}");
                error(StatusCode::BAD_REQUEST, "invalid_request_error", &message)
            }
        },
        _ => {
            let message = format!(
                "GET /v1/lab/{kind}: GET serves event-stream (an EventSource's answer) and ws (a WebSocket's); ui-stream, data-stream and text-stream are POSTs"
            );
            error(StatusCode::NOT_FOUND, "not_found", &message)
        }
    }
}

/// A message the page is sent when its request could not be answered.
fn said(message: &str) -> Message {
    Message::Text(json!({ "error": { "message": message } }).to_string().into())
}

/// Answers each request the socket sends, in turn, until it closes.
async fn answer_socket(api: Arc<Api>, mut socket: WebSocket, client: Client, headers: HeaderMap) {
    while let Some(Ok(message)) = socket.recv().await {
        let text = match message {
            Message::Text(t) => t,
            Message::Close(_) => break,
            _ => continue,
        };
        let mut body: Value = match serde_json::from_str(text.as_str()) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => Value::Null,
            Err(e) => {
                let reply =
                    said(&format!("each message is a JSON chat request ({{\"model\", \"messages\"}}): {e}"));
                if socket.send(reply).await.is_err() {
                    return;
                }
                continue;
            }
        };
        let Some(o) = body.as_object_mut() else {
            if socket.send(said("each message is a JSON object: a chat request")).await.is_err() {
                return;
            }
            continue;
        };
        o.insert("stream".into(), Value::Bool(true));
        let response = crate::replay::api::chat(
            State(Arc::clone(&api)),
            client,
            headers.clone(),
            Ok(Bytes::from(body.to_string())),
        )
        .await
        .into_response();
        let ok = response.status().is_success();
        let mut data = response.into_body().into_data_stream();
        if !ok {
            let mut bytes = Vec::new();
            while let Some(Ok(piece)) = data.next().await {
                bytes.extend_from_slice(&piece);
            }
            if socket.send(Message::Text(String::from_utf8_lossy(&bytes).into_owned().into())).await.is_err()
            {
                return;
            }
            continue;
        }
        let mut sse = SseParser::new();
        while let Some(piece) = data.next().await {
            let Ok(bytes) = piece else { break };
            for event in sse.feed(&bytes) {
                // The page gone mid-answer: the answer stops with it.
                if socket.send(Message::Text(event.data.into())).await.is_err() {
                    return;
                }
            }
        }
    }
}
