//! Reading approval requests back: the lists, the pending count and one request's detail.

use crate::store::access::Access;
use app::api::approvals::{
    ApprovalDecision, ApprovalDetail, ApprovalExecution, ApprovalRevision, ApprovalSummary,
};
use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use super::{ApprovalError, UNKNOWN_STATUS};
use crate::db::Db;
use crate::db::entity::decision_request;
use crate::store::{agents, approvals as store, commands, identity, tasks};

/// Requests of the organization, newest first (at most 100), optionally of one status and task.
pub async fn list(
    db: &Db,
    access: &Access,
    status: Option<&str>,
    task_id: Option<&str>,
    assigned_to: Option<&str>,
) -> Result<Vec<ApprovalSummary>, ApprovalError> {
    if let Some(status) = status
        && store::RequestStatus::parse(status).is_none()
    {
        return Err(ApprovalError::Invalid(UNKNOWN_STATUS.into()));
    }
    let rows = store::list(&db.read, access, status, task_id, assigned_to).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        out.push(summary(&db.read, row).await?);
    }
    Ok(out)
}

/// How many requests wait for a decision.
pub async fn pending_count(db: &Db, access: &Access) -> Result<u64, ApprovalError> {
    Ok(store::count_pending(&db.read, access, Utc::now()).await?)
}

async fn summary<C: ConnectionTrait>(
    db: &C,
    row: decision_request::Model,
) -> Result<ApprovalSummary, ApprovalError> {
    let task = tasks::by_id(db, &row.task_id).await?;
    let agent = agents::by_id(db, &row.agent_id).await?;
    let assignee_name = match &row.assigned_membership_id {
        Some(id) => identity::membership(db, &row.organization_id, id)
            .await?
            .map(|m| m.display_name),
        None => None,
    };
    Ok(ApprovalSummary {
        id: row.id,
        conversation_id: task
            .as_ref()
            .map(|t| t.conversation_id.clone())
            .unwrap_or_default(),
        task_title: task.as_ref().map(|t| t.title.clone()).unwrap_or_default(),
        task_state: task.map(|t| t.state.as_v1_str().to_owned()).unwrap_or_default(),
        task_id: row.task_id,
        agent_name: agent
            .map(|a| a.display_name.unwrap_or(a.card_url))
            .unwrap_or_default(),
        agent_id: row.agent_id,
        skill_id: row.skill_id,
        requester_user_id: row.requester_user_id,
        policy: row.policy_json,
        assigned_membership_id: row.assigned_membership_id,
        assignee_name,
        kind: row.kind,
        status: row.status,
        title: row.title,
        summary: row.summary,
        risk: row.risk,
        current_revision: row.current_revision,
        expires_at: time(row.expires_at),
        created_at: time(row.created_at),
        updated_at: time(row.updated_at),
    })
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The request `id` of the organization (`NotFound` for anything else, including non-UUIDs).
async fn find_request<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    id: &str,
) -> Result<decision_request::Model, ApprovalError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApprovalError::NotFound);
    }
    store::find(db, access, id).await?.ok_or(ApprovalError::NotFound)
}

/// One request with its revisions, decisions and executions (execution statuses refreshed
/// from their commands).
pub async fn detail(db: &Db, access: &Access, id: &str) -> Result<ApprovalDetail, ApprovalError> {
    let row = find_request(&db.read, access, id).await?;
    detail_of(&db.read, row).await
}

pub(super) async fn detail_of<C: ConnectionTrait>(
    db: &C,
    row: decision_request::Model,
) -> Result<ApprovalDetail, ApprovalError> {
    let id = row.id.clone();
    let task_state = tasks::by_id(db, &row.task_id)
        .await?
        .map(|t| t.state.as_v1_str().to_owned());
    let revisions = store::revisions(db, &id)
        .await?
        .into_iter()
        .map(|r| ApprovalRevision {
            revision: r.revision,
            action: r.action_json,
            digest: r.digest,
            author_type: r.author_type,
            created_at: time(r.created_at),
        })
        .collect();
    let recorded = store::decisions(db, &id).await?;
    let names = identity::user_names(
        db,
        recorded.iter().filter_map(|d| d.actor_user_id.clone()).collect(),
    )
    .await?;
    let mut decisions = Vec::with_capacity(recorded.len());
    for d in recorded {
        let delegated_to = match &d.delegate_membership_id {
            Some(target) => identity::membership(db, &row.organization_id, target)
                .await?
                .map(|m| m.display_name),
            None => None,
        };
        decisions.push(ApprovalDecision {
            id: d.id,
            revision: d.revision,
            outcome: d.outcome,
            rationale: d.rationale,
            decided_by: d.actor_user_id.and_then(|user| names.get(&user).cloned()),
            delegated_to,
            created_at: time(d.created_at),
        });
    }
    let mut executions = Vec::new();
    for execution in store::executions(db, &id).await? {
        let status = commands::by_id(db, &execution.command_id)
            .await?
            .map_or(execution.status, |c| c.status);
        executions.push(ApprovalExecution {
            decision_id: execution.decision_id,
            command_id: execution.command_id,
            status,
            task_state: task_state.clone(),
        });
    }
    Ok(ApprovalDetail {
        request: summary(db, row).await?,
        revisions,
        decisions,
        executions,
    })
}
