//! A command body (`shared/spec/reference.md` §4.4): what `POST /api/agents/{id}/commands`,
//! `/messages` and `/stream` take (strict: unknown keys are refused), and its validation, which
//! reports every problem at once.

use app::a2a::Part;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Longest idempotency key, message id, skill id and tenant.
pub const MAX_KEY_CHARS: usize = 255;

/// The same words the browser's server functions answer with (`app::api::idempotency`).
pub const KEY_REQUIRED: &str = app::api::idempotency::KEY_REQUIRED;
pub const KEY_CONFLICT: &str = app::api::idempotency::KEY_CONFLICT;
pub const NEEDS_CONTENT: &str = "A message needs at least one content part.";
pub const CANCEL_NEEDS_TASK: &str = "taskId is required for cancellation.";

/// `config` of a command body (strict).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommandConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_immediately: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_output_modes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_task_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_metadata: Option<Map<String, Value>>,
}

/// The command body of `POST /api/agents/{id}/commands`, `/messages` and `/stream` (strict).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommandBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Value>>,
    /// The remote task id (follow-ups, cancels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<CommandConfig>,
}

/// `send` or `cancelTask`.
pub use crate::store::commands::CommandAction as Action;

/// A body that passed validation, with its parts decoded.
#[derive(Clone, Debug)]
pub struct ValidBody {
    pub action: Action,
    pub body: CommandBody,
    pub parts: Vec<Part>,
}

/// Validates a command body; every problem is reported, joined with `; `.
pub fn validate(body: CommandBody) -> Result<ValidBody, String> {
    let mut problems: Vec<String> = Vec::new();
    let action = match body.action.as_deref() {
        None => Action::Send,
        Some(word) => Action::parse(word).unwrap_or_else(|| {
            problems.push("action must be send or cancelTask.".into());
            Action::Send
        }),
    };
    let mut parts = Vec::new();
    if let Some(text) = body.text.as_deref().filter(|t| !t.trim().is_empty()) {
        parts.push(Part {
            media_type: Some("text/plain".into()),
            ..Part::text(text)
        });
    }
    for (i, value) in body.parts.iter().flatten().enumerate() {
        match value.as_object().map(|_| Part::decode(value)) {
            Some(Ok(part)) => parts.push(part),
            _ => problems.push(format!("parts[{i}] is not a valid A2A part.")),
        }
    }
    let bounded = |name: &str, value: &Option<String>, min: usize, problems: &mut Vec<String>| {
        if let Some(v) = value
            && (v.chars().count() < min || v.chars().count() > MAX_KEY_CHARS)
        {
            problems.push(format!("{name} must be {min}–{MAX_KEY_CHARS} characters."));
        }
    };
    bounded("tenant", &body.tenant, 0, &mut problems);
    bounded("messageId", &body.message_id, 1, &mut problems);
    bounded("skillId", &body.skill_id, 1, &mut problems);
    bounded("taskId", &body.task_id, 1, &mut problems);
    match action {
        Action::Send if parts.is_empty() => problems.push(NEEDS_CONTENT.into()),
        Action::CancelTask if body.task_id.is_none() => problems.push(CANCEL_NEEDS_TASK.into()),
        _ => {}
    }
    if problems.is_empty() {
        Ok(ValidBody { action, body, parts })
    } else {
        Err(problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(value: Value) -> Result<ValidBody, String> {
        validate(serde_json::from_value(value).map_err(|e| e.to_string())?)
    }

    #[test]
    fn a_send_needs_content_reference_4_4() {
        assert_eq!(body(json!({"text": "  "})).unwrap_err(), NEEDS_CONTENT);
        assert_eq!(body(json!({})).unwrap_err(), NEEDS_CONTENT);
        let ok = body(json!({"text": "hi", "parts": [{"data": {"a": 1}}]})).unwrap();
        assert_eq!(ok.parts.len(), 2);
        assert_eq!(ok.parts[0].media_type.as_deref(), Some("text/plain"));
    }

    #[test]
    fn cancel_needs_a_task_and_problems_are_joined() {
        assert_eq!(
            body(json!({"action": "cancelTask"})).unwrap_err(),
            CANCEL_NEEDS_TASK
        );
        let err = body(json!({"messageId": "", "parts": [7]})).unwrap_err();
        assert_eq!(
            err,
            "parts[0] is not a valid A2A part.; messageId must be 1–255 characters.; A message needs at least one content part."
        );
    }

    #[test]
    fn unknown_keys_are_refused() {
        assert!(serde_json::from_value::<CommandBody>(json!({"text": "x", "surprise": 1})).is_err());
        assert!(
            serde_json::from_value::<CommandBody>(json!({"text": "x", "config": {"blocking": true}}))
                .is_err()
        );
    }
}
