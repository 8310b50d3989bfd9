//! Pure decision rules for approval requests (reference.md §1.2 "Decisions", §4.8;
//! security-and-durability.md §4.1): outcomes, request statuses, rationale and edit checks, and
//! the exact message sent to the agent on approval. No storage, clock or authorization here.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{ActionError, ApprovalAction, action_digest, validate_action};
use crate::ext::canonical::{canonical_json, js_trim, utf16_len};
use crate::ext::form::REPLY_MEDIA_TYPE;

/// Longest rationale (§4.8: required except for approve, ≤ 4000).
pub const MAX_RATIONALE_CHARS: usize = 4_000;
/// Media type of the text part of an approved `send_message` (§1.2).
pub const TEXT_MEDIA_TYPE: &str = "text/plain";

crate::stored_words! {
    /// A reviewer's decision outcome (§4.8; stored in `decisions.outcome`), declared in the order
    /// of the default policy's `allowedOutcomes` (§1.2 "Effect"): `Outcome::ALL` is that list.
    pub enum Outcome {
        /// Approve the current revision.
        Approve = "approve",
        /// Reject; nothing is sent.
        Reject = "reject",
        /// Approve an edited revision in the same step.
        Edit = "edit",
        /// Send back to the proposer; nothing is sent.
        RequestChanges = "request_changes",
        /// Reassign without closing.
        Delegate = "delegate",
    }
}

impl Outcome {
    /// The request status this outcome leads to; `None` for `delegate` (status unchanged).
    pub fn resulting_status(self) -> Option<RequestStatus> {
        match self {
            Outcome::Approve | Outcome::Edit => Some(RequestStatus::Approved),
            Outcome::Reject => Some(RequestStatus::Rejected),
            Outcome::RequestChanges => Some(RequestStatus::ChangesRequested),
            Outcome::Delegate => None,
        }
    }

    /// Whether this outcome sends the approved action to the agent (approve and edit only).
    pub fn sends_to_agent(self) -> bool {
        matches!(self, Outcome::Approve | Outcome::Edit)
    }
}

crate::stored_words! {
    /// Status of a decision request (§4.8 `GET /api/decisions?status=`;
    /// `decision_requests.status`), in the spec's order.
    pub enum RequestStatus {
        /// Waiting for a decision.
        Pending = "pending",
        /// Approved (possibly after an edit); the action was sent.
        Approved = "approved",
        /// Rejected.
        Rejected = "rejected",
        /// Sent back for a new revision; still open.
        ChangesRequested = "changes_requested",
        /// Not decided before `expiresAt`.
        Expired = "expired",
        /// Replaced by a newer request, or the task finished.
        Superseded = "superseded",
    }
}

impl RequestStatus {
    /// The statuses in which a request can still be decided.
    pub const OPEN: [RequestStatus; 2] = [RequestStatus::Pending, RequestStatus::ChangesRequested];

    /// Open requests (`pending`, `changes_requested`) can still be decided, superseded or expire.
    pub fn is_open(self) -> bool {
        RequestStatus::OPEN.contains(&self)
    }
}

/// Why a decision input is refused. `Display` gives the wire message; [`DecisionError::status`]
/// the HTTP status.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    /// Rationale missing/blank for a non-approve outcome, or over 4000 characters.
    #[error("A rationale is required for this decision.")]
    RationaleRequired,
    /// The edit changes the action kind.
    #[error("An edit cannot change the kind of action.")]
    KindChanged,
    /// The edit of a `send_data` action changes the form.
    #[error("An edit can change the values but not the form they answer.")]
    FormChanged,
    /// The edit has the same digest as the current revision.
    #[error("The edit does not change the proposal.")]
    Unchanged,
    /// The edited action fails [`validate_action`].
    #[error("{0}")]
    InvalidEdit(ActionError),
}

impl DecisionError {
    /// HTTP status the API answers with (§4.8): 400 for bad input, 422 for a disallowed edit.
    pub fn status(&self) -> u16 {
        match self {
            DecisionError::RationaleRequired | DecisionError::InvalidEdit(_) => 400,
            DecisionError::KindChanged | DecisionError::FormChanged | DecisionError::Unchanged => 422,
        }
    }
}

/// Rationale rule (§4.8): at most 4000 characters; required (non-blank) except for `approve`.
pub fn check_rationale(outcome: Outcome, rationale: Option<&str>) -> Result<(), DecisionError> {
    let too_long = rationale.is_some_and(|r| utf16_len(r) > MAX_RATIONALE_CHARS);
    let blank = rationale.is_none_or(|r| js_trim(r).is_empty());
    if too_long || (outcome != Outcome::Approve && blank) {
        return Err(DecisionError::RationaleRequired);
    }
    Ok(())
}

/// Edit rule (§1.2, §4.8): the edited action must validate, keep the kind, keep a `send_data` form
/// unchanged, and differ from `current`. Returns the validated (coerced) edited action.
pub fn check_edit(
    current: &ApprovalAction,
    edited: &ApprovalAction,
) -> Result<ApprovalAction, DecisionError> {
    let edited = validate_action(edited).map_err(DecisionError::InvalidEdit)?;
    match (current, &edited) {
        (ApprovalAction::SendMessage { .. }, ApprovalAction::SendMessage { .. }) => {}
        (ApprovalAction::SendData { form: before, .. }, ApprovalAction::SendData { form: after, .. }) => {
            if canonical_json(&Value::Object(before.clone())) != canonical_json(&Value::Object(after.clone()))
            {
                return Err(DecisionError::FormChanged);
            }
        }
        _ => return Err(DecisionError::KindChanged),
    }
    if action_digest(&edited) == action_digest(current) {
        return Err(DecisionError::Unchanged);
    }
    Ok(edited)
}

/// The message sent to the agent when a decision approves an action (§1.2 "What goes back").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovedMessage {
    /// A2A `messageId`: `decision-<decisionId>`.
    pub message_id: String,
    /// The message parts, exactly as §1.2.
    pub parts: Value,
    /// Message metadata: `approval` (always) and `decision` (send_message data, when present).
    pub metadata: Map<String, Value>,
}

/// Command idempotency key of an approved decision: `decision:<decisionId>` (§1.2).
pub fn decision_command_key(decision_id: &str) -> String {
    format!("decision:{decision_id}")
}

/// Builds the approved message: `send_message` → one `text/plain` part (+ `metadata.decision` =
/// data); `send_data` → one `application/json` data part holding the values; `metadata.approval` =
/// `{requestId, decisionId, revision, revisionDigest}`.
pub fn approved_message(
    action: &ApprovalAction,
    request_id: &str,
    decision_id: &str,
    revision: u32,
    digest: &str,
) -> ApprovedMessage {
    let mut metadata = Map::new();
    metadata.insert(
        "approval".to_owned(),
        json!({ "requestId": request_id, "decisionId": decision_id, "revision": revision, "revisionDigest": digest }),
    );
    let parts = match action {
        ApprovalAction::SendMessage { text, data } => {
            if let Some(data) = data {
                metadata.insert("decision".to_owned(), Value::Object(data.clone()));
            }
            json!([{ "text": text, "mediaType": TEXT_MEDIA_TYPE }])
        }
        ApprovalAction::SendData { values, .. } => json!([{ "data": values, "mediaType": REPLY_MEDIA_TYPE }]),
    };
    ApprovedMessage {
        message_id: format!("decision-{decision_id}"),
        parts,
        metadata,
    }
}

#[cfg(test)]
mod tests;
