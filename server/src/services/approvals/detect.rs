//! Opening approval requests from an agent's prompt (reference §1.2 "Detection"), inside the
//! ingestion transaction.

use app::a2a::{Part, PartContent, TaskState};
use app::ext::approval::{self, ApprovalAction};
use app::ext::uri::{APPROVAL_MEDIA_TYPE, APPROVAL_URI};
use app::projection::TaskKind;
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, DbErr};
use serde_json::{Value, json};

use crate::db::entity::{decision_request, task};
use crate::store::approvals::{self as store, NewRevision, RequestStatus, RevisionAuthor};
use crate::store::{card_snapshots, new_id};

/// The policy every agent-opened request gets (reference §1.2 "Effect").
fn default_policy() -> Value {
    json!({
        "allowedOutcomes": ["approve", "reject", "edit", "request_changes", "delegate"],
        "separationOfDuties": true,
    })
}

/// Whether [`detect`] reads the task's latest prompt for `row`: only a task waiting for input
/// can be asking for an approval.
pub fn reads_prompt(row: &task::Model) -> bool {
    row.kind == TaskKind::Task && row.state == TaskState::InputRequired
}

/// Opens an approval request when the task's latest prompt carries a valid one from an agent
/// whose stored card advertises the extension (reference §1.2 "Detection"), superseding any
/// older open request of the task. Runs inside the ingestion transaction; content problems are
/// swallowed (the part stays ordinary data), database faults propagate. Returns the new
/// request's id.
pub async fn detect(tx: &DatabaseTransaction, row: &task::Model) -> Result<Option<String>, DbErr> {
    if !reads_prompt(row) {
        return Ok(None);
    }
    let Some(prompt) = store::latest_prompt(tx, &row.id).await? else {
        return Ok(None);
    };
    let parts: Vec<Part> = serde_json::from_value(prompt.parts_json.clone()).unwrap_or_default();
    let Some(request) = parts.iter().find_map(|part| match &part.content {
        PartContent::Data(data)
            if part
                .media_type
                .as_deref()
                .is_some_and(|m| m.eq_ignore_ascii_case(APPROVAL_MEDIA_TYPE)) =>
        {
            approval::parse_approval(data).ok()
        }
        _ => None,
    }) else {
        return Ok(None);
    };
    let advertised = card_snapshots::latest_on(tx, &row.agent_id)
        .await?
        .is_some_and(|card| app::ext::negotiation::advertises(&card.raw_card_json, APPROVAL_URI));
    if !advertised {
        return Ok(None);
    }
    let Ok(action) = approval::validate_action(&request.action) else {
        return Ok(None);
    };
    let action_digest = approval::action_digest(&action);
    let now = Utc::now();
    let id = new_id();
    let opened = decision_request::Model {
        id: id.clone(),
        organization_id: row.organization_id.clone(),
        task_id: row.id.clone(),
        agent_id: row.agent_id.clone(),
        tenant: row.tenant.clone(),
        skill_id: row.skill_id.clone(),
        request_key: approval::request_key(&row.id, &prompt.message_id, &action_digest),
        source_message_id: Some(prompt.message_id.clone()),
        kind: action.kind(),
        status: RequestStatus::Pending,
        title: request.title.clone(),
        summary: request.summary.clone(),
        risk: request.risk.as_str().to_owned(),
        policy_json: default_policy(),
        requester_user_id: None,
        assigned_membership_id: None,
        current_revision: 1,
        expires_at: now + Duration::milliseconds(request.lifetime_ms as i64),
        created_at: now,
        updated_at: now,
    };
    if !store::insert_request(tx, opened).await? {
        return Ok(None);
    }
    record_revision(tx, &id, 1, &action, RevisionAuthor::Agent, None, now).await?;
    store::supersede_others(tx, &row.id, &id, now).await?;
    Ok(Some(id))
}

/// Stores revision `revision` of request `request_id`'s action by `author`; returns its digest.
pub(super) async fn record_revision<C: ConnectionTrait>(
    db: &C,
    request_id: &str,
    revision: i32,
    action: &ApprovalAction,
    author: RevisionAuthor,
    author_user_id: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String, DbErr> {
    let digest = approval::action_digest(action);
    let revision = NewRevision {
        request_id,
        revision,
        action: serde_json::to_value(action).map_err(|e| DbErr::Custom(e.to_string()))?,
        digest: &digest,
        author,
        author_user_id,
        now,
    };
    store::insert_revision(db, revision).await?;
    Ok(digest)
}
