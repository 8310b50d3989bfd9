//! Push notification configs: flat in 1.0 (`{taskId, id, url, token, authentication{scheme,
//! credentials}}`), nested in 0.3 (`{taskId, pushNotificationConfig{id, url, token,
//! authentication{schemes[], credentials}}}`), spec A.6.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::error::DecodeError;
use super::lenient::{array, as_object, index, join, opt_str, req_str};
use super::version::ProtocolVersion;

/// How the agent authenticates to the webhook.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushAuth {
    /// The `Authorization` scheme, e.g. `Bearer` (0.3: first of `schemes`).
    pub scheme: String,
    /// The credentials sent with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// A push notification config, normalised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushConfig {
    /// Config id (server-assigned when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The task it applies to (absent when passed inline in SendMessage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The webhook URL.
    pub url: String,
    /// Opaque token echoed by the agent (0.3 `X-A2A-Notification-Token`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Webhook authentication.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushAuth>,
    /// 1.0 tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
}

impl PushConfig {
    /// Decodes a config in either shape; `url` is required.
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let outer = as_object(value, path)?;
        let (inner, inner_path) = match outer.get("pushNotificationConfig") {
            Some(nested @ Value::Object(_)) => {
                let p = join(path, "pushNotificationConfig");
                (as_object(nested, &p)?, p)
            }
            _ => (outer, path.to_owned()),
        };
        let authentication = inner
            .get("authentication")
            .and_then(Value::as_object)
            .and_then(|a| {
                let scheme = opt_str(a, "scheme").or_else(|| {
                    array(a, "schemes")
                        .iter()
                        .filter_map(Value::as_str)
                        .find(|s| !s.is_empty())
                        .map(str::to_owned)
                })?;
                Some(PushAuth {
                    scheme,
                    credentials: opt_str(a, "credentials"),
                })
            });
        Ok(PushConfig {
            id: opt_str(inner, "id").or_else(|| opt_str(outer, "id")),
            task_id: opt_str(outer, "taskId"),
            url: req_str(inner, "url", &inner_path)?,
            token: opt_str(inner, "token"),
            authentication,
            tenant: opt_str(outer, "tenant"),
        })
    }

    /// The body of a create/set request (and of a get/list answer) in the given version.
    pub fn encode(&self, version: ProtocolVersion) -> Value {
        match version {
            ProtocolVersion::V1_0 => {
                let mut obj = self.inner(ProtocolVersion::V1_0);
                if let Some(task_id) = &self.task_id {
                    obj.insert("taskId".into(), json!(task_id));
                }
                if let Some(tenant) = &self.tenant {
                    obj.insert("tenant".into(), json!(tenant));
                }
                Value::Object(obj)
            }
            ProtocolVersion::V0_3 => {
                let mut obj = Map::new();
                if let Some(task_id) = &self.task_id {
                    obj.insert("taskId".into(), json!(task_id));
                }
                obj.insert(
                    "pushNotificationConfig".into(),
                    self.encode_inline(ProtocolVersion::V0_3),
                );
                Value::Object(obj)
            }
        }
    }

    /// The config as passed inline in SendMessage `configuration` (1.0
    /// `taskPushNotificationConfig`, 0.3 `pushNotificationConfig`).
    pub fn encode_inline(&self, version: ProtocolVersion) -> Value {
        Value::Object(self.inner(version))
    }

    /// The config object itself; only the authentication shape differs between versions
    /// (1.0 `scheme`, 0.3 `schemes: [...]`).
    fn inner(&self, version: ProtocolVersion) -> Map<String, Value> {
        let mut obj = Map::new();
        if let Some(id) = &self.id {
            obj.insert("id".into(), json!(id));
        }
        obj.insert("url".into(), json!(self.url));
        if let Some(token) = &self.token {
            obj.insert("token".into(), json!(token));
        }
        if let Some(auth) = &self.authentication {
            let mut a = Map::new();
            match version {
                ProtocolVersion::V1_0 => a.insert("scheme".into(), json!(auth.scheme)),
                ProtocolVersion::V0_3 => a.insert("schemes".into(), json!([auth.scheme])),
            };
            if let Some(c) = &auth.credentials {
                a.insert("credentials".into(), json!(c));
            }
            obj.insert("authentication".into(), Value::Object(a));
        }
        obj
    }
}

/// Decodes a list answer: a bare array (0.3) or `{"configs": […]}` (1.0).
pub fn decode_push_config_list(value: &Value) -> Result<Vec<PushConfig>, DecodeError> {
    let (items, path): (&[Value], &str) = match value {
        Value::Array(items) => (items, ""),
        Value::Object(obj) => (array(obj, "configs"), "configs"),
        _ => return Err(DecodeError::wrong_type("", "an array or an object")),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| PushConfig::decode_at(v, &index(path, i)))
        .collect()
}

/// The protocol version of a body an agent may push (security-and-durability §3.7): an A2A 1.0
/// `StreamResponse` with exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`, or
/// an explicit 0.3 Task snapshot (`kind: "task"`); `None` for anything else.
pub fn push_envelope(payload: &Value) -> Option<ProtocolVersion> {
    const MEMBERS: [&str; 4] = ["task", "message", "statusUpdate", "artifactUpdate"];
    let object = payload.as_object()?;
    match MEMBERS.iter().filter(|m| object.contains_key(**m)).count() {
        1 => Some(ProtocolVersion::V1_0),
        0 if object.get("kind").and_then(Value::as_str) == Some("task") => Some(ProtocolVersion::V0_3),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PushConfig {
        PushConfig {
            id: Some("p1".into()),
            task_id: Some("t1".into()),
            url: "https://console/hook".into(),
            token: Some("tok".into()),
            authentication: Some(PushAuth {
                scheme: "Bearer".into(),
                credentials: Some("secret".into()),
            }),
            tenant: None,
        }
    }

    #[test]
    fn flat_v1_round_trip() {
        let wire = sample().encode(ProtocolVersion::V1_0);
        assert_eq!(
            wire,
            json!({"id": "p1", "taskId": "t1", "url": "https://console/hook", "token": "tok",
                   "authentication": {"scheme": "Bearer", "credentials": "secret"}})
        );
        assert_eq!(PushConfig::decode(&wire).expect("decodes"), sample());
    }

    #[test]
    fn nested_v03_round_trip() {
        let wire = sample().encode(ProtocolVersion::V0_3);
        assert_eq!(
            wire,
            json!({"taskId": "t1", "pushNotificationConfig": {"id": "p1", "url": "https://console/hook", "token": "tok",
                   "authentication": {"schemes": ["Bearer"], "credentials": "secret"}}})
        );
        assert_eq!(PushConfig::decode(&wire).expect("decodes"), sample());
    }

    #[test]
    fn lists_and_errors() {
        let list = decode_push_config_list(
            &json!({"configs": [sample().encode(ProtocolVersion::V1_0)], "nextPageToken": ""}),
        )
        .expect("list");
        assert_eq!(list, vec![sample()]);
        let list = decode_push_config_list(&json!([sample().encode(ProtocolVersion::V0_3)])).expect("list");
        assert_eq!(list, vec![sample()]);
        assert_eq!(
            decode_push_config_list(&json!([{"taskId": "t", "pushNotificationConfig": {"id": "x"}}])),
            Err(DecodeError::missing("[0].pushNotificationConfig.url"))
        );
        assert_eq!(
            PushConfig::decode(&json!({"taskId": "t"})),
            Err(DecodeError::missing("url"))
        );
    }

    #[test]
    fn a_push_body_is_one_stream_response_or_a_0_3_task() {
        assert_eq!(
            push_envelope(&json!({"statusUpdate": {}})),
            Some(ProtocolVersion::V1_0)
        );
        assert_eq!(push_envelope(&json!({"task": {}})), Some(ProtocolVersion::V1_0));
        assert_eq!(
            push_envelope(&json!({"kind": "task", "id": "t"})),
            Some(ProtocolVersion::V0_3)
        );
        assert_eq!(push_envelope(&json!({"task": {}, "message": {}})), None);
        assert_eq!(push_envelope(&json!({"kind": "status-update"})), None);
        assert_eq!(push_envelope(&json!({})), None);
        assert_eq!(push_envelope(&json!([1])), None);
    }
}
