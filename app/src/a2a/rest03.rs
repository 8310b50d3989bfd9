//! The A2A 0.3 HTTP+JSON (REST) wire: ProtoJSON of the 0.3 proto (package `a2a.v1`), which is
//! not the JSON-RPC 0.3 object shape (`docs/reference/a2a-0.3-http-json.md`; read from a2a-sdk 0.3.26
//! `rest_handler.py` / `proto_utils.py` / the `a2a_pb2` descriptor, and @a2a-js/sdk 1.3.0
//! `compat/v0_3/server/express`). Both SDK servers refuse the JSON-RPC shape on `/v1/…`.
//!
//! The console builds 0.3 params with [`encode`](super::encode) in the JSON-RPC shape; for a
//! 0.3 REST interface the gateway turns them into ProtoJSON here, and turns every ProtoJSON
//! answer and stream event back into the JSON-RPC 0.3 shape (`kind`-tagged), so ingestion,
//! stored payloads and the projection only ever see shapes the decoders read.
//!
//! Rules (wire → JSON-RPC shape):
//! - Message: `role` `ROLE_USER`/`ROLE_AGENT` ↔ `user`/`agent`; parts are `content` (not
//!   `parts`); no `kind`; no `referenceTaskIds` (not in the 0.3 proto; Python rejects it).
//! - Part: `{"text"}` | `{"file":{"fileWithUri"|"fileWithBytes","mimeType","name"}}` |
//!   `{"data":{"data":{…}}}` (DataPart wraps a Struct), plus `metadata`.
//! - Task state `TASK_STATE_*` (note `TASK_STATE_CANCELLED`); artifacts keep `parts`.
//! - SendMessageRequest `configuration.pushNotification` (not `pushNotificationConfig`).
//! - Answers: SendMessageResponse / StreamResponse are `{"task"|"message"|"statusUpdate"|
//!   "artifactUpdate": …}`; push configs are `{"name":"tasks/{t}/pushNotificationConfigs/{c}",
//!   "pushNotificationConfig":{…}}`, lists `{"configs":[…]}`.
//!
//! Conversions never fail: what they do not recognise passes through unchanged.

use serde_json::{Map, Value, json};

use super::method::Operation;
use super::task::TaskState;

/// JSON-RPC 0.3 `message/send` params → the ProtoJSON `SendMessageRequest` body.
pub fn send_request_body(params: &Value) -> Value {
    let Some(obj) = params.as_object() else {
        return params.clone();
    };
    let mut out = Map::new();
    if let Some(message) = obj.get("message") {
        out.insert("message".into(), message_out(message));
    }
    if let Some(Value::Object(config)) = obj.get("configuration") {
        let mut c = Map::new();
        for key in ["acceptedOutputModes", "historyLength", "blocking"] {
            if let Some(v) = config.get(key) {
                c.insert(key.into(), v.clone());
            }
        }
        if let Some(push) = config
            .get("pushNotificationConfig")
            .or_else(|| config.get("pushNotification"))
        {
            c.insert("pushNotification".into(), push.clone());
        }
        out.insert("configuration".into(), Value::Object(c));
    }
    if let Some(m) = obj.get("metadata") {
        out.insert("metadata".into(), m.clone());
    }
    Value::Object(out)
}

/// The two bodies of a push-config create on `/v1/tasks/{task_id}/pushNotificationConfigs`,
/// from the JSON-RPC 0.3 params left after the task id was taken out
/// (`{"pushNotificationConfig":{…}}`). First the body a2a-sdk (Python) parses, a
/// `CreateTaskPushNotificationConfigRequest`; then the body @a2a-js/sdk parses (and the
/// proto's `body: "config"` names), the bare `TaskPushNotificationConfig`. No single body
/// suits both: Python refuses unknown members, JS ignores the Python ones.
pub fn push_create_bodies(task_id: &str, params: &Value) -> (Value, Value) {
    let inner = params
        .get("pushNotificationConfig")
        .cloned()
        .unwrap_or_else(|| params.clone());
    let config_id = inner
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let config = json!({
        "name": format!("tasks/{task_id}/pushNotificationConfigs/{config_id}"),
        "pushNotificationConfig": inner,
    });
    let mut python = json!({"parent": format!("tasks/{task_id}"), "config": config.clone()});
    if !config_id.is_empty() {
        python["configId"] = json!(config_id);
    }
    (python, config)
}

/// A ProtoJSON answer of `operation` → the JSON-RPC 0.3 result shape.
pub fn answer_in(operation: Operation, value: Value) -> Value {
    match operation {
        Operation::SendMessage | Operation::SendStreamingMessage | Operation::SubscribeToTask => {
            stream_response_in(value)
        }
        Operation::GetTask | Operation::CancelTask => task_in(&value),
        Operation::ListTasks => match value {
            Value::Object(mut page) => {
                if let Some(Value::Array(tasks)) = page.get_mut("tasks") {
                    for task in tasks.iter_mut() {
                        *task = task_in(task);
                    }
                }
                Value::Object(page)
            }
            other => other,
        },
        Operation::CreateTaskPushNotificationConfig | Operation::GetTaskPushNotificationConfig => {
            push_config_in(&value)
        }
        Operation::ListTaskPushNotificationConfigs => match value.get("configs") {
            Some(Value::Array(configs)) => Value::Array(configs.iter().map(push_config_in).collect()),
            _ if value.as_object().is_some_and(Map::is_empty) => json!([]),
            _ => value,
        },
        Operation::DeleteTaskPushNotificationConfig | Operation::GetExtendedAgentCard => value,
    }
}

/// A ProtoJSON `StreamResponse` / `SendMessageResponse` → the 0.3 `kind` object.
pub fn stream_response_in(value: Value) -> Value {
    let Some(obj) = value.as_object() else {
        return value;
    };
    if obj.contains_key("kind") {
        return value;
    }
    if let Some(task) = obj.get("task") {
        return task_in(task);
    }
    if let Some(message) = obj.get("message").or_else(|| obj.get("msg")) {
        return message_in(message);
    }
    if let Some(update) = obj.get("statusUpdate") {
        let mut out = update.clone();
        out["kind"] = json!("status-update");
        if let Some(status) = update.get("status") {
            out["status"] = status_in(status);
        }
        return out;
    }
    if let Some(update) = obj.get("artifactUpdate") {
        let mut out = update.clone();
        out["kind"] = json!("artifact-update");
        if let Some(artifact) = update.get("artifact") {
            out["artifact"] = artifact_in(artifact);
        }
        return out;
    }
    if obj.contains_key("messageId") {
        return message_in(&value);
    }
    if obj.contains_key("id") && obj.contains_key("status") {
        return task_in(&value);
    }
    value
}

/// A JSON-RPC 0.3 message → ProtoJSON.
pub fn message_out(message: &Value) -> Value {
    let Some(obj) = message.as_object() else {
        return message.clone();
    };
    let mut out = Map::new();
    for key in ["messageId", "contextId", "taskId", "metadata", "extensions"] {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let role = match obj.get("role").and_then(Value::as_str) {
        Some(r) if r.eq_ignore_ascii_case("agent") || r == "ROLE_AGENT" => "ROLE_AGENT",
        _ => "ROLE_USER",
    };
    out.insert("role".into(), json!(role));
    let parts = obj
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    out.insert("content".into(), parts.iter().map(part_out).collect());
    Value::Object(out)
}

/// A JSON-RPC 0.3 part (`kind` text/file/data) → ProtoJSON.
pub fn part_out(part: &Value) -> Value {
    let Some(obj) = part.as_object() else {
        return part.clone();
    };
    let mut out = Map::new();
    match obj.get("kind").and_then(Value::as_str) {
        Some("file") => {
            let file = obj
                .get("file")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut f = Map::new();
            if let Some(uri) = file.get("uri") {
                f.insert("fileWithUri".into(), uri.clone());
            } else if let Some(bytes) = file.get("bytes") {
                f.insert("fileWithBytes".into(), bytes.clone());
            }
            for key in ["mimeType", "name"] {
                if let Some(v) = file.get(key) {
                    f.insert(key.into(), v.clone());
                }
            }
            out.insert("file".into(), Value::Object(f));
        }
        Some("data") => {
            let data = obj.get("data").cloned().unwrap_or_else(|| json!({}));
            out.insert("data".into(), json!({ "data": data }));
        }
        _ => match obj.get("text") {
            Some(text) => {
                out.insert("text".into(), text.clone());
            }
            None => return part.clone(),
        },
    }
    if let Some(m) = obj.get("metadata") {
        out.insert("metadata".into(), m.clone());
    }
    Value::Object(out)
}

/// A ProtoJSON message → JSON-RPC 0.3 (`kind`, lower-case role, `parts`).
fn message_in(message: &Value) -> Value {
    let Some(obj) = message.as_object() else {
        return message.clone();
    };
    let mut out = obj.clone();
    out.insert("kind".into(), json!("message"));
    match obj.get("role").and_then(Value::as_str) {
        Some("ROLE_USER") => {
            out.insert("role".into(), json!("user"));
        }
        Some("ROLE_AGENT") => {
            out.insert("role".into(), json!("agent"));
        }
        _ => {}
    }
    let parts = out.remove("content").or_else(|| out.remove("parts"));
    out.insert("parts".into(), parts_in(parts.as_ref()));
    Value::Object(out)
}

fn parts_in(parts: Option<&Value>) -> Value {
    let parts = parts
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    parts.iter().map(part_in).collect()
}

/// A ProtoJSON part → JSON-RPC 0.3; a part that already has a `kind` is kept.
fn part_in(part: &Value) -> Value {
    let Some(obj) = part.as_object() else {
        return part.clone();
    };
    if obj.contains_key("kind") {
        return part.clone();
    }
    let mut out = Map::new();
    if let Some(text) = obj.get("text") {
        out.insert("kind".into(), json!("text"));
        out.insert("text".into(), text.clone());
    } else if let Some(Value::Object(file)) = obj.get("file") {
        let mut f = Map::new();
        if let Some(uri) = file.get("fileWithUri").or_else(|| file.get("uri")) {
            f.insert("uri".into(), uri.clone());
        } else if let Some(bytes) = file.get("fileWithBytes").or_else(|| file.get("bytes")) {
            f.insert("bytes".into(), bytes.clone());
        }
        for key in ["mimeType", "name"] {
            if let Some(v) = file.get(key) {
                f.insert(key.into(), v.clone());
            }
        }
        out.insert("kind".into(), json!("file"));
        out.insert("file".into(), Value::Object(f));
    } else if let Some(data) = obj.get("data") {
        // DataPart is `{"data": Struct}`: unwrap exactly one level.
        let inner = match data {
            Value::Object(d) if d.len() == 1 && d.contains_key("data") => d["data"].clone(),
            other => other.clone(),
        };
        out.insert("kind".into(), json!("data"));
        out.insert("data".into(), inner);
    } else {
        return part.clone();
    }
    if let Some(m) = obj.get("metadata") {
        out.insert("metadata".into(), m.clone());
    }
    Value::Object(out)
}

fn status_in(status: &Value) -> Value {
    let mut out = status.clone();
    if let Some(obj) = out.as_object_mut() {
        let state = obj
            .get("state")
            .and_then(Value::as_str)
            .unwrap_or("TASK_STATE_UNSPECIFIED");
        let state = TaskState::parse(state).as_v03_str().to_owned();
        obj.insert("state".into(), json!(state));
        if let Some(message) = obj.get("message").or_else(|| obj.get("update")).cloned() {
            obj.remove("update");
            obj.insert("message".into(), message_in(&message));
        }
    }
    out
}

fn artifact_in(artifact: &Value) -> Value {
    let mut out = artifact.clone();
    if let Some(obj) = out.as_object_mut() {
        let parts = obj.remove("parts").or_else(|| obj.remove("content"));
        obj.insert("parts".into(), parts_in(parts.as_ref()));
    }
    out
}

/// A ProtoJSON task → JSON-RPC 0.3 (`kind: "task"`, lower-case states, converted parts).
fn task_in(task: &Value) -> Value {
    let Some(obj) = task.as_object() else {
        return task.clone();
    };
    if obj.contains_key("kind") || !obj.contains_key("id") {
        return task.clone();
    }
    let mut out = obj.clone();
    out.insert("kind".into(), json!("task"));
    if let Some(status) = obj.get("status") {
        out.insert("status".into(), status_in(status));
    }
    if let Some(Value::Array(artifacts)) = obj.get("artifacts") {
        out.insert("artifacts".into(), artifacts.iter().map(artifact_in).collect());
    }
    if let Some(Value::Array(history)) = obj.get("history") {
        out.insert("history".into(), history.iter().map(message_in).collect());
    }
    Value::Object(out)
}

/// A ProtoJSON `TaskPushNotificationConfig` (`name` + `pushNotificationConfig`) → the 0.3
/// `{taskId, pushNotificationConfig}`; ids come from the resource name when missing.
fn push_config_in(config: &Value) -> Value {
    let Some(obj) = config.as_object() else {
        return config.clone();
    };
    let Some(name) = obj.get("name").and_then(Value::as_str) else {
        return config.clone();
    };
    let mut segments = name.split('/');
    let (task_id, config_id) = match (segments.next(), segments.next(), segments.next(), segments.next()) {
        (Some("tasks"), Some(t), Some("pushNotificationConfigs"), c) => (t.to_owned(), c.unwrap_or("")),
        (Some("tasks"), Some(t), None, None) => (t.to_owned(), ""),
        _ => return config.clone(),
    };
    let mut inner = obj
        .get("pushNotificationConfig")
        .cloned()
        .unwrap_or_else(|| json!({}));
    if !config_id.is_empty()
        && let Some(inner) = inner.as_object_mut()
        && inner.get("id").and_then(Value::as_str).is_none_or(str::is_empty)
    {
        inner.insert("id".into(), json!(config_id));
    }
    json!({"taskId": task_id, "pushNotificationConfig": inner})
}

#[cfg(test)]
mod tests;
