//! Edits of one Task's JSON (1.0 shape): history, artifacts, status events and the trimming
//! GetTask and ListTasks apply. Pure functions; the store decides when to call them.

use serde_json::{Value, json};

use super::wire::{self, Incoming};

/// Messages kept in a task's history; older ones are dropped (flood tasks would grow forever).
const HISTORY_CAP: usize = 200;

/// The `status.state` of a task JSON.
pub(crate) fn task_state(task: &Value) -> &str {
    task.pointer("/status/state")
        .and_then(Value::as_str)
        .unwrap_or("")
}

pub(crate) fn user_message(incoming: &Incoming, task_id: &str, context_id: &str) -> Value {
    let mut message = incoming.message.clone();
    message["taskId"] = json!(task_id);
    message["contextId"] = json!(context_id);
    message
}

pub(crate) fn push_history(task: &mut Value, message: Value) {
    if let Some(history) = task.get_mut("history").and_then(Value::as_array_mut) {
        history.push(message);
        if history.len() > HISTORY_CAP {
            let excess = history.len() - HISTORY_CAP;
            history.drain(..excess);
        }
    }
}

pub(crate) fn status_event(task: &Value, metadata: Option<Value>) -> Value {
    let mut event = json!({
        "taskId": task["id"],
        "contextId": task["contextId"],
        "status": task["status"],
    });
    if let Some(metadata) = metadata {
        event["metadata"] = metadata;
    }
    json!({ "statusUpdate": event })
}

/// Adds `metadata.emittedAtMs` to an update event, so clients can measure delivery latency.
pub(crate) fn stamp(mut event: Value) -> Value {
    if let Some(body) = event.as_object_mut().and_then(|e| e.values_mut().next())
        && let Some(body) = body.as_object_mut()
    {
        let metadata = body.entry("metadata").or_insert_with(|| json!({}));
        if let Some(metadata) = metadata.as_object_mut() {
            metadata.insert("emittedAtMs".into(), json!(wire::now_ms()));
        }
    }
    event
}

pub(crate) fn merge_artifact(task: &mut Value, artifact: &Value, append: bool) {
    let Some(artifacts) = task.get_mut("artifacts").and_then(Value::as_array_mut) else {
        return;
    };
    let id = &artifact["artifactId"];
    match artifacts.iter_mut().find(|a| &a["artifactId"] == id) {
        Some(existing) if append => {
            let new_parts = artifact["parts"].as_array().cloned().unwrap_or_default();
            if let Some(parts) = existing.get_mut("parts").and_then(Value::as_array_mut) {
                parts.extend(new_parts);
            }
        }
        Some(existing) => *existing = artifact.clone(),
        None => artifacts.push(artifact.clone()),
    }
}

/// Applies `historyLength` (0 = no history) and `includeArtifacts`.
pub(crate) fn trim(mut task: Value, history_length: Option<usize>, include_artifacts: bool) -> Value {
    if let Some(limit) = history_length
        && let Some(history) = task.get_mut("history").and_then(Value::as_array_mut)
    {
        let excess = history.len().saturating_sub(limit);
        history.drain(..excess);
    }
    if !include_artifacts && let Some(object) = task.as_object_mut() {
        object.remove("artifacts");
    }
    task
}
