//! Approval requests (`shared/spec/reference.md` §1.2, §4.8; `shared/spec/security-and-durability.md`
//! §4.1): opened from an agent's prompt inside the ingestion transaction, decided by people, and
//! carried to the agent exactly once: the decision, its execution row and the command that
//! sends the approved message commit in one transaction, and a request can be approved once.
//!
//! Everything about the content (parsing, validation, digest, the message sent) is
//! `app::ext::approval`; this module stores and sequences.

use app::a2a::{Part, PartContent, TaskState};
use app::api::approvals::{
    ApprovalDecision, ApprovalDetail, ApprovalExecution, ApprovalRevision, ApprovalSummary, DecisionInput,
    is_open,
};
use app::ext::approval::{self, ApprovalAction, Outcome};
use app::ext::uri::{APPROVAL_MEDIA_TYPE, APPROVAL_URI};
use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, DbErr, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};
use serde_json::{Value, json};

use super::commands::{self, CommandBody, CommandConfig, CommandError, NewCommand};
use crate::db::Db;
use crate::db::entity::{
    agent, agent_card_snapshot, decision, decision_execution, decision_request, decision_revision, task,
    task_command, task_message,
};
use crate::ingest::archive::digest;
use crate::ingest::bus::{Bus, Notice};
use crate::ingest::canonical;
use crate::store::{StoreError, new_id};

pub const NOT_FOUND: &str = "Decision request not found.";
pub const STALE: &str = "A newer revision exists; review it before deciding.";
pub const UNKNOWN_STATUS: &str = "Unknown status.";
pub const DELEGATION_NEEDS_SIGN_IN: &str =
    "Delegation needs sign-in: there is no one to delegate to until people sign in.";
pub const UNKNOWN_OUTCOME: &str = "outcome must be approve, reject, edit, request_changes or delegate.";
pub const EDIT_ONLY_WITH_EDIT: &str = "edit is only allowed with the edit outcome.";
pub const EDIT_REQUIRED: &str = "The edit outcome needs the edited action.";

/// `409 This request is <reason> and can no longer authorize an action.` (reference §4.8).
pub fn closed_message(status: &str) -> String {
    let reason = status.replace('_', " ");
    format!("This request is {reason} and can no longer authorize an action.")
}

/// The policy every agent-opened request gets (reference §1.2 "Effect").
fn default_policy() -> Value {
    json!({
        "allowedOutcomes": ["approve", "reject", "edit", "request_changes", "delegate"],
        "separationOfDuties": true,
    })
}

/// Why a decision was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("{NOT_FOUND}")]
    NotFound,
    /// Bad input (`400`).
    #[error("{0}")]
    Invalid(String),
    /// Well-formed but not acceptable (`422`).
    #[error("{0}")]
    Unprocessable(String),
    /// Stale revision, closed request, reused key (`409`).
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<DbErr> for ApprovalError {
    fn from(e: DbErr) -> Self {
        ApprovalError::Store(StoreError::Db(e))
    }
}

/// Opens an approval request when the task's latest prompt carries a valid one from an agent
/// whose stored card advertises the extension (reference §1.2 "Detection"), superseding any
/// older open request of the task. Runs inside the ingestion transaction; content problems are
/// swallowed (the part stays ordinary data), database faults propagate. Returns the new
/// request's id.
pub async fn detect(tx: &DatabaseTransaction, row: &task::Model) -> Result<Option<String>, DbErr> {
    if row.kind != "task" || TaskState::parse(&row.state) != TaskState::InputRequired {
        return Ok(None);
    }
    let Some(prompt) = task_message::Entity::find()
        .filter(task_message::Column::TaskId.eq(&row.id))
        .filter(task_message::Column::FromStatus.eq(true))
        .filter(task_message::Column::Role.eq(app::a2a::Role::Agent.as_v1_str()))
        .order_by_desc(task_message::Column::Sequence)
        .one(tx)
        .await?
    else {
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
    let advertised = agent_card_snapshot::Entity::find()
        .filter(agent_card_snapshot::Column::AgentId.eq(&row.agent_id))
        .order_by_desc(agent_card_snapshot::Column::FetchedAt)
        .one(tx)
        .await?
        .is_some_and(|card| app::ext::negotiation::advertises(&card.raw_card_json, APPROVAL_URI));
    if !advertised {
        return Ok(None);
    }
    let Ok(action) = approval::validate_action(&request.action) else {
        return Ok(None);
    };
    let action_digest = approval::action_digest(&action);
    let key = approval::request_key(&row.id, &prompt.message_id, &action_digest);
    let now = Utc::now();
    let id = new_id();
    let inserted = decision_request::Entity::insert(decision_request::ActiveModel {
        id: Set(id.clone()),
        organization_id: Set(row.organization_id.clone()),
        task_id: Set(row.id.clone()),
        agent_id: Set(row.agent_id.clone()),
        tenant: Set(row.tenant.clone()),
        skill_id: Set(row.skill_id.clone()),
        request_key: Set(key),
        source_message_id: Set(Some(prompt.message_id.clone())),
        kind: Set(action.kind().to_owned()),
        status: Set("pending".into()),
        title: Set(request.title.clone()),
        summary: Set(request.summary.clone()),
        risk: Set(request.risk.as_str().to_owned()),
        policy_json: Set(default_policy()),
        requester_user_id: Set(None),
        assigned_membership_id: Set(None),
        current_revision: Set(1),
        expires_at: Set(now + Duration::milliseconds(request.lifetime_ms as i64)),
        created_at: Set(now),
        updated_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([
            decision_request::Column::OrganizationId,
            decision_request::Column::RequestKey,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(tx)
    .await?;
    if inserted == 0 {
        return Ok(None);
    }
    insert_revision(tx, &id, 1, &action, "agent", now).await?;
    // One live approval per task.
    decision_request::Entity::update_many()
        .col_expr(decision_request::Column::Status, Expr::value("superseded"))
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .filter(decision_request::Column::TaskId.eq(&row.id))
        .filter(decision_request::Column::Id.ne(&id))
        .filter(decision_request::Column::Status.is_in(["pending", "changes_requested"]))
        .exec(tx)
        .await?;
    Ok(Some(id))
}

async fn insert_revision<C: ConnectionTrait>(
    db: &C,
    request_id: &str,
    revision: i32,
    action: &ApprovalAction,
    author: &str,
    now: DateTime<Utc>,
) -> Result<String, DbErr> {
    let action_digest = approval::action_digest(action);
    decision_revision::Entity::insert(decision_revision::ActiveModel {
        id: Set(new_id()),
        request_id: Set(request_id.to_owned()),
        revision: Set(revision),
        action_json: Set(serde_json::to_value(action).map_err(|e| DbErr::Custom(e.to_string()))?),
        digest: Set(action_digest.clone()),
        author_type: Set(author.to_owned()),
        author_user_id: Set(None),
        created_at: Set(now),
    })
    .exec_without_returning(db)
    .await?;
    Ok(action_digest)
}

/// Requests of the organization, newest first (at most 100), optionally of one status and task.
pub async fn list(
    db: &Db,
    organization_id: &str,
    status: Option<&str>,
    task_id: Option<&str>,
) -> Result<Vec<ApprovalSummary>, ApprovalError> {
    if let Some(status) = status
        && !app::api::approvals::STATUSES.contains(&status)
    {
        return Err(ApprovalError::Invalid(UNKNOWN_STATUS.into()));
    }
    let mut query = decision_request::Entity::find()
        .filter(decision_request::Column::OrganizationId.eq(organization_id))
        .order_by_desc(decision_request::Column::CreatedAt)
        .limit(100);
    if let Some(status) = status {
        query = query.filter(decision_request::Column::Status.eq(status));
    }
    if let Some(task_id) = task_id {
        query = query.filter(decision_request::Column::TaskId.eq(task_id));
    }
    let rows = query.all(&db.read).await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        out.push(summary(&db.read, row).await?);
    }
    Ok(out)
}

/// How many requests wait for a decision.
pub async fn pending_count(db: &Db, organization_id: &str) -> Result<u64, ApprovalError> {
    use sea_orm::PaginatorTrait;
    Ok(decision_request::Entity::find()
        .filter(decision_request::Column::OrganizationId.eq(organization_id))
        .filter(decision_request::Column::Status.eq("pending"))
        .filter(decision_request::Column::ExpiresAt.gt(Utc::now()))
        .count(&db.read)
        .await?)
}

async fn summary<C: ConnectionTrait>(db: &C, row: decision_request::Model) -> Result<ApprovalSummary, DbErr> {
    let task = task::Entity::find_by_id(row.task_id.clone()).one(db).await?;
    let agent = agent::Entity::find_by_id(row.agent_id.clone()).one(db).await?;
    Ok(ApprovalSummary {
        id: row.id,
        conversation_id: task
            .as_ref()
            .map(|t| t.conversation_id.clone())
            .unwrap_or_default(),
        task_title: task.as_ref().map(|t| t.title.clone()).unwrap_or_default(),
        task_state: task.map(|t| t.state).unwrap_or_default(),
        task_id: row.task_id,
        agent_name: agent
            .map(|a| a.display_name.unwrap_or(a.card_url))
            .unwrap_or_default(),
        agent_id: row.agent_id,
        skill_id: row.skill_id,
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

async fn find_request<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    id: &str,
) -> Result<decision_request::Model, ApprovalError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApprovalError::NotFound);
    }
    decision_request::Entity::find_by_id(id.to_owned())
        .filter(decision_request::Column::OrganizationId.eq(organization_id))
        .one(db)
        .await?
        .ok_or(ApprovalError::NotFound)
}

/// [`find_request`] under the row lock, for a transaction that may change the request.
async fn find_request_locked(
    tx: &DatabaseTransaction,
    organization_id: &str,
    id: &str,
) -> Result<decision_request::Model, ApprovalError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApprovalError::NotFound);
    }
    let select = decision_request::Entity::find_by_id(id.to_owned())
        .filter(decision_request::Column::OrganizationId.eq(organization_id));
    let select = if tx.get_database_backend() == sea_orm::DatabaseBackend::Postgres {
        select.lock_exclusive()
    } else {
        select
    };
    select.one(tx).await?.ok_or(ApprovalError::NotFound)
}

/// One request with its revisions, decisions and executions (execution statuses refreshed
/// from their commands).
pub async fn detail(db: &Db, organization_id: &str, id: &str) -> Result<ApprovalDetail, ApprovalError> {
    let row = find_request(&db.read, organization_id, id).await?;
    detail_of(&db.read, row).await
}

async fn detail_of<C: ConnectionTrait>(
    db: &C,
    row: decision_request::Model,
) -> Result<ApprovalDetail, ApprovalError> {
    let id = row.id.clone();
    let task_state = task::Entity::find_by_id(row.task_id.clone())
        .one(db)
        .await?
        .map(|t| t.state);
    let revisions = decision_revision::Entity::find()
        .filter(decision_revision::Column::RequestId.eq(&id))
        .order_by_asc(decision_revision::Column::Revision)
        .all(db)
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
    let decisions = decision::Entity::find()
        .filter(decision::Column::RequestId.eq(&id))
        .order_by_asc(decision::Column::CreatedAt)
        .all(db)
        .await?
        .into_iter()
        .map(|d| ApprovalDecision {
            id: d.id,
            revision: d.revision,
            outcome: d.outcome,
            rationale: d.rationale,
            created_at: time(d.created_at),
        })
        .collect();
    let mut executions = Vec::new();
    for execution in decision_execution::Entity::find()
        .filter(decision_execution::Column::RequestId.eq(&id))
        .all(db)
        .await?
    {
        let status = task_command::Entity::find_by_id(execution.command_id.clone())
            .one(db)
            .await?
            .map_or(execution.status.clone(), |c| c.status);
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

/// Records a decision (reference §4.8 `POST /api/decisions/{id}/decisions`). The same key with
/// the same body replays (`Ok((detail, true))`); with another body it is refused. Approve and
/// edit accept the command that sends the approved message in the same transaction; the
/// request moves out of `pending` only if it is still at `expectedRevision`, so concurrent
/// clicks make one decision and one command.
pub async fn decide(
    db: &Db,
    bus: &Bus,
    organization_id: &str,
    id: &str,
    input: DecisionInput,
    key: &str,
) -> Result<(ApprovalDetail, bool), ApprovalError> {
    match decide_once(db, bus, organization_id, id, &input, key).await {
        // A concurrent decision committed between this one's reads and its writes (the row
        // lock makes that rare; a unique index still has the last word): decide again, which
        // now sees it and answers the replay or the 409 it deserves.
        Err(ApprovalError::Store(StoreError::Db(error))) if is_unique_violation(&error) => {
            decide_once(db, bus, organization_id, id, &input, key).await
        }
        other => other,
    }
}

fn is_unique_violation(error: &DbErr) -> bool {
    matches!(
        error.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}

async fn decide_once(
    db: &Db,
    bus: &Bus,
    organization_id: &str,
    id: &str,
    input: &DecisionInput,
    key: &str,
) -> Result<(ApprovalDetail, bool), ApprovalError> {
    let key = key.trim();
    if key.is_empty() || key.chars().count() > commands::MAX_KEY_CHARS {
        return Err(ApprovalError::Invalid(commands::KEY_REQUIRED.into()));
    }
    let outcome =
        Outcome::parse(&input.outcome).ok_or_else(|| ApprovalError::Invalid(UNKNOWN_OUTCOME.into()))?;
    approval::check_rationale(outcome, input.rationale.as_deref())
        .map_err(|e| ApprovalError::Invalid(e.to_string()))?;
    match (outcome, &input.edit) {
        (Outcome::Edit, None) => return Err(ApprovalError::Invalid(EDIT_REQUIRED.into())),
        (o, Some(_)) if o != Outcome::Edit => return Err(ApprovalError::Invalid(EDIT_ONLY_WITH_EDIT.into())),
        (Outcome::Delegate, _) => return Err(ApprovalError::Unprocessable(DELEGATION_NEEDS_SIGN_IN.into())),
        _ => {}
    }
    let payload_digest = digest(canonical(&serde_json::to_value(input).unwrap_or(Value::Null)).as_bytes());
    let tx = db.write.begin().await?;
    // Locked (PostgreSQL; SQLite has one writer): a concurrent decision on the request waits
    // here, then sees this one's outcome, its key included.
    let row = find_request_locked(&tx, organization_id, id).await?;
    if let Some(existing) = decision::Entity::find()
        .filter(decision::Column::RequestId.eq(&row.id))
        .filter(decision::Column::IdempotencyKey.eq(key))
        .one(&tx)
        .await?
    {
        if existing.payload_digest != payload_digest {
            return Err(ApprovalError::Conflict(commands::KEY_CONFLICT.into()));
        }
        return Ok((detail_of(&tx, row).await?, true));
    }
    let now = Utc::now();
    let task = task::Entity::find_by_id(row.task_id.clone())
        .one(&tx)
        .await?
        .ok_or(ApprovalError::NotFound)?;
    if let Some(status) = closing_status(&row, &task, now) {
        // The request cannot authorize anything any more; record why, then refuse.
        set_status(&tx, &row, status, row.current_revision, now).await?;
        tx.commit().await?;
        bus.publish(Notice::Approvals);
        return Err(ApprovalError::Conflict(closed_message(status)));
    }
    if !is_open(&row.status) {
        return Err(ApprovalError::Conflict(closed_message(&row.status)));
    }
    if input.expected_revision != row.current_revision {
        return Err(ApprovalError::Conflict(STALE.into()));
    }
    let current = decision_revision::Entity::find()
        .filter(decision_revision::Column::RequestId.eq(&row.id))
        .filter(decision_revision::Column::Revision.eq(row.current_revision))
        .one(&tx)
        .await?
        .ok_or(ApprovalError::NotFound)?;
    let current_action: ApprovalAction = serde_json::from_value(current.action_json.clone())
        .map_err(|e| ApprovalError::Store(StoreError::Db(DbErr::Custom(e.to_string()))))?;
    // The action to execute, and the revision it is.
    let (revision, action, action_digest) = match (outcome, &input.edit) {
        (Outcome::Edit, Some(edit)) => {
            let edited: ApprovalAction = serde_json::from_value(edit.clone())
                .map_err(|e| ApprovalError::Unprocessable(format!("The edit is not a valid action: {e}")))?;
            let edited = approval::check_edit(&current_action, &edited)
                .map_err(|e| ApprovalError::Unprocessable(e.to_string()))?;
            let revision = row.current_revision + 1;
            let action_digest = insert_revision(&tx, &row.id, revision, &edited, "user", now).await?;
            (revision, edited, action_digest)
        }
        _ => (row.current_revision, current_action, current.digest.clone()),
    };
    let status = match outcome {
        Outcome::Approve | Outcome::Edit => "approved",
        Outcome::Reject => "rejected",
        Outcome::RequestChanges => "changes_requested",
        Outcome::Delegate => return Err(ApprovalError::Unprocessable(DELEGATION_NEEDS_SIGN_IN.into())),
    };
    // Fenced on the status and revision the reviewer saw: only one decision moves it.
    if !set_status(&tx, &row, status, revision, now).await? {
        return Err(ApprovalError::Conflict(STALE.into()));
    }
    let decision_id = new_id();
    decision::Entity::insert(decision::ActiveModel {
        id: Set(decision_id.clone()),
        request_id: Set(row.id.clone()),
        revision: Set(revision),
        outcome: Set(outcome.as_str().to_owned()),
        rationale: Set(input.rationale.clone().filter(|r| !r.trim().is_empty())),
        actor_user_id: Set(None),
        idempotency_key: Set(key.to_owned()),
        payload_digest: Set(payload_digest),
        created_at: Set(now),
    })
    .exec_without_returning(&tx)
    .await?;
    let mut accepted = None;
    if matches!(outcome, Outcome::Approve | Outcome::Edit) {
        let message = approval::approved_message(
            &action,
            &row.id,
            &decision_id,
            revision.max(1) as u32,
            &action_digest,
        );
        let command = execute(&tx, &row, &task, &decision_id, message).await?;
        accepted = Some(command);
    }
    let detail = detail_of(
        &tx,
        decision_request::Entity::find_by_id(row.id.clone())
            .one(&tx)
            .await?
            .ok_or(ApprovalError::NotFound)?,
    )
    .await?;
    tx.commit().await?;
    if let Some(command) = &accepted {
        commands::publish_accepted(bus, command);
    }
    bus.publish(Notice::Approvals);
    Ok((detail, false))
}

/// Why an open request can no longer authorize anything: expired, or its task finished.
fn closing_status(
    row: &decision_request::Model,
    task: &task::Model,
    now: DateTime<Utc>,
) -> Option<&'static str> {
    if !is_open(&row.status) {
        return None;
    }
    if TaskState::parse(&task.state).is_terminal() {
        Some("superseded")
    } else if row.expires_at <= now {
        Some("expired")
    } else {
        None
    }
}

/// Moves a request from the status and revision it had when read (`seen`) to `to` at
/// `revision`; false when someone else moved it, or added a revision, first.
async fn set_status(
    tx: &DatabaseTransaction,
    seen: &decision_request::Model,
    to: &str,
    revision: i32,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let result = decision_request::Entity::update_many()
        .col_expr(decision_request::Column::Status, Expr::value(to))
        .col_expr(decision_request::Column::CurrentRevision, Expr::value(revision))
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .filter(decision_request::Column::Id.eq(&seen.id))
        .filter(decision_request::Column::Status.eq(&seen.status))
        .filter(decision_request::Column::CurrentRevision.eq(seen.current_revision))
        .exec(tx)
        .await?;
    Ok(result.rows_affected == 1)
}

/// Accepts the command that sends the approved message (key `decision:<id>`, messageId
/// `decision-<id>`, the task's skill re-applied) and records the execution.
async fn execute(
    tx: &DatabaseTransaction,
    row: &decision_request::Model,
    task: &task::Model,
    decision_id: &str,
    message: approval::ApprovedMessage,
) -> Result<task_command::Model, ApprovalError> {
    let agent = agent::Entity::find_by_id(row.agent_id.clone())
        .one(tx)
        .await?
        .ok_or(CommandError::UnknownAgent)?;
    let body = CommandBody {
        parts: message.parts.as_array().cloned(),
        task_id: task.remote_task_id.clone(),
        context_id: task.remote_context_id.clone(),
        tenant: Some(task.tenant.clone()),
        message_id: Some(message.message_id.clone()),
        config: Some(CommandConfig {
            metadata: Some(message.metadata.clone()),
            ..CommandConfig::default()
        }),
        ..CommandBody::default()
    };
    let valid = commands::validate(body).map_err(CommandError::Invalid)?;
    let (command, _) = commands::accept_in(
        tx,
        NewCommand {
            organization_id: row.organization_id.clone(),
            agent,
            body: valid,
            idempotency_key: format!("decision:{decision_id}"),
            conversation_id: Some(task.conversation_id.clone()),
        },
    )
    .await?;
    let now = Utc::now();
    decision_execution::Entity::insert(decision_execution::ActiveModel {
        id: Set(new_id()),
        decision_id: Set(decision_id.to_owned()),
        request_id: Set(row.id.clone()),
        command_id: Set(command.id.clone()),
        status: Set(command.status.clone()),
        task_state: Set(Some(task.state.clone())),
        created_at: Set(now),
        updated_at: Set(now),
    })
    .exec_without_returning(tx)
    .await?;
    Ok(command)
}

/// Counts of one sweep.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub expired: u64,
    pub superseded: u64,
}

/// Expires overdue open requests and supersedes open requests whose task finished
/// (reference §4.8 "Sweep").
pub async fn sweep(db: &Db, now: DateTime<Utc>) -> Result<Swept, DbErr> {
    let expired = decision_request::Entity::update_many()
        .col_expr(decision_request::Column::Status, Expr::value("expired"))
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .filter(decision_request::Column::Status.is_in(["pending", "changes_requested"]))
        .filter(decision_request::Column::ExpiresAt.lte(now))
        .exec(&db.write)
        .await?
        .rows_affected;
    let open = decision_request::Entity::find()
        .filter(decision_request::Column::Status.is_in(["pending", "changes_requested"]))
        .all(&db.write)
        .await?;
    let mut superseded = 0;
    for row in open {
        let finished = task::Entity::find_by_id(row.task_id.clone())
            .one(&db.write)
            .await?
            .is_none_or(|t| TaskState::parse(&t.state).is_terminal());
        if finished {
            superseded += decision_request::Entity::update_many()
                .col_expr(decision_request::Column::Status, Expr::value("superseded"))
                .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
                .filter(decision_request::Column::Id.eq(&row.id))
                .filter(decision_request::Column::Status.eq(&row.status))
                .exec(&db.write)
                .await?
                .rows_affected;
        }
    }
    Ok(Swept { expired, superseded })
}
