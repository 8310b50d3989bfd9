//! Stream responses (SSE `data:` payloads, send results, push webhook bodies) of either
//! version, JSON-RPC-wrapped or bare, decoded into one [`StreamEvent`] with the raw JSON kept.
//!
//! 1.0 uses a wrapper with exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`
//! (older `taskStatusUpdate` / `taskArtifactUpdate` are read too); 0.3 puts the object itself
//! in `result` with a `kind` and a `final` flag on status updates (spec A.5).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::artifact::Artifact;
use super::error::DecodeError;
use super::jsonrpc::{JsonRpcError, JsonRpcResponse, RequestId, is_jsonrpc_envelope};
use super::lenient::{as_object, join, opt_bool, opt_object, opt_str, present, req_str};
use super::message::Message;
use super::task::{Task, TaskStatus};
use super::version::ProtocolVersion;

/// A status change of a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdate {
    /// The task that changed.
    pub task_id: String,
    /// Its conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The new status.
    pub status: TaskStatus,
    /// 0.3 only: `final: true` marks the last event of the stream. Removed in 1.0, where the
    /// stream's closure is the end signal.
    #[serde(default, rename = "final", skip_serializing_if = "Option::is_none")]
    pub final_flag: Option<bool>,
    /// Event metadata (sideband events may ride here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// A new or appended artifact chunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdate {
    /// The task the artifact belongs to.
    pub task_id: String,
    /// Its conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The artifact (or chunk of it).
    pub artifact: Artifact,
    /// Concatenate these parts onto the artifact with the same id instead of replacing it.
    #[serde(default)]
    pub append: bool,
    /// This chunk completes the artifact.
    #[serde(default)]
    pub last_chunk: bool,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// One stream response, normalised. Serialises with the 1.0 wrapper member names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamEvent {
    /// A task snapshot.
    Task(Task),
    /// A direct message (a message-only reply, or a message inside a stream).
    Message(Message),
    /// A status change.
    StatusUpdate(TaskStatusUpdate),
    /// An artifact (chunk).
    ArtifactUpdate(TaskArtifactUpdate),
}

impl StreamEvent {
    /// The task this event is about; `None` for a message without `taskId`.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            StreamEvent::Task(t) => Some(&t.id),
            StreamEvent::Message(m) => m.task_id.as_deref(),
            StreamEvent::StatusUpdate(u) => Some(&u.task_id),
            StreamEvent::ArtifactUpdate(u) => Some(&u.task_id),
        }
    }

    /// The context this event names, if any.
    pub fn context_id(&self) -> Option<&str> {
        match self {
            StreamEvent::Task(t) => t.context_id.as_deref(),
            StreamEvent::Message(m) => m.context_id.as_deref(),
            StreamEvent::StatusUpdate(u) => u.context_id.as_deref(),
            StreamEvent::ArtifactUpdate(u) => u.context_id.as_deref(),
        }
    }

    /// True when no further events follow on this stream: a 0.3 `final: true`, a status that
    /// is terminal or paused, a task snapshot in such a state, or a message-only reply
    /// (a message without a task id).
    pub fn closes_stream(&self) -> bool {
        match self {
            StreamEvent::Task(t) => t.status.state.ends_stream(),
            StreamEvent::Message(m) => m.task_id.is_none(),
            StreamEvent::StatusUpdate(u) => u.final_flag == Some(true) || u.status.state.ends_stream(),
            StreamEvent::ArtifactUpdate(_) => false,
        }
    }
}

/// A decoded stream response with what came with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecodedEvent {
    /// The normalised event.
    pub event: StreamEvent,
    /// The shape it came in: the 1.0 wrapper, a 0.3 `kind`, or `None` when neither was
    /// present and the kind was inferred from the members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    /// The JSON-RPC id when the event arrived in a JSON-RPC envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_id: Option<RequestId>,
    /// The stream response exactly as received (the JSON-RPC `result` when wrapped).
    pub raw: Value,
}

/// Why a stream payload did not yield an event.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EventError {
    /// The agent sent a JSON-RPC error instead of a result; normal operation, handled by
    /// the caller.
    #[error("{error}")]
    Rpc {
        /// The echoed request id.
        id: Option<RequestId>,
        /// The error object (boxed: it carries arbitrary `data`, and the `Ok` path stays small).
        error: Box<JsonRpcError>,
    },
    /// The payload could not be decoded.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// 1.0 wrapper members and older aliases, in the order they are looked for.
const WRAPPER_KEYS: [&str; 6] = [
    "task",
    "message",
    "statusUpdate",
    "artifactUpdate",
    "taskStatusUpdate",
    "taskArtifactUpdate",
];

/// Decodes one stream response, send result or push body of either version, wrapped in a
/// JSON-RPC response or bare.
pub fn decode_stream_event(value: &Value) -> Result<DecodedEvent, EventError> {
    let obj = as_object(value, "")?;
    if is_jsonrpc_envelope(obj) {
        let response = JsonRpcResponse::decode(value)?;
        return match response.outcome {
            Ok(result) => {
                let mut decoded = decode_payload(&result, "result")?;
                decoded.rpc_id = response.id;
                Ok(decoded)
            }
            Err(error) => Err(EventError::Rpc {
                id: response.id,
                error: Box::new(error),
            }),
        };
    }
    Ok(decode_payload(value, "")?)
}

/// [`decode_stream_event`] over raw bytes (an SSE `data:` line or a webhook body).
pub fn decode_stream_event_bytes(bytes: &[u8]) -> Result<DecodedEvent, EventError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| DecodeError::NotJson(e.to_string()))?;
    decode_stream_event(&value)
}

fn decode_payload(value: &Value, path: &str) -> Result<DecodedEvent, DecodeError> {
    let obj = as_object(value, path)?;
    let (event, version) =
        if let Some((key, inner)) = WRAPPER_KEYS.iter().find_map(|k| present(obj, k).map(|v| (*k, v))) {
            let at = join(path, key);
            let event = match key {
                "task" => StreamEvent::Task(Task::decode_at(inner, &at)?),
                "message" => StreamEvent::Message(Message::decode_at(inner, &at)?),
                "statusUpdate" | "taskStatusUpdate" => StreamEvent::StatusUpdate(status_update(inner, &at)?),
                _ => StreamEvent::ArtifactUpdate(artifact_update(inner, &at)?),
            };
            (event, Some(ProtocolVersion::V1_0))
        } else if let Some(kind) = obj.get("kind").and_then(Value::as_str) {
            let event = match kind {
                "task" => StreamEvent::Task(Task::decode_at(value, path)?),
                "message" => StreamEvent::Message(Message::decode_at(value, path)?),
                "status-update" => StreamEvent::StatusUpdate(status_update(value, path)?),
                "artifact-update" => StreamEvent::ArtifactUpdate(artifact_update(value, path)?),
                _ => {
                    return Err(DecodeError::unknown_shape(
                        join(path, "kind"),
                        "an unknown stream response kind",
                    ));
                }
            };
            (event, Some(ProtocolVersion::V0_3))
        } else if obj.contains_key("messageId") {
            (StreamEvent::Message(Message::decode_at(value, path)?), None)
        } else if obj.contains_key("status") && obj.contains_key("id") {
            (StreamEvent::Task(Task::decode_at(value, path)?), None)
        } else if obj.contains_key("status") && obj.contains_key("taskId") {
            (StreamEvent::StatusUpdate(status_update(value, path)?), None)
        } else if obj.contains_key("artifact") && obj.contains_key("taskId") {
            (StreamEvent::ArtifactUpdate(artifact_update(value, path)?), None)
        } else {
            return Err(DecodeError::unknown_shape(
                path,
                "a stream response needs `task`, `message`, `statusUpdate`, `artifactUpdate` or a `kind`",
            ));
        };
    Ok(DecodedEvent {
        event,
        version,
        rpc_id: None,
        raw: value.clone(),
    })
}

fn status_update(value: &Value, path: &str) -> Result<TaskStatusUpdate, DecodeError> {
    let obj = as_object(value, path)?;
    let task_id = req_str(obj, "taskId", path)?;
    let status_path = join(path, "status");
    let status = match present(obj, "status") {
        Some(s) => TaskStatus::decode_at(s, &status_path)?,
        None => return Err(DecodeError::missing(status_path)),
    };
    Ok(TaskStatusUpdate {
        task_id,
        context_id: opt_str(obj, "contextId"),
        status,
        final_flag: opt_bool(obj, "final"),
        metadata: opt_object(obj, "metadata"),
    })
}

fn artifact_update(value: &Value, path: &str) -> Result<TaskArtifactUpdate, DecodeError> {
    let obj = as_object(value, path)?;
    let task_id = req_str(obj, "taskId", path)?;
    let artifact_path = join(path, "artifact");
    let artifact = match present(obj, "artifact") {
        Some(a) => Artifact::decode_at(a, &artifact_path)?,
        None => return Err(DecodeError::missing(artifact_path)),
    };
    Ok(TaskArtifactUpdate {
        task_id,
        context_id: opt_str(obj, "contextId"),
        artifact,
        append: opt_bool(obj, "append").unwrap_or(false),
        last_chunk: opt_bool(obj, "lastChunk").unwrap_or(false),
        metadata: opt_object(obj, "metadata"),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::a2a::error_code::ErrorCode;
    use crate::a2a::task::TaskState;
    use crate::a2a::test_json::arb_json;

    const KEYS: &[&str] = &[
        "jsonrpc",
        "id",
        "result",
        "error",
        "code",
        "task",
        "message",
        "statusUpdate",
        "artifactUpdate",
        "kind",
        "status-update",
        "artifact-update",
        "status",
        "state",
        "taskId",
        "contextId",
        "messageId",
        "parts",
        "text",
        "artifact",
        "artifactId",
        "final",
        "append",
        "lastChunk",
        "file",
        "uri",
        "bytes",
        "data",
        "role",
        "history",
        "artifacts",
        "TASK_STATE_WORKING",
        "completed",
    ];

    #[test]
    fn v1_wrapper_events_in_jsonrpc() {
        let d = decode_stream_event(&json!({"jsonrpc": "2.0", "id": 3, "result": {
            "statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}}))
        .expect("decodes");
        assert_eq!(d.version, Some(ProtocolVersion::V1_0));
        assert_eq!(d.rpc_id, Some(RequestId::Number(3)));
        assert_eq!(
            d.raw,
            json!({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})
        );
        let StreamEvent::StatusUpdate(u) = &d.event else {
            panic!("expected status update, got {:?}", d.event)
        };
        assert_eq!(u.status.state, TaskState::Working);
        assert_eq!(u.final_flag, None);
        assert!(!d.event.closes_stream());

        let d =
            decode_stream_event(&json!({"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}}))
                .expect("bare REST event");
        assert!(matches!(d.event, StreamEvent::Task(ref t) if t.id == "t"));
        assert_eq!(d.rpc_id, None);

        let d = decode_stream_event(&json!({"artifactUpdate": {"taskId": "t",
            "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}, "append": true, "lastChunk": false}}))
        .expect("artifact");
        let StreamEvent::ArtifactUpdate(u) = d.event else {
            panic!("expected artifact update")
        };
        assert!(u.append && !u.last_chunk);
        assert_eq!(u.artifact.artifact_id, "a");

        let d = decode_stream_event(
            &json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}}),
        )
        .expect("message");
        assert!(d.event.closes_stream(), "a message-only reply ends the stream");
        assert_eq!(d.event.task_id(), None);
    }

    #[test]
    fn v1_status_update_closing_states() {
        for (state, closes) in [
            ("TASK_STATE_INPUT_REQUIRED", true),
            ("TASK_STATE_COMPLETED", true),
            ("TASK_STATE_WORKING", false),
        ] {
            let d =
                decode_stream_event(&json!({"statusUpdate": {"taskId": "t", "status": {"state": state}}}))
                    .expect("ok");
            assert_eq!(d.event.closes_stream(), closes, "{state}");
        }
    }

    #[test]
    fn older_wrapper_aliases() {
        let d =
            decode_stream_event(&json!({"taskStatusUpdate": {"taskId": "t", "status": {"state": "failed"}}}))
                .expect("ok");
        assert!(matches!(d.event, StreamEvent::StatusUpdate(ref u) if u.status.state == TaskState::Failed));
        let d = decode_stream_event(
            &json!({"taskArtifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a"}}}),
        )
        .expect("ok");
        assert!(matches!(d.event, StreamEvent::ArtifactUpdate(_)));
    }

    #[test]
    fn v03_kind_events_and_final_flag() {
        let d = decode_stream_event(&json!({"jsonrpc": "2.0", "id": "r1", "result": {
            "kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": true}}))
        .expect("decodes");
        assert_eq!(d.version, Some(ProtocolVersion::V0_3));
        let StreamEvent::StatusUpdate(u) = &d.event else {
            panic!("expected status update")
        };
        assert_eq!(u.final_flag, Some(true));
        assert!(
            d.event.closes_stream(),
            "final: true closes even in a working state"
        );

        let d = decode_stream_event(&json!({"jsonrpc": "2.0", "id": "r1", "result": {
            "kind": "status-update", "taskId": "t", "status": {"state": "working"}, "final": false}}))
        .expect("decodes");
        assert!(!d.event.closes_stream());

        let d = decode_stream_event(&json!({"kind": "artifact-update", "taskId": "t",
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]}, "lastChunk": true}))
        .expect("decodes");
        assert!(matches!(d.event, StreamEvent::ArtifactUpdate(ref u) if u.last_chunk && !u.append));

        let d = decode_stream_event(
            &json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "submitted"}}),
        )
        .expect("decodes");
        assert!(matches!(d.event, StreamEvent::Task(_)));

        let d = decode_stream_event(
            &json!({"kind": "message", "messageId": "m", "role": "agent", "taskId": "t",
            "parts": [{"kind": "text", "text": "hi"}]}),
        )
        .expect("decodes");
        assert!(matches!(d.event, StreamEvent::Message(ref m) if m.text() == "hi"));
        assert!(!d.event.closes_stream());
    }

    #[test]
    fn untagged_payloads_are_inferred() {
        let d = decode_stream_event(&json!({"id": "t", "status": {"state": "completed"}})).expect("task");
        assert_eq!(d.version, None);
        assert!(matches!(d.event, StreamEvent::Task(_)));
        let d = decode_stream_event(&json!({"taskId": "t", "status": {"state": "working"}})).expect("status");
        assert!(matches!(d.event, StreamEvent::StatusUpdate(_)));
    }

    #[test]
    fn python_float_and_default_quirks() {
        let d = decode_stream_event_bytes(
            br#"{"jsonrpc":"2.0","id":1.0,"result":{"artifactUpdate":{"taskId":"t","contextId":"","artifact":{"artifactId":"a","parts":[{"data":{"count":2.0},"mediaType":"application/json","filename":""}],"extensions":[]},"append":false,"lastChunk":true,"metadata":{}}}}"#,
        )
        .expect("decodes");
        assert_eq!(d.rpc_id, Some(RequestId::Number(1)));
        let StreamEvent::ArtifactUpdate(u) = d.event else {
            panic!("expected artifact update")
        };
        assert_eq!(u.context_id, None);
        assert_eq!(u.metadata, None);
        assert_eq!(u.artifact.parts[0].filename, None);
    }

    #[test]
    fn errors() {
        let err = decode_stream_event(
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32004, "message": "no"}}),
        )
        .expect_err("rpc error");
        let EventError::Rpc { id, error } = err else {
            panic!("expected rpc error")
        };
        assert_eq!(id, Some(RequestId::Number(1)));
        assert_eq!(error.kind(), ErrorCode::UnsupportedOperation);

        assert_eq!(
            decode_stream_event(
                &json!({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": {"taskId": "t"}}})
            ),
            Err(EventError::Decode(DecodeError::missing(
                "result.statusUpdate.status"
            )))
        );
        assert_eq!(
            decode_stream_event(&json!({"kind": "bogus"})),
            Err(EventError::Decode(DecodeError::unknown_shape(
                "kind",
                "an unknown stream response kind"
            )))
        );
        assert!(matches!(
            decode_stream_event(&json!({})),
            Err(EventError::Decode(DecodeError::UnknownShape { .. }))
        ));
        assert!(matches!(
            decode_stream_event(&json!(null)),
            Err(EventError::Decode(DecodeError::WrongType { .. }))
        ));
        assert!(matches!(
            decode_stream_event_bytes(b"data: {"),
            Err(EventError::Decode(DecodeError::NotJson(_)))
        ));
    }

    #[test]
    fn serialises_with_wrapper_names() {
        let d = decode_stream_event(
            &json!({"kind": "status-update", "taskId": "t", "status": {"state": "working"}, "final": true}),
        )
        .expect("decodes");
        let v = serde_json::to_value(&d.event).expect("ser");
        assert_eq!(
            v,
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}, "final": true}})
        );
        let back: StreamEvent = serde_json::from_value(v).expect("de");
        assert_eq!(back, d.event);
    }

    proptest! {
        #[test]
        fn never_panics_on_values(v in arb_json(KEYS)) {
            let _ = decode_stream_event(&v);
            let wrapped = json!({"jsonrpc": "2.0", "id": 1, "result": v.clone()});
            let _ = decode_stream_event(&wrapped);
            let _ = decode_stream_event(&json!({"statusUpdate": v.clone()}));
            let _ = decode_stream_event(&json!({"kind": "artifact-update", "taskId": "t", "artifact": v}));
        }

        #[test]
        fn never_panics_on_bytes(s in ".{0,300}") {
            let _ = decode_stream_event_bytes(s.as_bytes());
        }
    }
}
