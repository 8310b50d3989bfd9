//! Commands (`task_commands`): a send or cancel stored before it is dispatched, found again by
//! its idempotency key or id, and moved between dispatch statuses only from the status the
//! caller expects, so two workers can never both move one command to `dispatching` (and both
//! send it).

use chrono::Utc;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder};
use serde_json::Value;

use super::StoreError;
use super::access::Access;
use crate::db::Db;
use crate::db::entity::task_command;

pub use app::words::{CommandAction, CommandStatus};

/// The command with `key` in the organization, if one was accepted under it.
pub async fn by_key<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    key: &str,
) -> Result<Option<task_command::Model>, DbErr> {
    task_command::Entity::find()
        .filter(task_command::Column::OrganizationId.eq(organization_id))
        .filter(task_command::Column::IdempotencyKey.eq(key))
        .one(db)
        .await
}

/// Inserts `command` unless its organization already has a command under its idempotency key;
/// `false` when it had (another request with the key committed first) and nothing was written.
pub async fn insert<C: ConnectionTrait>(db: &C, command: task_command::Model) -> Result<bool, DbErr> {
    let inserted = task_command::Entity::insert(task_command::ActiveModel::from(command).reset_all())
        .on_conflict(
            OnConflict::columns([
                task_command::Column::OrganizationId,
                task_command::Column::IdempotencyKey,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(inserted == 1)
}

/// The command with `id`, of any organization (workers and transactions that already know it).
pub async fn by_id<C: ConnectionTrait>(db: &C, id: &str) -> Result<Option<task_command::Model>, DbErr> {
    task_command::Entity::find_by_id(id.to_owned()).one(db).await
}

/// A command of the organization that `access` reads, by id (`NotFound` for anything else,
/// including non-UUIDs).
pub async fn find(db: &Db, access: &Access, id: &str) -> Result<task_command::Model, StoreError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(StoreError::NotFound);
    }
    task_command::Entity::find_by_id(id.to_owned())
        .filter(task_command::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.rows(task_command::Column::AgentId, task_command::Column::SkillId))
        .one(&db.read)
        .await?
        .ok_or(StoreError::NotFound)
}

/// The commands of a conversation that `access` reads, oldest first.
pub async fn of_conversation(
    db: &Db,
    access: &Access,
    conversation_id: &str,
) -> Result<Vec<task_command::Model>, StoreError> {
    Ok(task_command::Entity::find()
        .filter(task_command::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.rows(task_command::Column::AgentId, task_command::Column::SkillId))
        .filter(task_command::Column::ConversationId.eq(conversation_id))
        .order_by_asc(task_command::Column::CreatedAt)
        .all(&db.read)
        .await?)
}

/// What a status change writes besides the status.
#[derive(Debug, Default)]
pub struct Change {
    pub attempts: Option<i32>,
    /// `Some(None)` clears the error.
    pub last_error: Option<Option<String>>,
    pub task_id: Option<Option<String>>,
    pub result_json: Option<Value>,
}

/// Moves command `id` from `from` to `to`, only if it still is `from`; `false` when it was not
/// (another worker moved it first) and nothing was written.
pub async fn transition<C: ConnectionTrait>(
    db: &C,
    id: &str,
    from: CommandStatus,
    to: CommandStatus,
    change: Change,
) -> Result<bool, DbErr> {
    let mut update = task_command::Entity::update_many()
        .col_expr(task_command::Column::Status, Expr::value(to.as_str()))
        .col_expr(task_command::Column::UpdatedAt, Expr::value(Utc::now()));
    if let Some(attempts) = change.attempts {
        update = update.col_expr(task_command::Column::Attempts, Expr::value(attempts));
    }
    if let Some(error) = change.last_error {
        update = update.col_expr(task_command::Column::LastError, Expr::value(error));
    }
    if let Some(task_id) = change.task_id {
        update = update.col_expr(task_command::Column::TaskId, Expr::value(task_id));
    }
    if let Some(result) = change.result_json {
        update = update.col_expr(task_command::Column::ResultJson, Expr::value(result));
    }
    let done = update
        .filter(task_command::Column::Id.eq(id))
        .filter(task_command::Column::Status.eq(from.as_str()))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}
