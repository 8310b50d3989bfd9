//! Approval requests opened by people (`shared/spec/reference.md` §4.8 `POST /api/decisions`,
//! `shared/spec/security-and-durability.md` §4.1 "Opening rules"): an operator asks for a
//! decision on an action for an unfinished A2A task they operate. The request records who asked
//! (so separation of duties can refuse them), may name an assignee, and supersedes any older open
//! request of the task. Opening one sends nothing to the agent.

use app::ext::approval::{self, ApprovalAction, MAX_SUMMARY_CHARS, MAX_TITLE_CHARS, Outcome, Risk};
use app::ext::canonical::{js_trim, utf16_len};
use app::projection::TaskKind;
use chrono::{DateTime, Duration, Utc};
use sea_orm::TransactionTrait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::ApprovalError;
use super::detect::record_revision;
use super::people::{self, Caller};
use super::views::detail_of;
use crate::db::Db;
use crate::db::entity::decision_request;
use crate::ingest::bus::{Bus, Notice};
use crate::services::commands::{CommandError, KEY_CONFLICT, KEY_REQUIRED, MAX_KEY_CHARS, NOT_PERMITTED};
use crate::store::approvals::{self as store, RequestStatus, RevisionAuthor};
use crate::store::{new_id, task_rows, tasks};

pub const INVALID_TITLE: &str = "title must be 1 to 300 characters.";
pub const INVALID_SUMMARY: &str = "summary must be at most 4000 characters.";
pub const INVALID_RISK: &str = "risk must be low, medium or high.";
pub const INVALID_EXPIRY: &str = "expiresAt must be a time in the future, at most 30 days ahead.";
pub const POLICY_NEEDS_APPROVE: &str = "policy.allowedOutcomes must include approve or edit.";
pub const UNKNOWN_POLICY_OUTCOME: &str =
    "policy.allowedOutcomes may hold only approve, reject, edit, request_changes and delegate.";
pub const NOT_A2A_TASK: &str = "Only A2A tasks can have approval requests.";
pub const ASSIGNEE_CANNOT_OPERATE: &str = "The assignee cannot operate this agent.";
pub const TASK_FINISHED: &str = "The task is already finished.";
/// Furthest ahead a request may expire.
pub const MAX_EXPIRY_DAYS: i64 = 30;

/// The body of `POST /api/decisions` (strict).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenRequest {
    pub task_id: String,
    #[serde(default)]
    pub request_key: Option<String>,
    pub title: String,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub risk: Option<String>,
    pub action: Value,
    pub expires_at: String,
    #[serde(default)]
    pub assigned_membership_id: Option<String>,
    #[serde(default)]
    pub policy: Option<Policy>,
}

/// Who may decide how.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Policy {
    pub allowed_outcomes: Vec<String>,
    #[serde(default = "separated")]
    pub separation_of_duties: bool,
}

fn separated() -> bool {
    true
}

/// The request's fields, checked.
struct Checked {
    key: String,
    title: String,
    summary: String,
    risk: Risk,
    action: ApprovalAction,
    expires_at: DateTime<Utc>,
    policy: Value,
}

fn invalid(message: &str) -> ApprovalError {
    ApprovalError::Invalid(message.to_owned())
}

fn check(body: &OpenRequest, header_key: Option<&str>, now: DateTime<Utc>) -> Result<Checked, ApprovalError> {
    let key = body
        .request_key
        .as_deref()
        .or(header_key)
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.chars().count() <= MAX_KEY_CHARS)
        .ok_or_else(|| invalid(KEY_REQUIRED))?;
    // Counted as an agent's request is (UTF-16 units, JavaScript's whitespace).
    let title = js_trim(&body.title);
    if title.is_empty() || utf16_len(title) > MAX_TITLE_CHARS {
        return Err(invalid(INVALID_TITLE));
    }
    let summary = body.summary.clone().unwrap_or_default();
    if utf16_len(&summary) > MAX_SUMMARY_CHARS {
        return Err(invalid(INVALID_SUMMARY));
    }
    let risk = match body.risk.as_deref() {
        None => Risk::Medium,
        Some(risk) => Risk::parse(risk).ok_or_else(|| invalid(INVALID_RISK))?,
    };
    let action: ApprovalAction = serde_json::from_value(body.action.clone())
        .map_err(|_| invalid("The proposed action is not a send_message or send_data action."))?;
    let action = approval::validate_action(&action).map_err(|e| ApprovalError::Invalid(e.to_string()))?;
    let expires_at = DateTime::parse_from_rfc3339(&body.expires_at)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .filter(|t| *t > now && *t <= now + Duration::days(MAX_EXPIRY_DAYS))
        .ok_or_else(|| invalid(INVALID_EXPIRY))?;
    let policy = match &body.policy {
        None => json!({"allowedOutcomes": ["approve", "reject", "edit", "request_changes", "delegate"],
                       "separationOfDuties": true}),
        Some(policy) => {
            if policy
                .allowed_outcomes
                .iter()
                .any(|o| Outcome::parse(o).is_none())
            {
                return Err(invalid(UNKNOWN_POLICY_OUTCOME));
            }
            if !policy
                .allowed_outcomes
                .iter()
                .any(|o| o == "approve" || o == "edit")
            {
                return Err(invalid(POLICY_NEEDS_APPROVE));
            }
            json!({"allowedOutcomes": policy.allowed_outcomes, "separationOfDuties": policy.separation_of_duties})
        }
    };
    Ok(Checked {
        key: key.to_owned(),
        title: title.to_owned(),
        summary,
        risk,
        action,
        expires_at,
        policy,
    })
}

/// The request already opened under the key: a replay when everything the caller asked for is
/// the same (the same person, task, content, expiry, assignee and policy), else `409`.
async fn replay(
    tx: &sea_orm::DatabaseTransaction,
    existing: decision_request::Model,
    asked: &decision_request::Model,
    action_digest: &str,
) -> Result<(app::api::approvals::ApprovalDetail, bool), ApprovalError> {
    let same = existing.requester_user_id == asked.requester_user_id
        && existing.task_id == asked.task_id
        && existing.title == asked.title
        && existing.summary == asked.summary
        && existing.risk == asked.risk
        && existing.policy_json == asked.policy_json
        && existing.assigned_membership_id == asked.assigned_membership_id
        && existing.expires_at.timestamp_millis() == asked.expires_at.timestamp_millis()
        && store::revision(tx, &existing.id, 1)
            .await?
            .is_some_and(|r| r.digest == action_digest);
    if !same {
        return Err(ApprovalError::Conflict(KEY_CONFLICT.into()));
    }
    Ok((detail_of(tx, existing).await?, true))
}

/// Opens the request; `Ok((detail, true))` for a replay of the same key and content.
pub async fn open(
    db: &Db,
    bus: &Bus,
    caller: &Caller,
    body: OpenRequest,
    header_key: Option<&str>,
) -> Result<(app::api::approvals::ApprovalDetail, bool), ApprovalError> {
    let now = Utc::now();
    let checked = check(&body, header_key, now)?;
    let task = tasks::find(&db.read, &caller.access, &body.task_id)
        .await
        .map_err(|e| match e {
            crate::store::StoreError::NotFound => ApprovalError::Command(CommandError::TaskNotFound),
            other => ApprovalError::Store(other),
        })?;
    if !caller.access.operates(&task.agent_id, task.skill_id.as_deref()) {
        return Err(ApprovalError::Forbidden(NOT_PERMITTED.into()));
    }
    let request_key = format!("user:{}", checked.key);
    let action_digest = approval::action_digest(&checked.action);
    let tx = db.write.begin().await?;
    // The task's row first, as ingestion takes it: one live request per task holds against a
    // concurrent open or an agent's request, and a task that finishes meanwhile is seen here.
    let task = task_rows::lock(&tx, &task.id)
        .await?
        .ok_or(ApprovalError::Command(CommandError::TaskNotFound))?;
    let id = new_id();
    let opened = decision_request::Model {
        id: id.clone(),
        organization_id: task.organization_id.clone(),
        task_id: task.id.clone(),
        agent_id: task.agent_id.clone(),
        tenant: task.tenant.clone(),
        skill_id: task.skill_id.clone(),
        request_key: request_key.clone(),
        source_message_id: None,
        kind: checked.action.kind(),
        status: RequestStatus::Pending,
        title: checked.title,
        summary: checked.summary,
        risk: checked.risk.as_str().to_owned(),
        policy_json: checked.policy,
        requester_user_id: Some(caller.user_id.clone()),
        assigned_membership_id: body.assigned_membership_id.clone(),
        current_revision: 1,
        expires_at: checked.expires_at,
        created_at: now,
        updated_at: now,
    };
    if let Some(existing) = store::by_request_key(&tx, &task.organization_id, &request_key).await? {
        return replay(&tx, existing, &opened, &action_digest).await;
    }
    if task.kind != TaskKind::Task {
        return Err(ApprovalError::Conflict(NOT_A2A_TASK.into()));
    }
    if task.state.is_terminal() {
        return Err(ApprovalError::Conflict(TASK_FINISHED.into()));
    }
    if let Some(assignee) = &body.assigned_membership_id
        && !people::can_operate(
            &tx,
            &task.organization_id,
            assignee,
            &task.agent_id,
            task.skill_id.as_deref(),
        )
        .await?
    {
        return Err(ApprovalError::Unprocessable(ASSIGNEE_CANNOT_OPERATE.into()));
    }
    if !store::insert_request(&tx, opened.clone()).await? {
        // Another open under the same key (for another task) committed first.
        let existing = store::by_request_key(&tx, &task.organization_id, &request_key)
            .await?
            .ok_or(ApprovalError::Conflict(KEY_CONFLICT.into()))?;
        return replay(&tx, existing, &opened, &action_digest).await;
    }
    let action = &checked.action;
    record_revision(
        &tx,
        &id,
        1,
        action,
        RevisionAuthor::User,
        Some(&caller.user_id),
        now,
    )
    .await?;
    store::supersede_others(&tx, &task.id, &id, now).await?;
    let row = store::by_id(&tx, &id).await?.ok_or(ApprovalError::NotFound)?;
    let detail = detail_of(&tx, row).await?;
    tx.commit().await?;
    bus.publish(Notice::Approvals);
    Ok((detail, false))
}
