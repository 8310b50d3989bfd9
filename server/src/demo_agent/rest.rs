//! The HTTP+JSON binding under `/<variant>/rest`: `POST /message:send`, `POST /message:stream`,
//! `GET /tasks`, `GET /tasks/{id}`, `POST /tasks/{id}:cancel`, `GET|POST /tasks/{id}:subscribe`,
//! and push configs: `POST|GET /tasks/{id}/pushNotificationConfigs`,
//! `GET|DELETE /tasks/{id}/pushNotificationConfigs/{configId}`.
//! Bodies are bare 1.0 objects; errors are `google.rpc.Status` bodies with the HTTP status.

use std::collections::HashMap;
use std::convert::Infallible;

use axum::Json;
use axum::http::Method;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use serde_json::{Value, json};

use super::error::A2aError;
use super::service::{Agent, EventStream, list_query};
use super::variant::Variant;

/// One REST call, already split from the path.
pub(crate) enum Call {
    Send {
        stream: bool,
    },
    List,
    /// `tasks/{id}` with an optional `:action` suffix.
    Task {
        id: String,
        action: Option<String>,
    },
    /// `tasks/{task}/pushNotificationConfigs[/{config}]`.
    Push {
        task: String,
        config: Option<String>,
    },
}

impl Call {
    /// Reads `tasks/{id_action}`, where the segment may end in `:cancel` or `:subscribe`.
    pub(crate) fn task(id_action: &str) -> Call {
        match id_action.rsplit_once(':') {
            Some((id, action)) => Call::Task {
                id: id.to_owned(),
                action: Some(action.to_owned()),
            },
            None => Call::Task {
                id: id_action.to_owned(),
                action: None,
            },
        }
    }
}

/// Handles one REST call for `variant`.
pub(crate) async fn handle(
    agent: Agent,
    variant: Variant,
    version: Option<String>,
    method: Method,
    call: Call,
    query: HashMap<String, String>,
    body: &[u8],
) -> Response {
    if variant.is_legacy() {
        let error = A2aError::UnsupportedOperation(
            "This agent speaks A2A 0.3 only (JSON-RPC at /a2a, HTTP+JSON under /rest/v1)".into(),
        );
        return error_response(&error);
    }
    if let Err(error) = super::routes::check_version(version.as_deref()) {
        return error_response(&error);
    }
    let query: Value = query.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
    let post = method == Method::POST;
    let get = method == Method::GET;
    let result = match call {
        Call::Send { stream } if post => match serde_json::from_slice::<Value>(body) {
            Err(_) => Err(A2aError::Parse),
            Ok(request) if stream => agent.stream(variant, &request).map(sse),
            Ok(request) => agent
                .send(variant, &request)
                .await
                .map(|task| Json(json!({ "task": task })).into_response()),
        },
        Call::List if get => agent.list(variant, &list_query(&query)).map(json_response),
        Call::Task { id, action } => {
            let mut params = query;
            params["id"] = json!(id);
            match action.as_deref() {
                None if get => agent.get(variant, &params).map(json_response),
                Some("cancel") if post => agent.cancel(variant, &params).map(json_response),
                Some("subscribe") if post || get => agent.subscribe(variant, &params).map(sse),
                action => Err(unknown_route(&method, action)),
            }
        }
        Call::Push { task, config } => match (config, &method) {
            (None, &Method::POST) => match serde_json::from_slice::<Value>(body) {
                Err(_) => Err(A2aError::Parse),
                Ok(mut request) => {
                    request["taskId"] = json!(task);
                    agent.push_create(variant, &request).map(json_response)
                }
            },
            (None, &Method::GET) => agent
                .push_list(variant, &json!({ "taskId": task }))
                .map(json_response),
            (Some(id), &Method::GET) => agent
                .push_get(variant, &json!({ "taskId": task, "id": id }))
                .map(json_response),
            (Some(id), &Method::DELETE) => agent
                .push_delete(variant, &json!({ "taskId": task, "id": id }))
                .map(json_response),
            _ => Err(unknown_route(&method, None)),
        },
        Call::Send { .. } | Call::List => Err(unknown_route(&method, None)),
    };
    result.unwrap_or_else(|error| error_response(&error))
}

fn unknown_route(method: &Method, action: Option<&str>) -> A2aError {
    A2aError::MethodNotFound(format!("{method} {}", action.unwrap_or("(no action)")))
}

fn json_response(value: Value) -> Response {
    Json(value).into_response()
}

fn sse(events: EventStream) -> Response {
    let frames = events.map(|event| Ok::<_, Infallible>(Event::default().data(event.to_string())));
    Sse::new(frames).keep_alive(KeepAlive::default()).into_response()
}

fn error_response(error: &A2aError) -> Response {
    (error.http_status(), Json(error.to_rest())).into_response()
}
