//! Approval requests and what hangs off them (`decision_requests`, `decision_revisions`,
//! `decisions`, `decision_executions`; `shared/spec/reference.md` §1.2, §4.8). A request's status
//! only moves from the status (and revision) it was read with, so concurrent decisions and
//! sweeps never overwrite each other.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseTransaction, DbErr,
    EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};

use super::access::Access;
use super::new_id;
use crate::db::entity::{decision, decision_execution, decision_request, decision_revision, task_message};

/// Most requests one list returns.
pub const LIST_LIMIT: u64 = 100;

pub use app::api::approvals::RevisionAuthor;
/// What a person decided (`decisions.outcome`).
pub use app::ext::approval::Outcome as DecisionOutcome;
pub use app::ext::approval::RequestStatus;

/// The latest prompt an agent put in a status of task `task_id` (where an approval request is
/// read from).
pub async fn latest_prompt<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
) -> Result<Option<task_message::Model>, DbErr> {
    task_message::Entity::find()
        .filter(task_message::Column::TaskId.eq(task_id))
        .filter(task_message::Column::FromStatus.eq(true))
        .filter(task_message::Column::Role.eq(app::a2a::Role::Agent.as_v1_str()))
        .order_by_desc(task_message::Column::Sequence)
        .one(db)
        .await
}

/// Inserts `request` unless its organization already has one under its request key; `false`
/// when it had (the same prompt seen again) and nothing was written.
pub async fn insert_request<C: ConnectionTrait>(
    db: &C,
    request: decision_request::Model,
) -> Result<bool, DbErr> {
    let inserted = decision_request::Entity::insert(decision_request::ActiveModel::from(request).reset_all())
        .on_conflict(
            OnConflict::columns([
                decision_request::Column::OrganizationId,
                decision_request::Column::RequestKey,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(inserted == 1)
}

/// Supersedes every open request of task `task_id` but `keep` (one live approval per task).
pub async fn supersede_others<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
    keep: &str,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    Ok(decision_request::Entity::update_many()
        .col_expr(
            decision_request::Column::Status,
            Expr::value(RequestStatus::Superseded.as_str()),
        )
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .filter(decision_request::Column::TaskId.eq(task_id))
        .filter(decision_request::Column::Id.ne(keep))
        .filter(decision_request::Column::Status.is_in(RequestStatus::OPEN))
        .exec(db)
        .await?
        .rows_affected)
}

/// A revision of a request's action, as stored.
#[derive(Debug)]
pub struct NewRevision<'a> {
    pub request_id: &'a str,
    pub revision: i32,
    pub action: serde_json::Value,
    pub digest: &'a str,
    pub author: RevisionAuthor,
    /// The person, for a revision by `user`.
    pub author_user_id: Option<&'a str>,
    pub now: DateTime<Utc>,
}

/// Stores a revision of a request's action.
pub async fn insert_revision<C: ConnectionTrait>(db: &C, revision: NewRevision<'_>) -> Result<(), DbErr> {
    decision_revision::Entity::insert(decision_revision::ActiveModel {
        id: Set(new_id()),
        request_id: Set(revision.request_id.to_owned()),
        revision: Set(revision.revision),
        action_json: Set(revision.action),
        digest: Set(revision.digest.to_owned()),
        author_type: Set(revision.author),
        author_user_id: Set(revision.author_user_id.map(str::to_owned)),
        created_at: Set(revision.now),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Requests of the organization, newest first (at most [`LIST_LIMIT`]), optionally of one
/// status and task.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    status: Option<&str>,
    task_id: Option<&str>,
    assigned_to: Option<&str>,
) -> Result<Vec<decision_request::Model>, DbErr> {
    let mut query = decision_request::Entity::find()
        .filter(decision_request::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.rows(
            decision_request::Column::AgentId,
            decision_request::Column::SkillId,
        ))
        .order_by_desc(decision_request::Column::CreatedAt)
        .limit(LIST_LIMIT);
    if let Some(status) = status {
        query = query.filter(decision_request::Column::Status.eq(status));
    }
    if let Some(task_id) = task_id {
        query = query.filter(decision_request::Column::TaskId.eq(task_id));
    }
    if let Some(membership_id) = assigned_to {
        query = query.filter(decision_request::Column::AssignedMembershipId.eq(membership_id));
    }
    query.all(db).await
}

/// How many pending requests that `access` reads have not expired at `now`.
pub async fn count_pending<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    decision_request::Entity::find()
        .filter(decision_request::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.rows(
            decision_request::Column::AgentId,
            decision_request::Column::SkillId,
        ))
        .filter(decision_request::Column::Status.eq(RequestStatus::Pending.as_str()))
        .filter(decision_request::Column::ExpiresAt.gt(now))
        .count(db)
        .await
}

/// The request `id` of the organization, if `access` reads it.
pub async fn find<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    id: &str,
) -> Result<Option<decision_request::Model>, DbErr> {
    decision_request::Entity::find_by_id(id.to_owned())
        .filter(decision_request::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.rows(
            decision_request::Column::AgentId,
            decision_request::Column::SkillId,
        ))
        .one(db)
        .await
}

/// [`find`] under the row lock (PostgreSQL; SQLite has one writer), for a transaction that
/// may change the request: a concurrent decision waits here, then sees this one's outcome.
pub async fn find_locked(
    tx: &DatabaseTransaction,
    access: &Access,
    id: &str,
) -> Result<Option<decision_request::Model>, DbErr> {
    let select = decision_request::Entity::find_by_id(id.to_owned())
        .filter(decision_request::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.rows(
            decision_request::Column::AgentId,
            decision_request::Column::SkillId,
        ));
    let select = if tx.get_database_backend() == sea_orm::DatabaseBackend::Postgres {
        select.lock_exclusive()
    } else {
        select
    };
    select.one(tx).await
}

/// The request opened under `request_key` in the organization, if any (a replayed open).
pub async fn by_request_key<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    request_key: &str,
) -> Result<Option<decision_request::Model>, DbErr> {
    decision_request::Entity::find()
        .filter(decision_request::Column::OrganizationId.eq(organization_id))
        .filter(decision_request::Column::RequestKey.eq(request_key))
        .one(db)
        .await
}

/// The request with `id`, of any organization.
pub async fn by_id<C: ConnectionTrait>(db: &C, id: &str) -> Result<Option<decision_request::Model>, DbErr> {
    decision_request::Entity::find_by_id(id.to_owned()).one(db).await
}

/// The revisions of a request, oldest first.
pub async fn revisions<C: ConnectionTrait>(
    db: &C,
    request_id: &str,
) -> Result<Vec<decision_revision::Model>, DbErr> {
    decision_revision::Entity::find()
        .filter(decision_revision::Column::RequestId.eq(request_id))
        .order_by_asc(decision_revision::Column::Revision)
        .all(db)
        .await
}

/// Revision `revision` of a request.
pub async fn revision<C: ConnectionTrait>(
    db: &C,
    request_id: &str,
    revision: i32,
) -> Result<Option<decision_revision::Model>, DbErr> {
    decision_revision::Entity::find()
        .filter(decision_revision::Column::RequestId.eq(request_id))
        .filter(decision_revision::Column::Revision.eq(revision))
        .one(db)
        .await
}

/// The decisions on a request, oldest first.
pub async fn decisions<C: ConnectionTrait>(db: &C, request_id: &str) -> Result<Vec<decision::Model>, DbErr> {
    decision::Entity::find()
        .filter(decision::Column::RequestId.eq(request_id))
        .order_by_asc(decision::Column::CreatedAt)
        .all(db)
        .await
}

/// The decision made on a request under idempotency key `key`, if any.
pub async fn decision_by_key<C: ConnectionTrait>(
    db: &C,
    request_id: &str,
    key: &str,
) -> Result<Option<decision::Model>, DbErr> {
    decision::Entity::find()
        .filter(decision::Column::RequestId.eq(request_id))
        .filter(decision::Column::IdempotencyKey.eq(key))
        .one(db)
        .await
}

/// Stores a decision.
pub async fn insert_decision<C: ConnectionTrait>(db: &C, decision: decision::Model) -> Result<(), DbErr> {
    decision::Entity::insert(decision::ActiveModel::from(decision).reset_all())
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// The executions of a request's decisions.
pub async fn executions<C: ConnectionTrait>(
    db: &C,
    request_id: &str,
) -> Result<Vec<decision_execution::Model>, DbErr> {
    decision_execution::Entity::find()
        .filter(decision_execution::Column::RequestId.eq(request_id))
        .all(db)
        .await
}

/// Stores an execution: the command that carries a decision to the agent.
pub async fn insert_execution<C: ConnectionTrait>(
    db: &C,
    execution: decision_execution::Model,
) -> Result<(), DbErr> {
    decision_execution::Entity::insert(decision_execution::ActiveModel::from(execution).reset_all())
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// Moves a request from the status and revision it had when read (`seen`) to `to` at
/// `revision`; `false` when someone else moved it, or added a revision, first.
pub async fn set_status<C: ConnectionTrait>(
    db: &C,
    seen: &decision_request::Model,
    to: RequestStatus,
    revision: i32,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let result = unchanged_since(seen)
        .col_expr(decision_request::Column::Status, Expr::value(to.as_str()))
        .col_expr(decision_request::Column::CurrentRevision, Expr::value(revision))
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .exec(db)
        .await?;
    Ok(result.rows_affected == 1)
}

/// An update of the request `seen` that applies only while its status and revision are still
/// the ones read: the fence every change of a request goes through.
fn unchanged_since(seen: &decision_request::Model) -> sea_orm::UpdateMany<decision_request::Entity> {
    decision_request::Entity::update_many()
        .filter(decision_request::Column::Id.eq(&seen.id))
        .filter(decision_request::Column::Status.eq(seen.status))
        .filter(decision_request::Column::CurrentRevision.eq(seen.current_revision))
}

/// Assigns the request to `membership_id` (a delegation), only if it is still as `seen`; `false`
/// when another decision moved it first.
pub async fn assign<C: ConnectionTrait>(
    db: &C,
    seen: &decision_request::Model,
    membership_id: &str,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let result = unchanged_since(seen)
        .col_expr(
            decision_request::Column::AssignedMembershipId,
            Expr::value(membership_id),
        )
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .exec(db)
        .await?;
    Ok(result.rows_affected == 1)
}

/// Expires every open request whose deadline is `now` or earlier; how many.
pub async fn expire_overdue<C: ConnectionTrait>(db: &C, now: DateTime<Utc>) -> Result<u64, DbErr> {
    Ok(decision_request::Entity::update_many()
        .col_expr(
            decision_request::Column::Status,
            Expr::value(RequestStatus::Expired.as_str()),
        )
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .filter(decision_request::Column::Status.is_in(RequestStatus::OPEN))
        .filter(decision_request::Column::ExpiresAt.lte(now))
        .exec(db)
        .await?
        .rows_affected)
}

/// Every open request, of every organization.
pub async fn open<C: ConnectionTrait>(db: &C) -> Result<Vec<decision_request::Model>, DbErr> {
    decision_request::Entity::find()
        .filter(decision_request::Column::Status.is_in(RequestStatus::OPEN))
        .all(db)
        .await
}

/// Supersedes request `seen` if it still has the status it was read with; how many (0 or 1).
pub async fn supersede<C: ConnectionTrait>(
    db: &C,
    seen: &decision_request::Model,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    Ok(decision_request::Entity::update_many()
        .col_expr(
            decision_request::Column::Status,
            Expr::value(RequestStatus::Superseded.as_str()),
        )
        .col_expr(decision_request::Column::UpdatedAt, Expr::value(now))
        .filter(decision_request::Column::Id.eq(&seen.id))
        .filter(decision_request::Column::Status.eq(seen.status))
        .exec(db)
        .await?
        .rows_affected)
}
