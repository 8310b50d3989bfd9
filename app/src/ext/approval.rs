//! Approval request extension (`shared/spec/reference.md` §1.2, §1.2.1, §4.8): parses an agent's
//! approval request part, validates proposed actions, computes action digests and request keys,
//! and holds the pure decision rules. No I/O, clock or ids: callers pass them in. An agent only
//! proposes; nothing here authorizes or sends anything.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ext::canonical::{js_trim, json_utf16_len, number_f64, utf16_len};

mod action;
mod decision;
pub use action::*;
pub use decision::*;

/// Largest approval part: its JSON serialisation in UTF-16 units (§1.2, 128 KiB).
pub const MAX_PART_CHARS: usize = 131_072;
/// Longest title, counted on the untrimmed string (§1.2).
pub const MAX_TITLE_CHARS: usize = 300;
/// Longest summary (§1.2).
pub const MAX_SUMMARY_CHARS: usize = 4_000;
/// Shortest agent-requested lifetime: 5 minutes (§1.2 `expiresInSeconds`).
pub const MIN_LIFETIME_MS: u64 = 300_000;
/// Longest agent-requested lifetime: 7 days (§1.2 `expiresInSeconds`).
pub const MAX_LIFETIME_MS: u64 = 604_800_000;
/// Lifetime when `expiresInSeconds` is absent: 24 hours (§1.2).
pub const DEFAULT_LIFETIME_MS: u64 = 86_400_000;
/// Action kind that sends a text reply (§1.2).
pub const KIND_SEND_MESSAGE: &str = ActionKind::SendMessage.as_str();
/// Action kind that sends form values as one JSON data part (§1.2).
pub const KIND_SEND_DATA: &str = ActionKind::SendData.as_str();

crate::stored_words! {
    /// What a proposed action does (§1.2 `action.kind`; stored in `decision_requests.kind`).
    pub enum ActionKind {
        /// Sends a text reply (and optional data).
        SendMessage = "send_message",
        /// Sends form values as one JSON data part.
        SendData = "send_data",
    }
}

/// Risk of a request (§1.2 `risk`, default `medium`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// `low`.
    Low,
    /// `medium` (the default).
    #[default]
    Medium,
    /// `high`.
    High,
}

impl Risk {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }

    /// Parses the exact wire spelling.
    pub fn parse(s: &str) -> Option<Risk> {
        match s {
            "low" => Some(Risk::Low),
            "medium" => Some(Risk::Medium),
            "high" => Some(Risk::High),
            _ => None,
        }
    }
}

/// A proposed action (§1.2 `action`); serialises to its wire shape (`{"kind":"send_message",…}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalAction {
    /// Send `text` as the reply; `data` travels in the message's `metadata.decision`.
    SendMessage {
        /// The reply text.
        text: String,
        /// Optional extra data (an object).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Map<String, Value>>,
    },
    /// Send `values` (answers to `form`) as one `application/json` data part.
    SendData {
        /// A structured-form definition (§1.1), kept as sent.
        form: Map<String, Value>,
        /// The answers; after [`validate_action`], the coerced submission.
        values: Map<String, Value>,
    },
}

impl ApprovalAction {
    /// The wire kind: `send_message` or `send_data`.
    pub fn kind(&self) -> ActionKind {
        match self {
            ApprovalAction::SendMessage { .. } => ActionKind::SendMessage,
            ApprovalAction::SendData { .. } => ActionKind::SendData,
        }
    }
}

/// A parsed agent approval request (§1.2 payload).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// Trimmed title.
    pub title: String,
    /// Summary (default empty).
    pub summary: String,
    /// Risk (default medium).
    pub risk: Risk,
    /// Lifetime in ms, clamped to [`MIN_LIFETIME_MS`]..=[`MAX_LIFETIME_MS`]; `expiresAt = now + this`.
    pub lifetime_ms: u64,
    /// The proposed action, shape-checked only (run [`validate_action`] before storing it).
    pub action: ApprovalAction,
}

/// Why an approval part was ignored (the part then stays ordinary message content).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalRejection {
    /// `data` is not an object.
    #[error("The approval request is not an object.")]
    NotAnObject,
    /// The part's JSON is over [`MAX_PART_CHARS`].
    #[error("The approval request is larger than 128 KiB.")]
    TooLarge,
    /// Title missing, not a string, blank or over 300 characters.
    #[error("The approval request needs a title of 1 to 300 characters.")]
    InvalidTitle,
    /// Summary not a string or over 4,000 characters.
    #[error("The approval summary must be text of at most 4000 characters.")]
    InvalidSummary,
    /// Risk not `low`, `medium` or `high`.
    #[error("The approval risk must be low, medium or high.")]
    InvalidRisk,
    /// `expiresInSeconds` not a number.
    #[error("expiresInSeconds must be a finite number.")]
    InvalidExpiry,
    /// Action missing or not one of the two shapes.
    #[error("The proposed action is not a send_message or send_data action.")]
    InvalidAction,
}

/// Parses an approval request part's `data` (§1.2). Shape check only; fields the part cannot set
/// (task, agent, assignee, policy, status…) are ignored.
pub fn parse_approval(data: &Value) -> Result<ApprovalRequest, ApprovalRejection> {
    let object = data.as_object().ok_or(ApprovalRejection::NotAnObject)?;
    if json_utf16_len(data) > MAX_PART_CHARS {
        return Err(ApprovalRejection::TooLarge);
    }
    let title = match object.get("title").and_then(Value::as_str) {
        Some(title) if !js_trim(title).is_empty() && utf16_len(title) <= MAX_TITLE_CHARS => js_trim(title),
        _ => return Err(ApprovalRejection::InvalidTitle),
    };
    let summary = match object.get("summary") {
        None => "",
        Some(Value::String(s)) if utf16_len(s) <= MAX_SUMMARY_CHARS => s.as_str(),
        Some(_) => return Err(ApprovalRejection::InvalidSummary),
    };
    let risk = match object.get("risk") {
        None => Risk::Medium,
        Some(risk) => risk
            .as_str()
            .and_then(Risk::parse)
            .ok_or(ApprovalRejection::InvalidRisk)?,
    };
    let lifetime_ms = match object.get("expiresInSeconds") {
        None => DEFAULT_LIFETIME_MS,
        Some(seconds) => lifetime_ms(seconds).ok_or(ApprovalRejection::InvalidExpiry)?,
    };
    let action = object
        .get("action")
        .and_then(parse_action)
        .ok_or(ApprovalRejection::InvalidAction)?;
    Ok(ApprovalRequest {
        title: title.to_owned(),
        summary: summary.to_owned(),
        risk,
        lifetime_ms,
        action,
    })
}

/// `floor(seconds × 1000)` clamped to [5 min, 7 days]; `None` unless a finite number.
fn lifetime_ms(seconds: &Value) -> Option<u64> {
    let seconds = seconds.as_number().map(number_f64).filter(|s| s.is_finite())?;
    let ms = (seconds * 1000.0).floor();
    Some(ms.clamp(MIN_LIFETIME_MS as f64, MAX_LIFETIME_MS as f64) as u64)
}

fn parse_action(action: &Value) -> Option<ApprovalAction> {
    let action = action.as_object()?;
    match action.get("kind").and_then(Value::as_str)? {
        KIND_SEND_MESSAGE => {
            let text = action.get("text")?.as_str()?.to_owned();
            let data = match action.get("data") {
                None => None,
                Some(data) => Some(data.as_object()?.clone()),
            };
            Some(ApprovalAction::SendMessage { text, data })
        }
        KIND_SEND_DATA => Some(ApprovalAction::SendData {
            form: action.get("form")?.as_object()?.clone(),
            values: action.get("values")?.as_object()?.clone(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
