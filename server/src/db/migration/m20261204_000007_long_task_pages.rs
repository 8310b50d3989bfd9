//! Issue #33: a task page opens in the same time however long the task's ledger is (ADR 0035).
//! The page shows a task's newest messages: an index on `(task_id, sequence, id)` reads them
//! without sorting all of them. It says how many messages and status transitions the task has
//! beyond those it shows: the task row keeps the two counts, written by ingestion with the row.
//! Existing tasks are counted once here. On PostgreSQL with several replicas, stop the old
//! version's replicas before migrating: they would write tasks without counting.

use sea_orm::ConnectionTrait;
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Tasks {
    Table,
    MessageCount,
    TransitionCount,
}

#[derive(DeriveIden)]
enum TaskMessages {
    Table,
    TaskId,
    Sequence,
    Id,
}

/// The index the task page's newest messages are read by.
const MESSAGES_BY_SEQUENCE: &str = "ix_task_messages_task_sequence";

/// The counts of the tasks that existed before (same SQL on SQLite and PostgreSQL).
pub const BACKFILL: &str = "UPDATE tasks SET \
     message_count = (SELECT COUNT(*) FROM task_messages m WHERE m.task_id = tasks.id), \
     transition_count = (SELECT COUNT(*) FROM task_transitions t WHERE t.task_id = tasks.id)";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    /// In one transaction on SQLite too: a backfill cut short leaves no half-added columns.
    fn use_transaction(&self) -> Option<bool> {
        Some(true)
    }

    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for column in [Tasks::MessageCount, Tasks::TransitionCount] {
            m.alter_table(
                Table::alter()
                    .table(Tasks::Table)
                    .add_column(ColumnDef::new(column).big_integer().not_null().default(0))
                    .to_owned(),
            )
            .await?;
        }
        m.get_connection().execute_unprepared(BACKFILL).await?;
        m.create_index(super::index(
            MESSAGES_BY_SEQUENCE,
            TaskMessages::Table,
            cols![TaskMessages::TaskId, TaskMessages::Sequence, TaskMessages::Id],
            false,
        ))
        .await?;
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_index(
            Index::drop()
                .name(MESSAGES_BY_SEQUENCE)
                .table(TaskMessages::Table)
                .to_owned(),
        )
        .await?;
        for column in [Tasks::MessageCount, Tasks::TransitionCount] {
            m.alter_table(Table::alter().table(Tasks::Table).drop_column(column).to_owned())
                .await?;
        }
        Ok(())
    }
}
