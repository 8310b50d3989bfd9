//! The JSON-RPC 2.0 binding at `POST /<variant>/a2a`: 1.0 methods (with the `A2A-Version: 1.0`
//! check the official SDKs make), or 0.3 methods and shapes for `legacy`. Streaming methods
//! answer with SSE, one JSON-RPC response per `data:` line.

use std::convert::Infallible;

use axum::Json;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt as _;
use serde_json::{Value, json};

use super::error::A2aError;
use super::legacy;
use super::service::{Agent, EventStream, list_query};
use super::variant::Variant;

/// What a method produced: one result, or a stream of results.
enum Outcome {
    Result(Value),
    Stream(EventStream),
}

/// Handles one JSON-RPC request body for `variant`; `version` is the `A2A-Version` requested.
pub(crate) async fn handle(agent: Agent, variant: Variant, version: Option<String>, body: &[u8]) -> Response {
    let legacy = variant.is_legacy();
    let request: Value = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(_) => return error_response(Value::Null, &A2aError::Parse, legacy),
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let method = match (
        request.get("jsonrpc").and_then(Value::as_str),
        request.get("method"),
    ) {
        (Some("2.0"), Some(Value::String(method))) => method.clone(),
        _ => {
            let error = A2aError::InvalidRequest("Request must be JSON-RPC 2.0 with a method".into());
            return error_response(id, &error, legacy);
        }
    };
    let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
    let outcome = if legacy {
        dispatch_legacy(&agent, variant, &method, &params).await
    } else {
        match super::routes::check_version(version.as_deref()) {
            Ok(()) => dispatch(&agent, variant, &method, &params).await,
            Err(error) => Err(error),
        }
    };
    match outcome {
        Ok(Outcome::Result(result)) => {
            Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
        }
        Ok(Outcome::Stream(events)) => {
            let frames = events.map(move |result| {
                let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
                Ok::<_, Infallible>(Event::default().data(response.to_string()))
            });
            Sse::new(frames).keep_alive(KeepAlive::default()).into_response()
        }
        Err(error) => error_response(id, &error, legacy),
    }
}

async fn dispatch(
    agent: &Agent,
    variant: Variant,
    method: &str,
    params: &Value,
) -> Result<Outcome, A2aError> {
    Ok(match method {
        "SendMessage" => Outcome::Result(json!({ "task": agent.send(variant, params).await? })),
        "SendStreamingMessage" => Outcome::Stream(agent.stream(variant, params)?),
        "GetTask" => Outcome::Result(agent.get(variant, params)?),
        "CancelTask" => Outcome::Result(agent.cancel(variant, params)?),
        "SubscribeToTask" => Outcome::Stream(agent.subscribe(variant, params)?),
        "ListTasks" => Outcome::Result(agent.list(variant, &list_query(params))?),
        "CreateTaskPushNotificationConfig" => Outcome::Result(agent.push_create(variant, params)?),
        "GetTaskPushNotificationConfig" => Outcome::Result(agent.push_get(variant, params)?),
        "ListTaskPushNotificationConfigs" => Outcome::Result(agent.push_list(variant, params)?),
        "DeleteTaskPushNotificationConfig" => Outcome::Result(agent.push_delete(variant, params)?),
        other => return Err(A2aError::MethodNotFound(other.to_owned())),
    })
}

async fn dispatch_legacy(
    agent: &Agent,
    variant: Variant,
    method: &str,
    params: &Value,
) -> Result<Outcome, A2aError> {
    let legacy_stream =
        |events: EventStream| -> EventStream { events.map(|e| legacy::event_out(&e)).boxed() };
    Ok(match method {
        "message/send" => {
            let task = agent.send(variant, &legacy::send_params_in(params)).await?;
            Outcome::Result(legacy::task_out(&task))
        }
        "message/stream" => Outcome::Stream(legacy_stream(
            agent.stream(variant, &legacy::send_params_in(params))?,
        )),
        "tasks/get" => Outcome::Result(legacy::task_out(&agent.get(variant, params)?)),
        "tasks/cancel" => Outcome::Result(legacy::task_out(&agent.cancel(variant, params)?)),
        "tasks/resubscribe" => Outcome::Stream(legacy_stream(agent.subscribe(variant, params)?)),
        other => return Err(A2aError::MethodNotFound(other.to_owned())),
    })
}

fn error_response(id: Value, error: &A2aError, legacy: bool) -> Response {
    Json(json!({"jsonrpc": "2.0", "id": id, "error": error.to_jsonrpc(legacy)})).into_response()
}
