//! The task rows ingestion folds into: found and locked (`FOR UPDATE` on PostgreSQL; SQLite has
//! one writer), created on first sight, and written back once per transaction. Only `ingest`
//! calls these; readers use [`tasks`](super::tasks).

use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, EntityTrait,
    QueryFilter, QuerySelect, QueryTrait, Select, Statement,
};

use crate::db::entity::task;

fn locked(tx: &DatabaseTransaction, select: Select<task::Entity>) -> Select<task::Entity> {
    if tx.get_database_backend() == DatabaseBackend::Postgres {
        select.lock_exclusive()
    } else {
        select
    }
}

/// The task by its local id, locked.
pub async fn lock(tx: &DatabaseTransaction, task_id: &str) -> Result<Option<task::Model>, DbErr> {
    locked(tx, task::Entity::find_by_id(task_id.to_owned()))
        .one(tx)
        .await
}

/// The agent's task by its remote identity, locked.
pub async fn lock_remote(
    tx: &DatabaseTransaction,
    agent_id: &str,
    tenant: &str,
    remote_task_id: &str,
) -> Result<Option<task::Model>, DbErr> {
    let select = task::Entity::find()
        .filter(task::Column::AgentId.eq(agent_id))
        .filter(task::Column::Tenant.eq(tenant))
        .filter(task::Column::RemoteTaskId.eq(remote_task_id));
    locked(tx, select).one(tx).await
}

/// The task by its local id, not locked (a row this transaction just created).
pub async fn find(tx: &DatabaseTransaction, task_id: &str) -> Result<Option<task::Model>, DbErr> {
    find_any(tx, task_id).await
}

/// The task by its local id in any organization (the operator's tools name tasks by id alone).
pub async fn find_any<C: ConnectionTrait>(db: &C, task_id: &str) -> Result<Option<task::Model>, DbErr> {
    task::Entity::find_by_id(task_id.to_owned()).one(db).await
}

/// Inserts a task row unless the agent's remote task already has one (a concurrent first sight).
pub async fn insert_if_absent(tx: &DatabaseTransaction, row: task::Model) -> Result<(), DbErr> {
    let row = task::ActiveModel {
        id: Set(row.id),
        organization_id: Set(row.organization_id),
        agent_id: Set(row.agent_id),
        conversation_id: Set(row.conversation_id),
        tenant: Set(row.tenant),
        remote_task_id: Set(row.remote_task_id),
        remote_context_id: Set(row.remote_context_id),
        kind: Set(row.kind),
        state: Set(row.state),
        state_timestamp: Set(row.state_timestamp),
        title: Set(row.title),
        skill_id: Set(row.skill_id),
        turn: Set(row.turn),
        version: Set(row.version),
        last_sequence: Set(row.last_sequence),
        message_count: Set(row.message_count),
        transition_count: Set(row.transition_count),
        created_at: Set(row.created_at),
        updated_at: Set(row.updated_at),
        terminal_at: Set(row.terminal_at),
    };
    task::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                task::Column::AgentId,
                task::Column::Tenant,
                task::Column::RemoteTaskId,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(tx)
        .await?;
    Ok(())
}

/// The write of what folding changed on a task row (state, identity, counters), as a statement
/// to send with the transaction's other writes; identity and scheduling columns ingestion does
/// not fold stay as they are.
pub fn folded_update(backend: DatabaseBackend, row: task::Model) -> Result<Statement, DbErr> {
    let active = task::ActiveModel {
        id: sea_orm::ActiveValue::Unchanged(row.id),
        remote_task_id: Set(row.remote_task_id),
        remote_context_id: Set(row.remote_context_id),
        state: Set(row.state),
        state_timestamp: Set(row.state_timestamp),
        title: Set(row.title),
        turn: Set(row.turn),
        version: Set(row.version),
        last_sequence: Set(row.last_sequence),
        message_count: Set(row.message_count),
        transition_count: Set(row.transition_count),
        updated_at: Set(row.updated_at),
        terminal_at: Set(row.terminal_at),
        ..Default::default()
    };
    Ok(task::Entity::update(active).validate()?.build(backend))
}

/// Writes a rebuilt task row: the folded columns, its version bumped, `updated_at` now.
pub async fn write_rebuilt(tx: &DatabaseTransaction, row: &task::Model) -> Result<(), DbErr> {
    let active = task::ActiveModel {
        id: sea_orm::ActiveValue::Unchanged(row.id.clone()),
        remote_task_id: Set(row.remote_task_id.clone()),
        remote_context_id: Set(row.remote_context_id.clone()),
        state: Set(row.state.clone()),
        state_timestamp: Set(row.state_timestamp.clone()),
        title: Set(row.title.clone()),
        message_count: Set(row.message_count),
        transition_count: Set(row.transition_count),
        version: Set(row.version + 1),
        terminal_at: Set(row.terminal_at),
        updated_at: Set(chrono::Utc::now()),
        ..Default::default()
    };
    task::Entity::update(active).exec(tx).await?;
    Ok(())
}
