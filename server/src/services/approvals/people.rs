//! Approvals with people (`shared/spec/security-and-durability.md` §4.1 "Checks", `delegate`):
//! who may decide a request, who it may be delegated to, and the delegation itself.
//!
//! - A request assigned to someone (by delegation) is decided by them or by an admin:
//!   `403 This request is assigned to someone else.`
//! - With separation of duties (the default), the person who asked cannot decide:
//!   `403 The requester cannot decide their own request.` Requests opened by agents have no
//!   requester, so any eligible reviewer may decide them.
//! - `delegate` hands the request to another enabled operator or admin who can operate its agent
//!   (or skill), without closing it; never to oneself (`422`).

use app::api::approvals::Reviewer;
use app::words::Role;
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction};

use super::ApprovalError;
use crate::db::Db;
use crate::db::entity::decision_request;
use crate::store::access::Access;
use crate::store::approvals as store;
use crate::store::identity::{self, Member};

pub const ASSIGNED_ELSEWHERE: &str = "This request is assigned to someone else.";
pub const REQUESTER_CANNOT_DECIDE: &str = "The requester cannot decide their own request.";
pub const DELEGATE_REQUIRED: &str = "delegateMembershipId is required to delegate.";
pub const DELEGATE_ONLY_WITH_DELEGATE: &str =
    "delegateMembershipId is only allowed with the delegate outcome.";
pub const DELEGATE_SELF: &str = "You cannot delegate a request to yourself.";
pub const DELEGATE_CANNOT_OPERATE: &str = "The delegate cannot operate this agent.";
pub const OUTCOME_NOT_ALLOWED: &str = "The request's policy does not allow this outcome.";

/// Who is deciding: their grants and who they are.
#[derive(Clone, Debug)]
pub struct Caller {
    pub access: Access,
    pub user_id: String,
    pub membership_id: String,
    pub role: Role,
}

/// `403` unless `caller` may decide `row` as it stands: the assignee (or an admin) when it is
/// assigned, and not its requester when the policy separates duties.
pub(super) fn may_decide(
    row: &decision_request::Model,
    caller: &Caller,
    outcome: app::ext::approval::Outcome,
) -> Result<(), ApprovalError> {
    let allowed = row
        .policy_json
        .get("allowedOutcomes")
        .and_then(serde_json::Value::as_array)
        .is_none_or(|list| list.iter().any(|o| o.as_str() == Some(outcome.as_str())));
    if !allowed {
        return Err(ApprovalError::Forbidden(OUTCOME_NOT_ALLOWED.into()));
    }
    if let Some(assignee) = &row.assigned_membership_id
        && assignee != &caller.membership_id
        && caller.role != Role::Admin
    {
        return Err(ApprovalError::Forbidden(ASSIGNED_ELSEWHERE.into()));
    }
    let separated = row
        .policy_json
        .get("separationOfDuties")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(true);
    if separated && row.requester_user_id.as_deref() == Some(caller.user_id.as_str()) {
        return Err(ApprovalError::Forbidden(REQUESTER_CANNOT_DECIDE.into()));
    }
    Ok(())
}

/// Whether `member` may decide requests on `agent_id`'s `skill_id`: enabled, operator or admin,
/// with `operate` there.
async fn can_review<C: ConnectionTrait>(
    db: &C,
    member: &Member,
    agent_id: &str,
    skill_id: Option<&str>,
) -> Result<bool, ApprovalError> {
    if !member.active || member.role == Role::Viewer {
        return Ok(false);
    }
    let access = Access::of_member(db, &member.organization_id, &member.membership_id, member.role).await?;
    Ok(access.operates(agent_id, skill_id))
}

/// Whether membership `membership_id` of `organization_id` may decide requests on `agent_id`'s
/// `skill_id` (an assignee named when a request is opened).
pub(super) async fn can_operate<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    membership_id: &str,
    agent_id: &str,
    skill_id: Option<&str>,
) -> Result<bool, ApprovalError> {
    match identity::membership(db, organization_id, membership_id).await? {
        Some(member) => can_review(db, &member, agent_id, skill_id).await,
        None => Ok(false),
    }
}

/// The members who may decide requests on the task `task_id` that `caller` operates.
pub async fn reviewers(db: &Db, caller: &Caller, task_id: &str) -> Result<Vec<Reviewer>, ApprovalError> {
    let task = crate::store::tasks::find(&db.read, &caller.access, task_id)
        .await
        .map_err(|_| ApprovalError::NotFound)?;
    let mut out = Vec::new();
    for member in identity::active_members(&db.read, &caller.access.organization_id).await? {
        if can_review(&db.read, &member, &task.agent_id, task.skill_id.as_deref()).await? {
            out.push(Reviewer {
                is_self: member.membership_id == caller.membership_id,
                membership_id: member.membership_id,
                display_name: member.display_name,
                role: member.role,
            });
        }
    }
    Ok(out)
}

/// Hands `row` to `target` (checked), fenced on the status and revision the caller saw: `false`
/// when another decision moved it first.
pub(super) async fn delegate(
    tx: &DatabaseTransaction,
    caller: &Caller,
    row: &decision_request::Model,
    target: &str,
    now: DateTime<Utc>,
) -> Result<bool, ApprovalError> {
    if target == caller.membership_id {
        return Err(ApprovalError::Unprocessable(DELEGATE_SELF.into()));
    }
    let member = identity::membership(tx, &row.organization_id, target)
        .await?
        .ok_or_else(|| ApprovalError::Unprocessable(DELEGATE_CANNOT_OPERATE.into()))?;
    if !can_review(tx, &member, &row.agent_id, row.skill_id.as_deref()).await? {
        return Err(ApprovalError::Unprocessable(DELEGATE_CANNOT_OPERATE.into()));
    }
    Ok(store::assign(tx, row, &member.membership_id, now).await?)
}
