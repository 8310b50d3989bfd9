//! The dispatch worker's queries (`shared/spec/security-and-durability.md` §3.4): due outbox
//! rows, and command status changes that are conditional on the status the worker expects, so
//! two workers can never both move one command to `dispatching` (and both send it).

use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::Value;

use super::leases::OUTBOX;
use crate::db::entity::{outbox_message, task_command};

/// A command's dispatch status (`task_commands.status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandStatus {
    /// Stored, not sent yet (also after a discovery failure that will be retried).
    Pending,
    /// The request is going out (or went out) under a dispatch lease.
    Dispatching,
    Succeeded,
    Failed,
    /// The request left and its outcome is unknown; never resent.
    Uncertain,
}

impl CommandStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CommandStatus::Pending => "pending",
            CommandStatus::Dispatching => "dispatching",
            CommandStatus::Succeeded => "succeeded",
            CommandStatus::Failed => "failed",
            CommandStatus::Uncertain => "uncertain",
        }
    }

    pub fn parse(status: &str) -> Option<CommandStatus> {
        [
            CommandStatus::Pending,
            CommandStatus::Dispatching,
            CommandStatus::Succeeded,
            CommandStatus::Failed,
            CommandStatus::Uncertain,
        ]
        .into_iter()
        .find(|s| s.as_str() == status)
    }
}

/// Up to `limit` outbox rows of `topic` that may be claimed now, oldest first.
pub async fn due<C: ConnectionTrait>(
    db: &C,
    topic: &str,
    limit: u64,
) -> Result<Vec<outbox_message::Model>, DbErr> {
    outbox_message::Entity::find()
        .filter(outbox_message::Column::Topic.eq(topic))
        .filter(OUTBOX.due(Utc::now()))
        .order_by_asc(outbox_message::Column::AvailableAt)
        .limit(limit)
        .all(db)
        .await
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
