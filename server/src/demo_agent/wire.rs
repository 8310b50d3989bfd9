//! A2A 1.0 JSON shapes the demo agent reads and writes: agent updates and the incoming user
//! message (task states are `app::a2a::TaskState`). Built with `serde_json` on purpose: the
//! fixture must be able to send what a typed model would refuse.

use app::a2a::TaskState;
use serde_json::{Map, Value, json};

use super::error::A2aError;
use super::extension::{A2UI_LEGACY_MEDIA_TYPE, A2UI_MEDIA_TYPE};

/// Now as an ISO-8601 UTC timestamp with millisecond precision.
pub(crate) fn now_iso() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Now in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A `text/plain` text part.
pub(crate) fn text_part(text: impl Into<String>) -> Value {
    json!({"text": text.into(), "mediaType": "text/plain"})
}

/// A data part with `media_type`.
pub(crate) fn data_part(data: Value, media_type: &str) -> Value {
    json!({"data": data, "mediaType": media_type})
}

/// One change the agent makes to a task; the store turns it into a stream event.
#[derive(Debug, Clone)]
pub(crate) enum Update {
    /// A new status, optionally with an agent message (which also joins the history).
    Status {
        state: TaskState,
        /// Parts of the status message; none means the status has no message.
        parts: Vec<Value>,
        /// `metadata` of the status message.
        message_metadata: Option<Value>,
        /// `metadata` of the `statusUpdate` event itself.
        event_metadata: Option<Value>,
    },
    /// A new artifact or a chunk of one.
    Artifact {
        artifact: Value,
        append: bool,
        last_chunk: bool,
    },
}

impl Update {
    /// A status with a single text message.
    pub(crate) fn say(state: TaskState, text: impl Into<String>) -> Update {
        Update::Status {
            state,
            parts: vec![text_part(text)],
            message_metadata: None,
            event_metadata: None,
        }
    }

    /// A status whose message holds `parts`.
    pub(crate) fn parts(state: TaskState, parts: Vec<Value>) -> Update {
        Update::Status {
            state,
            parts,
            message_metadata: None,
            event_metadata: None,
        }
    }

    /// A complete artifact in one chunk.
    pub(crate) fn artifact(artifact: Value) -> Update {
        Update::Artifact {
            artifact,
            append: false,
            last_chunk: true,
        }
    }

    /// Sets the status message's metadata (no effect on artifacts).
    pub(crate) fn with_message_metadata(mut self, metadata: Value) -> Update {
        if let Update::Status { message_metadata, .. } = &mut self {
            *message_metadata = Some(metadata);
        }
        self
    }
}

/// The client's message as the scenarios see it, plus the request options that matter here.
#[derive(Debug, Clone, Default)]
pub(crate) struct Incoming {
    /// The message as stored in the task history (1.0 shape, `ROLE_USER`).
    pub(crate) message: Value,
    /// Every text part, joined by newlines.
    pub(crate) text: String,
    /// Values of the data parts that are not A2UI envelopes.
    pub(crate) data: Vec<Value>,
    /// `action` objects of A2UI client envelopes.
    pub(crate) a2ui_actions: Vec<Value>,
    /// The message's `metadata` (an object, possibly empty).
    pub(crate) metadata: Value,
    /// The request-level `metadata` (an object, possibly empty).
    pub(crate) request_metadata: Value,
    pub(crate) task_id: Option<String>,
    pub(crate) context_id: Option<String>,
    /// `configuration.returnImmediately`: answer with the first snapshot, let work continue.
    pub(crate) return_immediately: bool,
}

impl Incoming {
    /// Reads a 1.0 `SendMessageRequest` (`{message, configuration?, metadata?}`).
    pub(crate) fn from_params(params: &Value) -> Result<Incoming, A2aError> {
        let message = params
            .get("message")
            .and_then(Value::as_object)
            .ok_or_else(|| A2aError::InvalidParams("params.message must be an object".into()))?;
        let parts = message
            .get("parts")
            .and_then(Value::as_array)
            .filter(|parts| !parts.is_empty())
            .ok_or_else(|| A2aError::InvalidParams("message.parts must be a non-empty array".into()))?;
        let mut incoming = Incoming {
            metadata: object_or_empty(message.get("metadata")),
            request_metadata: object_or_empty(params.get("metadata")),
            task_id: non_blank(message.get("taskId")),
            context_id: non_blank(message.get("contextId")),
            return_immediately: params
                .pointer("/configuration/returnImmediately")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            ..Incoming::default()
        };
        let mut texts = Vec::new();
        for part in parts {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                texts.push(text.to_owned());
            } else if let Some(data) = part.get("data") {
                if is_a2ui(part) {
                    incoming.a2ui_actions.extend(a2ui_actions(data));
                } else {
                    incoming.data.push(data.clone());
                }
            }
        }
        incoming.text = texts.join("\n");
        let mut stored: Map<String, Value> = message.clone();
        stored.insert("role".into(), json!("ROLE_USER"));
        if !stored.contains_key("messageId") {
            stored.insert(
                "messageId".into(),
                json!(format!("user-{}", uuid::Uuid::new_v4())),
            );
        }
        incoming.message = Value::Object(stored);
        Ok(incoming)
    }

    /// The first data part that is a JSON object.
    pub(crate) fn data_object(&self) -> Option<&Map<String, Value>> {
        self.data.iter().find_map(Value::as_object)
    }

    /// The message text, lower-cased, for keyword routing.
    pub(crate) fn lower_text(&self) -> String {
        self.text.to_lowercase()
    }
}

fn object_or_empty(value: Option<&Value>) -> Value {
    match value {
        Some(Value::Object(map)) => Value::Object(map.clone()),
        _ => json!({}),
    }
}

fn non_blank(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

fn is_a2ui(part: &Value) -> bool {
    let media = ["mediaType", "mimeType"]
        .iter()
        .find_map(|key| part.get(*key).and_then(Value::as_str))
        .or_else(|| part.pointer("/metadata/mimeType").and_then(Value::as_str))
        .map(str::to_lowercase);
    matches!(media.as_deref(), Some(A2UI_MEDIA_TYPE | A2UI_LEGACY_MEDIA_TYPE))
}

/// The `action` (v0.9) or `userAction` (v0.8) objects of one A2UI data value.
fn a2ui_actions(data: &Value) -> Vec<Value> {
    let envelopes: Vec<&Value> = match data {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    envelopes
        .into_iter()
        .filter_map(|envelope| envelope.get("action").or_else(|| envelope.get("userAction")))
        .filter(|action| action.is_object())
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_data_and_a2ui_actions() {
        let params = json!({
            "message": {"messageId": "m1", "role": "ROLE_USER", "taskId": "t", "parts": [
                {"text": "hello"},
                {"data": {"replicas": 2}, "mediaType": "application/json"},
                {"data": {"version": "v0.9", "action": {"name": "confirm_deploy"}}, "mediaType": "application/a2ui+json"},
            ]},
            "configuration": {"returnImmediately": true},
        });
        let incoming = Incoming::from_params(&params).unwrap();
        assert_eq!(incoming.text, "hello");
        assert_eq!(incoming.data, vec![json!({"replicas": 2})]);
        assert_eq!(incoming.a2ui_actions[0]["name"], "confirm_deploy");
        assert_eq!(incoming.task_id.as_deref(), Some("t"));
        assert!(incoming.return_immediately);
    }

    #[test]
    fn a_message_without_parts_is_invalid() {
        let err = Incoming::from_params(&json!({"message": {"parts": []}})).unwrap_err();
        assert_eq!(err.code(), -32602);
    }
}
