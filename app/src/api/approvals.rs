//! Server functions of the Approvals screens (`shared/spec/reference.md` §1.2, §4.8): the list,
//! one request with its revisions and decisions, and deciding.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::AppError;

pub use crate::ext::approval::{ActionKind, Outcome, RequestStatus};
use crate::words::CommandStatus;

crate::stored_words! {
    /// Who wrote a revision of a request's action (`decision_revisions.author_type`).
    pub enum RevisionAuthor {
        /// The agent's prompt (revision 1).
        Agent = "agent",
        /// A reviewer's edit.
        User = "user",
    }
}

/// One approval request as the lists show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalSummary {
    pub id: String,
    /// The local task id.
    pub task_id: String,
    pub conversation_id: String,
    pub agent_id: String,
    pub agent_name: String,
    pub task_title: String,
    pub task_state: String,
    pub skill_id: Option<String>,
    pub kind: ActionKind,
    pub status: RequestStatus,
    pub title: String,
    pub summary: String,
    pub risk: String,
    /// The person who asked (null for requests opened by agents): with separation of duties
    /// they cannot decide it.
    #[serde(default)]
    pub requester_user_id: Option<String>,
    /// `{allowedOutcomes, separationOfDuties}`.
    #[serde(default)]
    pub policy: Value,
    /// The membership the request is assigned to (when opened, or by delegation), if any: only
    /// they or an admin may decide it.
    #[serde(default)]
    pub assigned_membership_id: Option<String>,
    /// Their name.
    #[serde(default)]
    pub assignee_name: Option<String>,
    pub current_revision: i32,
    pub expires_at: String,
    pub created_at: String,
    pub updated_at: String,
}

/// One immutable proposal of a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRevision {
    pub revision: i32,
    /// The action as stored (`{kind, text, data?}` or `{kind, form, values}`).
    pub action: Value,
    /// SHA-256 of the action's canonical JSON, echoed to the agent as `revisionDigest`.
    pub digest: String,
    pub author_type: RevisionAuthor,
    pub created_at: String,
}

/// A decision someone made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalDecision {
    pub id: String,
    pub revision: i32,
    pub outcome: Outcome,
    pub rationale: Option<String>,
    /// Who decided (absent for decisions recorded before sign-in).
    #[serde(default)]
    pub decided_by: Option<String>,
    /// For `delegate`: who the request was handed to.
    #[serde(default)]
    pub delegated_to: Option<String>,
    pub created_at: String,
}

/// The command that carries an approved action to the agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalExecution {
    pub decision_id: String,
    pub command_id: String,
    pub status: CommandStatus,
    pub task_state: Option<String>,
}

/// A request with everything the review page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalDetail {
    pub request: ApprovalSummary,
    /// Oldest first.
    pub revisions: Vec<ApprovalRevision>,
    /// Oldest first.
    pub decisions: Vec<ApprovalDecision>,
    pub executions: Vec<ApprovalExecution>,
}

/// A decision to record (`POST /api/decisions/{id}/decisions`, reference §4.8).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecisionInput {
    /// `approve`, `reject`, `edit`, `request_changes` or `delegate`.
    pub outcome: String,
    /// The revision the reviewer looked at; a newer one makes the decision stale (409).
    pub expected_revision: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// With `edit`: the edited action (same kind; for `send_data`, the same form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegate_membership_id: Option<String>,
}

/// What the Approvals screens need from the server.
#[cfg(feature = "ssr")]
pub trait ApprovalsBackend: Send + Sync {
    fn list(
        &self,
        status: Option<String>,
        task_id: Option<String>,
    ) -> crate::api::BoxFuture<'_, Result<Vec<ApprovalSummary>, AppError>>;
    fn get(&self, id: String) -> crate::api::BoxFuture<'_, Result<ApprovalDetail, AppError>>;
    fn decide(
        &self,
        id: String,
        input: DecisionInput,
        key: String,
    ) -> crate::api::BoxFuture<'_, Result<ApprovalDetail, AppError>>;
    fn pending_count(&self) -> crate::api::BoxFuture<'_, Result<u64, AppError>>;
    /// The members who may decide requests on the task: enabled operators and admins with
    /// `operate` on its agent or skill.
    fn reviewers(&self, task_id: String) -> crate::api::BoxFuture<'_, Result<Vec<Reviewer>, AppError>>;
    /// Opens a request as `POST /api/decisions` does; answers its id.
    fn open(&self, input: ApprovalAsk) -> crate::api::BoxFuture<'_, Result<String, AppError>>;
}

/// The task page's "Ask for approval": a `send_message` action a person asks a colleague to
/// approve before it goes to the agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalAsk {
    pub task_id: String,
    pub title: String,
    pub summary: String,
    /// `low`, `medium` or `high`.
    pub risk: String,
    /// The message to send once approved.
    pub text: String,
    /// 1, 8, 24 or 168 (the choices the page offers; the server accepts up to 30 days).
    pub expires_in_hours: u32,
    pub assigned_membership_id: Option<String>,
    /// The draft's idempotency key: a repeated click opens one request.
    pub key: String,
}

/// Opens an approval request on a task (operate); answers its id.
#[server(prefix = "/api/fn", endpoint = "open_approval", input = leptos::server_fn::codec::Json)]
pub async fn open_approval(input: ApprovalAsk) -> Result<String, AppError> {
    crate::api::respond(async { crate::api::backend()?.approvals.open(input).await }.await)
}

/// A member a request may be delegated to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reviewer {
    pub membership_id: String,
    pub display_name: String,
    pub role: crate::words::Role,
    /// The caller themself (who cannot be the delegate).
    #[serde(rename = "self")]
    pub is_self: bool,
}

/// Who may decide requests on task `task_id` (the Delegate choice).
#[server(prefix = "/api/fn", endpoint = "list_reviewers")]
pub async fn list_reviewers(task_id: String) -> Result<Vec<Reviewer>, AppError> {
    crate::api::respond(async { crate::api::backend()?.approvals.reviewers(task_id).await }.await)
}

/// Requests, newest first, optionally of one status and one task.
#[server(prefix = "/api/fn", endpoint = "list_approvals")]
pub async fn list_approvals(
    status: Option<String>,
    task_id: Option<String>,
) -> Result<Vec<ApprovalSummary>, AppError> {
    crate::api::respond(async { crate::api::backend()?.approvals.list(status, task_id).await }.await)
}

/// One request with its revisions, decisions and executions.
#[server(prefix = "/api/fn", endpoint = "get_approval")]
pub async fn get_approval(id: String) -> Result<ApprovalDetail, AppError> {
    crate::api::respond(async { crate::api::backend()?.approvals.get(id).await }.await)
}

/// Records a decision. `key` makes a repeated click a replay, never a second decision.
#[server(prefix = "/api/fn", endpoint = "decide_approval", input = leptos::server_fn::codec::Json)]
pub async fn decide_approval(
    id: String,
    input: DecisionInput,
    key: String,
) -> Result<ApprovalDetail, AppError> {
    crate::api::respond(async { crate::api::backend()?.approvals.decide(id, input, key).await }.await)
}

/// How many requests wait for a decision (the navigation badge).
#[server(prefix = "/api/fn", endpoint = "count_pending_approvals")]
pub async fn count_pending_approvals() -> Result<u64, AppError> {
    crate::api::respond(async { crate::api::backend()?.approvals.pending_count().await }.await)
}
