//! Messages (one turn of user or agent content) and their role, for both versions.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DecodeError;
use super::lenient::{as_object, opt_object, opt_str, req_str, str_list};
use super::part::{Part, decode_parts};

/// Who sent a message. `ROLE_USER` / `user` is the user; anything else is the agent
/// (reference §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// The client side (this console, or the person using it).
    User,
    /// The remote agent.
    Agent,
}

impl Role {
    /// Reads either spelling; unknown or missing roles are the agent's.
    pub fn parse(role: Option<&str>) -> Self {
        match role.map(str::trim) {
            Some(r) if r.eq_ignore_ascii_case("ROLE_USER") || r.eq_ignore_ascii_case("user") => Role::User,
            _ => Role::Agent,
        }
    }

    /// The 1.0 spelling (`ROLE_USER` / `ROLE_AGENT`).
    pub fn as_v1_str(self) -> &'static str {
        match self {
            Role::User => "ROLE_USER",
            Role::Agent => "ROLE_AGENT",
        }
    }

    /// The 0.3 spelling (`user` / `agent`).
    pub fn as_v03_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Agent => "agent",
        }
    }
}

/// One normalised message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Sender-chosen id; required, and the key for de-duplication.
    pub message_id: String,
    /// Who sent it.
    pub role: Role,
    /// The content, in order.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Conversation id; `None` when absent or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The task this message belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Message metadata; extension data is usually keyed by extension URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// URIs of the extensions this message uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Other tasks this message refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<String>,
}

impl Message {
    /// A user message with the given id and parts and nothing else set.
    pub fn user(message_id: impl Into<String>, parts: Vec<Part>) -> Self {
        Message {
            message_id: message_id.into(),
            role: Role::User,
            parts,
            context_id: None,
            task_id: None,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
        }
    }

    /// Decodes a message of either version (the 0.3 `kind` is ignored).
    pub fn decode(value: &Value) -> Result<Self, DecodeError> {
        Self::decode_at(value, "")
    }

    pub(crate) fn decode_at(value: &Value, path: &str) -> Result<Self, DecodeError> {
        let obj = as_object(value, path)?;
        let message_id = req_str(obj, "messageId", path)?;
        let parts = decode_parts(obj, path)?;
        Ok(Message {
            message_id,
            role: Role::parse(obj.get("role").and_then(Value::as_str)),
            parts,
            context_id: opt_str(obj, "contextId"),
            task_id: opt_str(obj, "taskId"),
            metadata: opt_object(obj, "metadata"),
            extensions: str_list(obj, "extensions"),
            reference_task_ids: str_list(obj, "referenceTaskIds"),
        })
    }

    /// All text parts joined with newlines.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(Part::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn roles_in_both_spellings() {
        assert_eq!(Role::parse(Some("ROLE_USER")), Role::User);
        assert_eq!(Role::parse(Some("user")), Role::User);
        assert_eq!(Role::parse(Some("ROLE_AGENT")), Role::Agent);
        assert_eq!(Role::parse(Some("agent")), Role::Agent);
        assert_eq!(Role::parse(Some("system")), Role::Agent);
        assert_eq!(Role::parse(None), Role::Agent);
    }

    #[test]
    fn v1_message() {
        let m = Message::decode(&json!({
            "messageId": "m1", "role": "ROLE_USER", "contextId": "c1", "taskId": "",
            "parts": [{"text": "hello"}, {"data": {"n": 2.0}}],
            "extensions": ["urn:x"], "referenceTaskIds": ["t0"], "unknownField": true
        }))
        .expect("message");
        assert_eq!(m.message_id, "m1");
        assert_eq!(m.role, Role::User);
        assert_eq!(m.context_id.as_deref(), Some("c1"));
        assert_eq!(m.task_id, None);
        assert_eq!(m.parts.len(), 2);
        assert_eq!(m.text(), "hello");
        assert_eq!(m.extensions, vec!["urn:x".to_owned()]);
        assert_eq!(m.reference_task_ids, vec!["t0".to_owned()]);
    }

    #[test]
    fn v03_message() {
        let m = Message::decode(&json!({
            "kind": "message", "messageId": "m2", "role": "agent",
            "parts": [{"kind": "text", "text": "a"}, {"kind": "text", "text": "b"}]
        }))
        .expect("message");
        assert_eq!(m.role, Role::Agent);
        assert_eq!(m.text(), "a\nb");
    }

    #[test]
    fn missing_id_and_bad_part_are_errors() {
        assert_eq!(
            Message::decode(&json!({"role": "user", "parts": []})),
            Err(DecodeError::missing("messageId"))
        );
        assert_eq!(
            Message::decode_at(&json!({"messageId": "m", "parts": [1]}), "status.message"),
            Err(DecodeError::wrong_type("status.message.parts[0]", "an object"))
        );
    }
}
