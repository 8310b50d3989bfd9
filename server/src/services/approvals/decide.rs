//! Deciding an approval request (reference §4.8 `POST /api/decisions/{id}/decisions`): the
//! decision, the request's new status and, for approve and edit, the command that sends the
//! approved message and its execution row commit in one transaction.

use app::api::approvals::{ApprovalDetail, DecisionInput};
use app::ext::approval::{self, ApprovalAction, Outcome};
use chrono::{DateTime, Utc};
use sea_orm::{DatabaseTransaction, DbErr, TransactionTrait};
use serde_json::Value;

use super::detect::record_revision;
use super::people::{self, Caller, DELEGATE_ONLY_WITH_DELEGATE, DELEGATE_REQUIRED};
use super::views::detail_of;
use super::{ApprovalError, EDIT_ONLY_WITH_EDIT, EDIT_REQUIRED, STALE, UNKNOWN_OUTCOME, closed_message};
use crate::db::Db;
use crate::db::entity::{decision, decision_execution, decision_request, task, task_command};
use crate::ingest::archive::digest;
use crate::ingest::bus::{Bus, Notice};
use crate::services::commands::{self, CommandBody, CommandConfig, CommandError, NewCommand};
use crate::store::access::Access;
use crate::store::approvals::{self as store, RequestStatus, RevisionAuthor};
use crate::store::{StoreError, agents, new_id, tasks};
use app::ext::canonical::ledger_json;

/// Records a decision (reference §4.8 `POST /api/decisions/{id}/decisions`). The same key with
/// the same body replays (`Ok((detail, true))`); with another body it is refused. Approve and
/// edit accept the command that sends the approved message in the same transaction; the
/// request moves out of `pending` only if it is still at `expectedRevision`, so concurrent
/// clicks make one decision and one command.
pub async fn decide(
    db: &Db,
    bus: &Bus,
    caller: &Caller,
    id: &str,
    input: DecisionInput,
    key: &str,
) -> Result<(ApprovalDetail, bool), ApprovalError> {
    match decide_once(db, bus, caller, id, &input, key).await {
        // A concurrent decision committed between this one's reads and its writes (the row
        // lock makes that rare; a unique index still has the last word): decide again, which
        // now sees it and answers the replay or the 409 it deserves.
        Err(ApprovalError::Store(StoreError::Db(error))) if is_unique_violation(&error) => {
            decide_once(db, bus, caller, id, &input, key).await
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

/// The outcome of a well-formed decision body, and its trimmed key.
fn check_input<'k>(input: &DecisionInput, key: &'k str) -> Result<(Outcome, &'k str), ApprovalError> {
    let key = key.trim();
    if key.is_empty() || key.chars().count() > commands::MAX_KEY_CHARS {
        return Err(ApprovalError::Invalid(commands::KEY_REQUIRED.into()));
    }
    let outcome =
        Outcome::parse(&input.outcome).ok_or_else(|| ApprovalError::Invalid(UNKNOWN_OUTCOME.into()))?;
    approval::check_rationale(outcome, input.rationale.as_deref())
        .map_err(|e| ApprovalError::Invalid(e.to_string()))?;
    match (outcome, &input.edit, &input.delegate_membership_id) {
        (Outcome::Edit, None, _) => Err(ApprovalError::Invalid(EDIT_REQUIRED.into())),
        (o, Some(_), _) if o != Outcome::Edit => Err(ApprovalError::Invalid(EDIT_ONLY_WITH_EDIT.into())),
        (Outcome::Delegate, _, None) => Err(ApprovalError::Invalid(DELEGATE_REQUIRED.into())),
        (o, _, Some(_)) if o != Outcome::Delegate => {
            Err(ApprovalError::Invalid(DELEGATE_ONLY_WITH_DELEGATE.into()))
        }
        _ => Ok((outcome, key)),
    }
}

/// The status a decision moves its request to; `None` for `delegate`, which leaves it open.
fn decided_status(outcome: Outcome) -> Option<RequestStatus> {
    match outcome {
        Outcome::Approve | Outcome::Edit => Some(RequestStatus::Approved),
        Outcome::Reject => Some(RequestStatus::Rejected),
        Outcome::RequestChanges => Some(RequestStatus::ChangesRequested),
        Outcome::Delegate => None,
    }
}

async fn decide_once(
    db: &Db,
    bus: &Bus,
    caller: &Caller,
    id: &str,
    input: &DecisionInput,
    key: &str,
) -> Result<(ApprovalDetail, bool), ApprovalError> {
    let (outcome, key) = check_input(input, key)?;
    let payload_digest = digest(ledger_json(&serde_json::to_value(input).unwrap_or(Value::Null)).as_bytes());
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApprovalError::NotFound);
    }
    let tx = db.write.begin().await?;
    // Locked: a concurrent decision on the request waits here, then sees this one's outcome,
    // its key included.
    let access = &caller.access;
    let row = store::find_locked(&tx, access, id)
        .await?
        .ok_or(ApprovalError::NotFound)?;
    // Readable but not operable: the reviewer's grant is `read` only (§4.1 "Checks").
    if !access.operates(&row.agent_id, row.skill_id.as_deref()) {
        return Err(ApprovalError::Forbidden(commands::NOT_PERMITTED.into()));
    }
    if let Some(existing) = store::decision_by_key(&tx, &row.id, key).await? {
        if existing.payload_digest != payload_digest {
            return Err(ApprovalError::Conflict(commands::KEY_CONFLICT.into()));
        }
        return Ok((detail_of(&tx, row).await?, true));
    }
    let now = Utc::now();
    let task = tasks::by_id(&tx, &row.task_id)
        .await?
        .ok_or(ApprovalError::NotFound)?;
    if let Some(status) = closing_status(&row, &task, now) {
        // The request cannot authorize anything any more; record why, then refuse.
        store::set_status(&tx, &row, status, row.current_revision, now).await?;
        tx.commit().await?;
        bus.publish(Notice::Approvals);
        return Err(ApprovalError::Conflict(closed_message(status.as_str())));
    }
    if !row.status.is_open() {
        return Err(ApprovalError::Conflict(closed_message(row.status.as_str())));
    }
    if input.expected_revision != row.current_revision {
        return Err(ApprovalError::Conflict(STALE.into()));
    }
    people::may_decide(&row, caller, outcome)?;
    let chosen = chosen_action(&tx, &row, outcome, input.edit.as_ref(), &caller.user_id, now).await?;
    // Fenced on the status and revision the reviewer saw: only one decision moves it.
    let moved = match (decided_status(outcome), &input.delegate_membership_id) {
        (Some(status), _) => store::set_status(&tx, &row, status, chosen.revision, now).await?,
        (None, Some(target)) => people::delegate(&tx, caller, &row, target, now).await?,
        (None, None) => return Err(ApprovalError::Invalid(DELEGATE_REQUIRED.into())),
    };
    if !moved {
        return Err(ApprovalError::Conflict(STALE.into()));
    }
    let decision_id = new_id();
    let decided = decision::Model {
        id: decision_id.clone(),
        request_id: row.id.clone(),
        revision: chosen.revision,
        outcome,
        rationale: input.rationale.clone().filter(|r| !r.trim().is_empty()),
        actor_user_id: Some(caller.user_id.clone()),
        reviewer_membership_id: Some(caller.membership_id.clone()),
        delegate_membership_id: input.delegate_membership_id.clone(),
        idempotency_key: key.to_owned(),
        payload_digest,
        created_at: now,
    };
    store::insert_decision(&tx, decided).await?;
    let accepted = match outcome {
        Outcome::Approve | Outcome::Edit => {
            Some(execute(&tx, &caller.access, &row, &task, &decision_id, chosen).await?)
        }
        _ => None,
    };
    let after = store::by_id(&tx, &row.id).await?.ok_or(ApprovalError::NotFound)?;
    let detail = detail_of(&tx, after).await?;
    tx.commit().await?;
    if let Some(command) = &accepted {
        commands::publish_accepted(bus, command);
    }
    bus.publish(Notice::Approvals);
    Ok((detail, false))
}

/// The action a decision authorizes, the revision it is and its digest.
struct Chosen {
    revision: i32,
    action: ApprovalAction,
    digest: String,
}

/// The current revision's action, or for an edit the edited action, stored as a new revision.
async fn chosen_action(
    tx: &DatabaseTransaction,
    row: &decision_request::Model,
    outcome: Outcome,
    edit: Option<&Value>,
    author_user_id: &str,
    now: DateTime<Utc>,
) -> Result<Chosen, ApprovalError> {
    let current = store::revision(tx, &row.id, row.current_revision)
        .await?
        .ok_or(ApprovalError::NotFound)?;
    let current_action: ApprovalAction = serde_json::from_value(current.action_json.clone())
        .map_err(|e| ApprovalError::Store(StoreError::Db(DbErr::Custom(e.to_string()))))?;
    let (Outcome::Edit, Some(edit)) = (outcome, edit) else {
        return Ok(Chosen {
            revision: row.current_revision,
            action: current_action,
            digest: current.digest,
        });
    };
    let edited: ApprovalAction = serde_json::from_value(edit.clone())
        .map_err(|e| ApprovalError::Unprocessable(format!("The edit is not a valid action: {e}")))?;
    let edited = approval::check_edit(&current_action, &edited)
        .map_err(|e| ApprovalError::Unprocessable(e.to_string()))?;
    let revision = row.current_revision + 1;
    let digest = record_revision(
        tx,
        &row.id,
        revision,
        &edited,
        RevisionAuthor::User,
        Some(author_user_id),
        now,
    )
    .await?;
    Ok(Chosen {
        revision,
        action: edited,
        digest,
    })
}

/// Why an open request can no longer authorize anything: expired, or its task finished.
fn closing_status(
    row: &decision_request::Model,
    task: &task::Model,
    now: DateTime<Utc>,
) -> Option<RequestStatus> {
    if !row.status.is_open() {
        return None;
    }
    if task.state.is_terminal() {
        Some(RequestStatus::Superseded)
    } else if row.expires_at <= now {
        Some(RequestStatus::Expired)
    } else {
        None
    }
}

/// Accepts the command that sends the approved message (key `decision:<id>`, messageId
/// `decision-<id>`, the task's skill re-applied) and records the execution.
async fn execute(
    tx: &DatabaseTransaction,
    access: &Access,
    row: &decision_request::Model,
    task: &task::Model,
    decision_id: &str,
    chosen: Chosen,
) -> Result<task_command::Model, ApprovalError> {
    let message = approval::approved_message(
        &chosen.action,
        &row.id,
        decision_id,
        chosen.revision.max(1) as u32,
        &chosen.digest,
    );
    let agent = agents::by_id(tx, &row.agent_id)
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
            // The reviewer's own grants: the same checks as any operator send (§4.1).
            access: access.clone(),
            agent,
            body: valid,
            idempotency_key: format!("decision:{decision_id}"),
            conversation_id: Some(task.conversation_id.clone()),
        },
    )
    .await?;
    let now = Utc::now();
    let execution = decision_execution::Model {
        id: new_id(),
        decision_id: decision_id.to_owned(),
        request_id: row.id.clone(),
        command_id: command.id.clone(),
        status: command.status,
        task_state: Some(task.state.as_v1_str().to_owned()),
        created_at: now,
        updated_at: now,
    };
    store::insert_execution(tx, execution).await?;
    Ok(command)
}
