//! A2A 0.3 shapes for the `legacy` variant: tasks, messages, parts and stream events are kept
//! in 1.0 form internally and converted here on the way out; 0.3 messages are converted in.

use app::a2a::{Part, PartContent, ProtocolVersion, TaskState, encode_part};
use serde_json::{Value, json};

fn role_out(role: &Value) -> &'static str {
    if role == "ROLE_USER" { "user" } else { "agent" }
}

/// A 1.0 part → a 0.3 part, encoded by `app::a2a`. This agent also labels text parts with
/// `metadata.mimeType`, which the app encoder keeps for data parts only; a part the decoder
/// refuses is sent as it is.
fn part_out(part: &Value) -> Value {
    let Ok(decoded) = Part::decode(part) else {
        return part.clone();
    };
    let mut out = encode_part(&decoded, ProtocolVersion::V0_3);
    if let (PartContent::Text(_), Some(media)) = (&decoded.content, &decoded.media_type)
        && let Some(out) = out.as_object_mut()
    {
        let metadata = out.entry("metadata").or_insert_with(|| json!({}));
        if let Some(metadata) = metadata.as_object_mut() {
            metadata.entry("mimeType").or_insert_with(|| json!(media));
        }
    }
    out
}

fn parts_out(parts: &Value) -> Value {
    Value::Array(
        parts
            .as_array()
            .map(|p| p.iter().map(part_out).collect())
            .unwrap_or_default(),
    )
}

/// A 1.0 message → 0.3.
pub(crate) fn message_out(message: &Value) -> Value {
    let mut out = message.clone();
    out["kind"] = json!("message");
    out["role"] = json!(role_out(&message["role"]));
    out["parts"] = parts_out(&message["parts"]);
    out
}

fn status_out(status: &Value) -> Value {
    let state = TaskState::parse(status["state"].as_str().unwrap_or(""));
    let mut out = json!({"state": state.as_v03_str()});
    if let Some(message) = status.get("message") {
        out["message"] = message_out(message);
    }
    if let Some(timestamp) = status.get("timestamp") {
        out["timestamp"] = timestamp.clone();
    }
    out
}

fn artifact_out(artifact: &Value) -> Value {
    let mut out = artifact.clone();
    out["parts"] = parts_out(&artifact["parts"]);
    out
}

/// A 1.0 task → 0.3 (`kind: "task"`, lower-case states, `kind`-tagged parts).
pub(crate) fn task_out(task: &Value) -> Value {
    let mut out = task.clone();
    out["kind"] = json!("task");
    out["status"] = status_out(&task["status"]);
    if let Some(artifacts) = task.get("artifacts").and_then(Value::as_array) {
        out["artifacts"] = Value::Array(artifacts.iter().map(artifact_out).collect());
    }
    if let Some(history) = task.get("history").and_then(Value::as_array) {
        out["history"] = Value::Array(history.iter().map(message_out).collect());
    }
    out
}

/// A 1.0 StreamResponse → the 0.3 stream `result` (`status-update` gets `final`).
pub(crate) fn event_out(event: &Value) -> Value {
    if let Some(task) = event.get("task") {
        task_out(task)
    } else if let Some(message) = event.get("message") {
        message_out(message)
    } else if let Some(update) = event.get("statusUpdate") {
        let mut out = update.clone();
        out["kind"] = json!("status-update");
        out["status"] = status_out(&update["status"]);
        let state = update
            .pointer("/status/state")
            .and_then(Value::as_str)
            .unwrap_or("");
        out["final"] = json!(TaskState::parse(state).ends_stream());
        out
    } else if let Some(update) = event.get("artifactUpdate") {
        let mut out = update.clone();
        out["kind"] = json!("artifact-update");
        out["artifact"] = artifact_out(&update["artifact"]);
        out
    } else {
        event.clone()
    }
}

/// A 0.3 part → 1.0 (unknown shapes pass through).
fn part_in(part: &Value) -> Value {
    let media = part
        .pointer("/metadata/mimeType")
        .or_else(|| part.get("mimeType"))
        .cloned();
    let mut out = match part.get("kind").and_then(Value::as_str) {
        Some("text") => json!({"text": part["text"]}),
        Some("data") => json!({"data": part["data"]}),
        Some("file") => {
            let file = &part["file"];
            let mut out = match (file.get("bytes"), file.get("uri")) {
                (Some(bytes), _) => json!({ "raw": bytes }),
                (None, Some(uri)) => json!({ "url": uri }),
                (None, None) => json!({}),
            };
            if let Some(mime) = file.get("mimeType") {
                out["mediaType"] = mime.clone();
            }
            if let Some(name) = file.get("name") {
                out["filename"] = name.clone();
            }
            out
        }
        _ => part.clone(),
    };
    if let (Some(media), Some(object)) = (media, out.as_object_mut()) {
        object.entry("mediaType").or_insert(media);
    }
    if let Some(metadata) = part.get("metadata") {
        out["metadata"] = metadata.clone();
    }
    out
}

/// 0.3 `message/send` params → 1.0 `SendMessageRequest` (`blocking: false` → `returnImmediately`).
pub(crate) fn send_params_in(params: &Value) -> Value {
    let mut out = params.clone();
    if let Some(message) = params.get("message").filter(|m| m.is_object()) {
        let mut message = message.clone();
        if let Some(parts) = message.get("parts").and_then(Value::as_array) {
            message["parts"] = Value::Array(parts.iter().map(part_in).collect());
        }
        message["role"] = json!("ROLE_USER");
        if let Some(object) = message.as_object_mut() {
            object.remove("kind");
        }
        out["message"] = message;
    }
    let blocking = params.pointer("/configuration/blocking").and_then(Value::as_bool);
    if blocking == Some(false) {
        out["configuration"]["returnImmediately"] = json!(true);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_and_events_get_0_3_shapes() {
        let task = json!({"id": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"messageId": "m", "role": "ROLE_AGENT",
                "parts": [{"text": "hi", "mediaType": "text/plain"}, {"raw": "AA==", "mediaType": "image/png", "filename": "a.png"}]}},
            "artifacts": [], "history": []});
        let out = task_out(&task);
        assert_eq!(out["kind"], "task");
        assert_eq!(out["status"]["state"], "input-required");
        assert_eq!(out["status"]["message"]["role"], "agent");
        assert_eq!(
            out["status"]["message"]["parts"][0],
            json!({"kind": "text", "text": "hi", "metadata": {"mimeType": "text/plain"}})
        );
        assert_eq!(
            out["status"]["message"]["parts"][1]["file"],
            json!({"bytes": "AA==", "mimeType": "image/png", "name": "a.png"})
        );
        let event =
            event_out(&json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}}));
        assert_eq!(event["kind"], "status-update");
        assert_eq!(event["final"], true);
    }

    #[test]
    fn an_unspecified_state_is_unknown_in_0_3() {
        let task = json!({"id": "t", "status": {"state": "TASK_STATE_UNSPECIFIED"}});
        assert_eq!(task_out(&task)["status"]["state"], "unknown");
        let event = event_out(
            &json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_UNSPECIFIED"}}}),
        );
        assert_eq!(event["status"]["state"], "unknown");
        assert_eq!(event["final"], false);
    }

    #[test]
    fn messages_come_in_as_1_0() {
        let params = json!({"message": {"kind": "message", "role": "user", "messageId": "m",
            "parts": [{"kind": "text", "text": "hi"}, {"kind": "data", "data": {"a": 1}}]},
            "configuration": {"blocking": false}});
        let out = send_params_in(&params);
        assert_eq!(
            out["message"]["parts"],
            json!([{"text": "hi"}, {"data": {"a": 1}}])
        );
        assert_eq!(out["message"]["role"], "ROLE_USER");
        assert_eq!(out["configuration"]["returnImmediately"], true);
    }
}
