//! The `legacy` variant's A2A 0.3 HTTP+JSON binding under `/legacy/rest/v1/…`, speaking the wire
//! the official servers speak (`docs/reference/a2a-0.3-http-json.md`): bodies are ProtoJSON of the 0.3
//! proto (`role: "ROLE_USER"`, message parts under `content`, parts `{"text"}` /
//! `{"file":{"fileWithUri"|"fileWithBytes","mimeType","name"}}` / `{"data":{"data":{…}}}`,
//! `TASK_STATE_*` with `TASK_STATE_CANCELLED`), answers `{"task":…}` and stream events
//! `{"task"|"message"|"statusUpdate"|"artifactUpdate":…}`. Like a2a-sdk 0.3 it serves
//! `:subscribe` with GET only (POST answers 405); like @a2a-js/sdk it reports errors as
//! `{"code": <JSON-RPC code>, "message"}` with the HTTP status of its legacy table, and refuses
//! a JSON-RPC-shaped message (`kind`, `parts`, lower-case role) as invalid params.
//!
//! Messages and parts go out through the console's own 0.3 conversions (`app::a2a::rest03_wire`);
//! what only a server writes (tasks, statuses, events) and the strict reading of requests are
//! here. The official SDK servers, not this agent, are the tests' independent check of the wire
//! (`server/tests/it/sdk_agents.rs`).

use std::collections::HashMap;
use std::convert::Infallible;

use axum::Json;
use axum::http::{Method, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use serde_json::{Map, Value, json};

use app::a2a::rest03_wire;

use super::error::A2aError;
use super::legacy;
use super::rest::Call;
use super::service::{Agent, EventStream};
use super::variant::Variant;

/// Handles one 0.3 REST call; only the `legacy` variant has this binding.
pub(crate) async fn handle(
    agent: Agent,
    variant: Variant,
    method: Method,
    call: Call,
    query: HashMap<String, String>,
    body: &[u8],
) -> Response {
    if !variant.is_legacy() {
        return error_response(&A2aError::MethodNotFound(
            "this agent has no A2A 0.3 REST binding".into(),
        ));
    }
    let post = method == Method::POST;
    let get = method == Method::GET;
    let result = match call {
        Call::Send { stream } if post => match send_params(body) {
            Err(error) => Err(error),
            Ok(params) if stream => agent
                .stream(variant, &params)
                .map(|events| sse(events.map(|e| event_out(&legacy::event_out(&e))).boxed())),
            Ok(params) => agent
                .send(variant, &params)
                .await
                .map(|task| Json(json!({"task": task_out(&legacy::task_out(&task))})).into_response()),
        },
        Call::Task { id, action } => {
            let mut params = json!({ "id": id });
            if let Some(n) = query.get("historyLength").and_then(|n| n.parse::<u64>().ok()) {
                params["historyLength"] = json!(n);
            }
            let task = |t: Value| Json(task_out(&legacy::task_out(&t))).into_response();
            match action.as_deref() {
                None if get => agent.get(variant, &params).map(task),
                Some("cancel") if post => agent.cancel(variant, &params).map(task),
                Some("subscribe") if get => agent
                    .subscribe(variant, &params)
                    .map(|events| sse(events.map(|e| event_out(&legacy::event_out(&e))).boxed())),
                Some("subscribe") => return StatusCode::METHOD_NOT_ALLOWED.into_response(),
                action => Err(A2aError::MethodNotFound(format!(
                    "{method} {}",
                    action.unwrap_or("(no action)")
                ))),
            }
        }
        Call::Send { .. } | Call::List | Call::Push { .. } => {
            Err(A2aError::MethodNotFound(format!("{method}")))
        }
    };
    result.unwrap_or_else(|error| error_response(&error))
}

fn sse(events: EventStream) -> Response {
    let frames = events.map(|event| Ok::<_, Infallible>(Event::default().data(event.to_string())));
    Sse::new(frames).keep_alive(KeepAlive::default()).into_response()
}

/// `{"code","message"}` with the status @a2a-js/sdk's legacy table gives the code.
fn error_response(error: &A2aError) -> Response {
    let status = match error.code() {
        -32001 => StatusCode::NOT_FOUND,
        -32601 => StatusCode::NOT_IMPLEMENTED,
        _ => StatusCode::BAD_REQUEST,
    };
    (
        status,
        Json(json!({"code": error.code(), "message": error.to_string()})),
    )
        .into_response()
}

/// A ProtoJSON `SendMessageRequest` → the 1.0 params the agent runs on (through the 0.3
/// JSON-RPC params the `legacy` JSON-RPC binding reads).
fn send_params(body: &[u8]) -> Result<Value, A2aError> {
    let request: Value = serde_json::from_slice(body).map_err(|_| A2aError::Parse)?;
    let message = request
        .get("message")
        .and_then(Value::as_object)
        .ok_or_else(|| A2aError::InvalidParams("SendMessageRequest missing message".into()))?;
    if message.contains_key("kind") || message.contains_key("parts") {
        return Err(A2aError::InvalidParams(
            "a 0.3 REST message is ProtoJSON: no `kind`, parts under `content`".into(),
        ));
    }
    let role = match message.get("role").and_then(Value::as_str) {
        Some("ROLE_USER") => "user",
        Some("ROLE_AGENT") => "agent",
        other => {
            return Err(A2aError::InvalidParams(format!(
                "role {other:?} is not a 0.3 Role"
            )));
        }
    };
    let mut rpc = message.clone();
    rpc.remove("content");
    rpc.insert("kind".into(), json!("message"));
    rpc.insert("role".into(), json!(role));
    let content = message
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let parts = content.iter().map(part_in).collect::<Result<Vec<_>, _>>()?;
    rpc.insert("parts".into(), Value::Array(parts));
    let mut params = json!({ "message": rpc });
    if let Some(blocking) = request.pointer("/configuration/blocking") {
        params["configuration"] = json!({ "blocking": blocking });
    }
    Ok(legacy::send_params_in(&params))
}

/// A ProtoJSON part → a 0.3 JSON-RPC part.
fn part_in(part: &Value) -> Result<Value, A2aError> {
    let mut out = if let Some(text) = part.get("text") {
        json!({"kind": "text", "text": text})
    } else if let Some(file) = part.get("file") {
        let mut f = Map::new();
        match (file.get("fileWithUri"), file.get("fileWithBytes")) {
            (Some(uri), _) => f.insert("uri".into(), uri.clone()),
            (None, Some(bytes)) => f.insert("bytes".into(), bytes.clone()),
            (None, None) => return Err(A2aError::InvalidParams("Invalid file part type".into())),
        };
        for key in ["mimeType", "name"] {
            if let Some(v) = file.get(key) {
                f.insert(key.into(), v.clone());
            }
        }
        json!({"kind": "file", "file": f})
    } else if let Some(data) = part.get("data") {
        json!({"kind": "data", "data": data.get("data").cloned().unwrap_or_else(|| json!({}))})
    } else {
        return Err(A2aError::InvalidParams("Invalid part type".into()));
    };
    if let Some(metadata) = part.get("metadata") {
        out["metadata"] = metadata.clone();
    }
    Ok(out)
}

fn parts_out(parts: Option<&Value>) -> Value {
    parts
        .and_then(Value::as_array)
        .map(|p| p.iter().map(rest03_wire::part_out).collect())
        .unwrap_or_else(|| json!([]))
}

/// A 0.3 state (`input-required`) → the 0.3 proto enum name (`TASK_STATE_INPUT_REQUIRED`;
/// `canceled` is `TASK_STATE_CANCELLED`).
fn state_out(state: &Value) -> Value {
    let name = match state.as_str().unwrap_or("unknown") {
        "canceled" => "CANCELLED".to_owned(),
        "unknown" => "UNSPECIFIED".to_owned(),
        other => other.to_ascii_uppercase().replace('-', "_"),
    };
    json!(format!("TASK_STATE_{name}"))
}

fn status_out(status: &Value) -> Value {
    let mut out = json!({"state": state_out(&status["state"])});
    if let Some(message) = status.get("message") {
        out["message"] = rest03_wire::message_out(message);
    }
    if let Some(timestamp) = status.get("timestamp") {
        out["timestamp"] = timestamp.clone();
    }
    out
}

fn artifact_out(artifact: &Value) -> Value {
    let mut out = artifact.clone();
    out["parts"] = parts_out(artifact.get("parts"));
    out
}

/// A 0.3 JSON-RPC task → ProtoJSON.
pub(crate) fn task_out(task: &Value) -> Value {
    let mut out = task.clone();
    if let Some(obj) = out.as_object_mut() {
        obj.remove("kind");
    }
    out["status"] = status_out(&task["status"]);
    if let Some(artifacts) = task.get("artifacts").and_then(Value::as_array) {
        out["artifacts"] = artifacts.iter().map(artifact_out).collect();
    }
    if let Some(history) = task.get("history").and_then(Value::as_array) {
        out["history"] = history.iter().map(rest03_wire::message_out).collect();
    }
    out
}

/// A 0.3 JSON-RPC stream result → a ProtoJSON `StreamResponse`.
fn event_out(event: &Value) -> Value {
    let mut inner = event.clone();
    if let Some(obj) = inner.as_object_mut() {
        obj.remove("kind");
    }
    match event.get("kind").and_then(Value::as_str) {
        Some("task") => json!({ "task": task_out(event) }),
        Some("message") => json!({ "message": rest03_wire::message_out(event) }),
        Some("status-update") => {
            inner["status"] = status_out(&event["status"]);
            json!({ "statusUpdate": inner })
        }
        Some("artifact-update") => {
            inner["artifact"] = artifact_out(&event["artifact"]);
            json!({ "artifactUpdate": inner })
        }
        _ => event.clone(),
    }
}

#[cfg(test)]
#[path = "rest03_tests.rs"]
mod tests;
