//! Encoders for what the console sends: an internal [`Message`] / [`SendParams`] and the
//! task-addressing params, as 1.0 or 0.3 JSON. The gateway sends exactly what this produces.
//! Unset optional fields are omitted (ProtoJSON reads a missing field as its default).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::message::Message;
use super::part::{Part, PartContent};
use super::push::PushConfig;
use super::version::ProtocolVersion;

/// Per-request options of SendMessage / SendStreamingMessage (spec A.4).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendConfiguration {
    /// Media types the console can show.
    #[serde(default)]
    pub accepted_output_modes: Vec<String>,
    /// Unset: server default; 0: no history; n: last n messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<u64>,
    /// Return as soon as the task exists (1.0 `returnImmediately`; 0.3 `blocking` = not this).
    #[serde(default)]
    pub return_immediately: bool,
    /// A push config to register with the send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push: Option<PushConfig>,
}

/// The params of SendMessage / SendStreamingMessage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SendParams {
    /// 1.0 tenant copied from the chosen interface; not sent in 0.3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The message to send (role user).
    pub message: Message,
    /// Options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendConfiguration>,
    /// Request-level metadata (e.g. skill routing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Encodes one part.
pub fn encode_part(part: &Part, version: ProtocolVersion) -> Value {
    match version {
        ProtocolVersion::V1_0 => {
            let mut obj = Map::new();
            let (key, value) = match &part.content {
                PartContent::Text(t) => ("text", json!(t)),
                PartContent::Url(u) => ("url", json!(u)),
                PartContent::Raw(r) => ("raw", json!(r)),
                PartContent::Data(d) => ("data", d.clone()),
            };
            obj.insert(key.into(), value);
            insert_opt(&mut obj, "mediaType", part.media_type.as_deref());
            insert_opt(&mut obj, "filename", part.filename.as_deref());
            if let Some(m) = &part.metadata {
                obj.insert("metadata".into(), Value::Object(m.clone()));
            }
            Value::Object(obj)
        }
        ProtocolVersion::V0_3 => encode_part_v03(part),
    }
}

fn encode_part_v03(part: &Part) -> Value {
    let mut obj = Map::new();
    let mut metadata = part.metadata.clone();
    match &part.content {
        PartContent::Text(t) => {
            obj.insert("kind".into(), json!("text"));
            obj.insert("text".into(), json!(t));
        }
        PartContent::Url(u) => {
            obj.insert("kind".into(), json!("file"));
            obj.insert("file".into(), file_v03(part, "uri", u));
        }
        PartContent::Raw(r) => {
            obj.insert("kind".into(), json!("file"));
            obj.insert("file".into(), file_v03(part, "bytes", r));
        }
        PartContent::Data(d) => {
            // 0.3 data parts must be objects, and have no mediaType: other values are wrapped
            // as {"value": …} and the media type travels as metadata.mimeType (how 0.3 A2UI
            // samples mark their parts, reference §1.4).
            let data = if d.is_object() {
                d.clone()
            } else {
                json!({ "value": d })
            };
            obj.insert("kind".into(), json!("data"));
            obj.insert("data".into(), data);
            if let Some(mt) = &part.media_type {
                let m = metadata.get_or_insert_with(Map::new);
                m.entry("mimeType").or_insert_with(|| json!(mt));
            }
        }
    }
    if let Some(m) = metadata {
        obj.insert("metadata".into(), Value::Object(m));
    }
    Value::Object(obj)
}

/// A 0.3 `file` object: `uri` or `bytes`, plus `mimeType` and `name`.
fn file_v03(part: &Part, key: &str, value: &str) -> Value {
    let mut file = Map::new();
    file.insert(key.into(), json!(value));
    insert_opt(&mut file, "mimeType", part.media_type.as_deref());
    insert_opt(&mut file, "name", part.filename.as_deref());
    Value::Object(file)
}

/// Encodes a message.
pub fn encode_message(message: &Message, version: ProtocolVersion) -> Value {
    let mut obj = Map::new();
    if version == ProtocolVersion::V0_3 {
        obj.insert("kind".into(), json!("message"));
    }
    obj.insert("messageId".into(), json!(message.message_id));
    let role = match version {
        ProtocolVersion::V1_0 => message.role.as_v1_str(),
        ProtocolVersion::V0_3 => message.role.as_v03_str(),
    };
    obj.insert("role".into(), json!(role));
    obj.insert(
        "parts".into(),
        Value::Array(message.parts.iter().map(|p| encode_part(p, version)).collect()),
    );
    insert_opt(&mut obj, "contextId", message.context_id.as_deref());
    insert_opt(&mut obj, "taskId", message.task_id.as_deref());
    if let Some(m) = &message.metadata {
        obj.insert("metadata".into(), Value::Object(m.clone()));
    }
    if !message.extensions.is_empty() {
        obj.insert("extensions".into(), json!(message.extensions));
    }
    if !message.reference_task_ids.is_empty() {
        obj.insert("referenceTaskIds".into(), json!(message.reference_task_ids));
    }
    Value::Object(obj)
}

/// Encodes SendMessage / SendStreamingMessage params (the JSON-RPC `params`, or the REST body).
pub fn encode_send_params(params: &SendParams, version: ProtocolVersion) -> Value {
    let mut obj = Map::new();
    if version == ProtocolVersion::V1_0 {
        insert_opt(
            &mut obj,
            "tenant",
            params.tenant.as_deref().filter(|t| !t.is_empty()),
        );
    }
    obj.insert("message".into(), encode_message(&params.message, version));
    if let Some(config) = &params.configuration {
        let mut c = Map::new();
        c.insert("acceptedOutputModes".into(), json!(config.accepted_output_modes));
        if let Some(n) = config.history_length {
            c.insert("historyLength".into(), json!(n));
        }
        match version {
            ProtocolVersion::V1_0 => {
                c.insert("returnImmediately".into(), json!(config.return_immediately));
                if let Some(push) = &config.push {
                    c.insert("taskPushNotificationConfig".into(), push.encode_inline(version));
                }
            }
            ProtocolVersion::V0_3 => {
                c.insert("blocking".into(), json!(!config.return_immediately));
                if let Some(push) = &config.push {
                    c.insert("pushNotificationConfig".into(), push.encode_inline(version));
                }
            }
        }
        obj.insert("configuration".into(), Value::Object(c));
    }
    if let Some(m) = &params.metadata {
        obj.insert("metadata".into(), Value::Object(m.clone()));
    }
    Value::Object(obj)
}

/// GetTask params: `{id, historyLength?, tenant?}` (tenant only in 1.0).
pub fn encode_get_task(
    task_id: &str,
    history_length: Option<u64>,
    tenant: &str,
    version: ProtocolVersion,
) -> Value {
    let mut obj = task_id_object(task_id, tenant, version);
    if let Some(n) = history_length {
        obj.insert("historyLength".into(), json!(n));
    }
    Value::Object(obj)
}

/// ListTasks params (1.0): `{tenant?, pageSize, pageToken?, includeArtifacts: true}`: a full
/// page of each task, history and artifacts, with no status or timestamp filter (a reconciliation
/// sweep must also see changes that only touched artifacts).
pub fn encode_list_tasks(tenant: &str, page_size: u32, page_token: Option<&str>) -> Value {
    let mut obj = Map::new();
    insert_opt(&mut obj, "tenant", Some(tenant).filter(|t| !t.is_empty()));
    obj.insert("pageSize".into(), json!(page_size));
    insert_opt(&mut obj, "pageToken", page_token.filter(|t| !t.is_empty()));
    obj.insert("includeArtifacts".into(), json!(true));
    Value::Object(obj)
}

/// CancelTask / SubscribeToTask params: `{id, tenant?}` (tenant only in 1.0).
pub fn encode_task_id(task_id: &str, tenant: &str, version: ProtocolVersion) -> Value {
    Value::Object(task_id_object(task_id, tenant, version))
}

/// Get/Delete push config params: 1.0 `{taskId, id, tenant?}`, 0.3 `{id, pushNotificationConfigId}`.
pub fn encode_push_config_ref(
    task_id: &str,
    config_id: &str,
    tenant: &str,
    version: ProtocolVersion,
) -> Value {
    match version {
        ProtocolVersion::V1_0 => {
            let mut obj = Map::new();
            insert_opt(&mut obj, "tenant", Some(tenant).filter(|t| !t.is_empty()));
            obj.insert("taskId".into(), json!(task_id));
            obj.insert("id".into(), json!(config_id));
            Value::Object(obj)
        }
        ProtocolVersion::V0_3 => json!({"id": task_id, "pushNotificationConfigId": config_id}),
    }
}

/// List push configs params: 1.0 `{taskId, tenant?}`, 0.3 `{id}`.
pub fn encode_push_config_list(task_id: &str, tenant: &str, version: ProtocolVersion) -> Value {
    match version {
        ProtocolVersion::V1_0 => {
            let mut obj = Map::new();
            insert_opt(&mut obj, "tenant", Some(tenant).filter(|t| !t.is_empty()));
            obj.insert("taskId".into(), json!(task_id));
            Value::Object(obj)
        }
        ProtocolVersion::V0_3 => json!({ "id": task_id }),
    }
}

fn task_id_object(task_id: &str, tenant: &str, version: ProtocolVersion) -> Map<String, Value> {
    let mut obj = Map::new();
    if version == ProtocolVersion::V1_0 && !tenant.is_empty() {
        obj.insert("tenant".into(), json!(tenant));
    }
    obj.insert("id".into(), json!(task_id));
    obj
}

fn insert_opt(obj: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(v) = value {
        obj.insert(key.into(), json!(v));
    }
}

/// A user message with one part of each kind, context, task and extension set: the fixture
/// of the encoders' tests (1.0, 0.3 JSON-RPC and 0.3 ProtoJSON).
#[cfg(test)]
pub(crate) fn sample_message() -> Message {
    let mut m = Message::user(
        "m-1",
        vec![
            Part {
                media_type: Some("text/plain".into()),
                ..Part::text("Hello")
            },
            Part::data(json!({"a": 1}), Some("application/json".into())),
            Part {
                content: PartContent::Url("https://f/x.pdf".into()),
                media_type: Some("application/pdf".into()),
                filename: Some("x.pdf".into()),
                metadata: None,
            },
            Part {
                content: PartContent::Raw("AAE=".into()),
                media_type: None,
                filename: None,
                metadata: None,
            },
        ],
    );
    m.context_id = Some("ctx".into());
    m.task_id = Some("task".into());
    m.extensions = vec!["urn:ext".into()];
    m
}

/// [`sample_message`] sent to tenant `acme` with every configuration field set: the fixture of
/// the send encoders' tests.
#[cfg(test)]
pub(crate) fn sample_send_params() -> SendParams {
    SendParams {
        tenant: Some("acme".into()),
        message: sample_message(),
        configuration: Some(SendConfiguration {
            accepted_output_modes: vec!["text/plain".into()],
            history_length: Some(0),
            return_immediately: true,
            push: Some(PushConfig {
                id: None,
                task_id: None,
                url: "https://c/hook".into(),
                token: Some("t".into()),
                authentication: Some(super::push::PushAuth {
                    scheme: "Bearer".into(),
                    credentials: None,
                }),
                tenant: None,
            }),
        }),
        metadata: Some(json!({"k": "v"}).as_object().cloned().expect("map")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_send_params() {
        assert_eq!(
            encode_send_params(&sample_send_params(), ProtocolVersion::V1_0),
            json!({
                "tenant": "acme",
                "message": {
                    "messageId": "m-1", "role": "ROLE_USER", "contextId": "ctx", "taskId": "task",
                    "extensions": ["urn:ext"],
                    "parts": [
                        {"text": "Hello", "mediaType": "text/plain"},
                        {"data": {"a": 1}, "mediaType": "application/json"},
                        {"url": "https://f/x.pdf", "mediaType": "application/pdf", "filename": "x.pdf"},
                        {"raw": "AAE="}
                    ]
                },
                "configuration": {
                    "acceptedOutputModes": ["text/plain"], "historyLength": 0, "returnImmediately": true,
                    "taskPushNotificationConfig": {"url": "https://c/hook", "token": "t", "authentication": {"scheme": "Bearer"}}
                },
                "metadata": {"k": "v"}
            })
        );
    }

    #[test]
    fn v03_send_params() {
        assert_eq!(
            encode_send_params(&sample_send_params(), ProtocolVersion::V0_3),
            json!({
                "message": {
                    "kind": "message", "messageId": "m-1", "role": "user", "contextId": "ctx", "taskId": "task",
                    "extensions": ["urn:ext"],
                    "parts": [
                        {"kind": "text", "text": "Hello"},
                        {"kind": "data", "data": {"a": 1}, "metadata": {"mimeType": "application/json"}},
                        {"kind": "file", "file": {"uri": "https://f/x.pdf", "mimeType": "application/pdf", "name": "x.pdf"}},
                        {"kind": "file", "file": {"bytes": "AAE="}}
                    ]
                },
                "configuration": {
                    "acceptedOutputModes": ["text/plain"], "historyLength": 0, "blocking": false,
                    "pushNotificationConfig": {"url": "https://c/hook", "token": "t", "authentication": {"schemes": ["Bearer"]}}
                },
                "metadata": {"k": "v"}
            })
        );
    }

    #[test]
    fn encoded_messages_decode_back() {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let back = Message::decode(&encode_message(&sample_message(), version)).expect("decodes");
            assert_eq!(back.parts[2], sample_message().parts[2], "{version}");
            assert_eq!(back.role, sample_message().role);
            assert_eq!(back.context_id, sample_message().context_id);
        }
        let v1 = Message::decode(&encode_message(&sample_message(), ProtocolVersion::V1_0)).expect("decodes");
        assert_eq!(v1, sample_message());
    }

    #[test]
    fn v03_non_object_data_is_wrapped() {
        let part = Part::data(json!([1, 2]), Some("application/a2ui+json".into()));
        assert_eq!(
            encode_part(&part, ProtocolVersion::V0_3),
            json!({"kind": "data", "data": {"value": [1, 2]}, "metadata": {"mimeType": "application/a2ui+json"}})
        );
    }

    #[test]
    fn task_addressing_params() {
        assert_eq!(
            encode_get_task("t", Some(5), "acme", ProtocolVersion::V1_0),
            json!({"tenant": "acme", "id": "t", "historyLength": 5})
        );
        assert_eq!(
            encode_get_task("t", None, "acme", ProtocolVersion::V0_3),
            json!({"id": "t"})
        );
        assert_eq!(encode_task_id("t", "", ProtocolVersion::V1_0), json!({"id": "t"}));
        assert_eq!(
            encode_push_config_ref("t", "c", "", ProtocolVersion::V1_0),
            json!({"taskId": "t", "id": "c"})
        );
        assert_eq!(
            encode_push_config_ref("t", "c", "x", ProtocolVersion::V0_3),
            json!({"id": "t", "pushNotificationConfigId": "c"})
        );
        assert_eq!(
            encode_push_config_list("t", "x", ProtocolVersion::V1_0),
            json!({"tenant": "x", "taskId": "t"})
        );
        assert_eq!(
            encode_push_config_list("t", "x", ProtocolVersion::V0_3),
            json!({"id": "t"})
        );
    }
}
