//! Issue #27: following a task ends only at a terminal state, and a task waiting for input is
//! polled. Before, following stopped at input-required and auth-required, so the subscriptions
//! of tasks already waiting are `stopped` and would never be read again: they are made due now.
//! Nothing to undo on the way down (the rows are as a worker would leave them).

use sea_orm::ConnectionTrait;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Stopped subscriptions of waiting tasks, made due (same SQL on SQLite and PostgreSQL; the
/// timestamp is the database's own clock, as text in the format sea-orm reads back).
pub const RESUME: &str = "UPDATE task_subscriptions SET status = 'pending', attempts = 0, \
     available_at = updated_at, last_error = NULL \
     WHERE status = 'stopped' AND task_id IN (SELECT id FROM tasks WHERE kind = 'task' \
     AND remote_task_id IS NOT NULL \
     AND state IN ('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'))";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.get_connection().execute_unprepared(RESUME).await?;
        Ok(())
    }

    async fn down(&self, _m: &SchemaManager) -> Result<(), DbErr> {
        Ok(())
    }
}
