//! The projection rows ingestion folds events into: transitions, messages, artifacts and their
//! chunks. Only `ingest` writes through these (inside its transaction); readers use
//! [`tasks`](super::tasks).

use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QueryTrait, Statement,
};
use serde_json::Value;

use super::new_id;
use crate::db::entity::{task_artifact, task_artifact_chunk, task_message, task_transition};

/// Records that the task moved to `state` with the event at `sequence` (a statement to send
/// with the transaction's other writes, [`Deferred`](super::deferred::Deferred)).
pub fn transition_insert(
    backend: DatabaseBackend,
    task_id: &str,
    state: &app::a2a::TaskState,
    timestamp: Option<String>,
    sequence: i64,
) -> Statement {
    task_transition::Entity::insert(task_transition::ActiveModel {
        id: Set(new_id()),
        task_id: Set(task_id.to_owned()),
        state: Set(state.clone()),
        timestamp: Set(timestamp),
        sequence: Set(sequence),
    })
    .build(backend)
}

/// Inserts a message unless the task has one with its `dedupe_key`; the rows inserted (0 or 1).
pub async fn insert_message(tx: &DatabaseTransaction, message: task_message::Model) -> Result<u64, DbErr> {
    let statement = task_message::Entity::insert(message_row(message))
        .on_conflict(message_conflict())
        .build(tx.get_database_backend());
    tx.execute_raw(statement).await.map(|done| done.rows_affected())
}

/// Messages the caller knows the task does not have yet (it checked under the task's row lock,
/// [`probe`](super::probe)), as statements of at most [`ROWS_PER_INSERT`] rows each.
pub fn messages_insert(backend: DatabaseBackend, messages: Vec<task_message::Model>) -> Vec<Statement> {
    let mut rows = messages.into_iter().map(message_row).peekable();
    let mut statements = Vec::new();
    while rows.peek().is_some() {
        let part: Vec<_> = rows.by_ref().take(ROWS_PER_INSERT).collect();
        statements.push(
            task_message::Entity::insert_many(part)
                .on_conflict(message_conflict())
                .build(backend),
        );
    }
    statements
}

/// Rows of one multi-row `INSERT` at most: 13 columns each stay far below the parameter limits.
const ROWS_PER_INSERT: usize = 1_000;

fn message_conflict() -> OnConflict {
    OnConflict::columns([task_message::Column::TaskId, task_message::Column::DedupeKey])
        .do_nothing()
        .to_owned()
}

fn message_row(message: task_message::Model) -> task_message::ActiveModel {
    task_message::ActiveModel {
        id: Set(message.id),
        task_id: Set(message.task_id),
        dedupe_key: Set(message.dedupe_key),
        message_id: Set(message.message_id),
        role: Set(message.role),
        parts_json: Set(message.parts_json),
        from_status: Set(message.from_status),
        state: Set(message.state),
        timestamp: Set(message.timestamp),
        metadata_json: Set(message.metadata_json),
        extensions_json: Set(message.extensions_json),
        reference_task_ids_json: Set(message.reference_task_ids_json),
        sequence: Set(message.sequence),
    }
}

/// The task's artifact by its id.
pub async fn find_artifact(
    tx: &DatabaseTransaction,
    task_id: &str,
    artifact_id: &str,
) -> Result<Option<task_artifact::Model>, DbErr> {
    task_artifact::Entity::find()
        .filter(task_artifact::Column::TaskId.eq(task_id))
        .filter(task_artifact::Column::ArtifactId.eq(artifact_id))
        .one(tx)
        .await
}

/// Writes an artifact row whole: an update when it `exists`, else an insert.
pub async fn save_artifact(
    tx: &DatabaseTransaction,
    artifact: task_artifact::Model,
    exists: bool,
) -> Result<(), DbErr> {
    let row = artifact_row(artifact);
    if exists {
        task_artifact::Entity::update(row)
            .exec_without_returning(tx)
            .await?;
    } else {
        task_artifact::Entity::insert(row)
            .exec_without_returning(tx)
            .await?;
    }
    Ok(())
}

/// The update of an existing artifact row, as a statement.
pub fn artifact_update(backend: DatabaseBackend, artifact: task_artifact::Model) -> Result<Statement, DbErr> {
    Ok(task_artifact::Entity::update(artifact_row(artifact))
        .validate()?
        .build(backend))
}

fn artifact_row(artifact: task_artifact::Model) -> task_artifact::ActiveModel {
    task_artifact::ActiveModel {
        id: Set(artifact.id),
        task_id: Set(artifact.task_id),
        artifact_id: Set(artifact.artifact_id),
        name: Set(artifact.name),
        description: Set(artifact.description),
        metadata_json: Set(artifact.metadata_json),
        extensions_json: Set(artifact.extensions_json),
        streaming: Set(artifact.streaming),
        chunks: Set(artifact.chunks),
        sequence: Set(artifact.sequence),
        position: Set(artifact.position),
    }
}

/// Drops an artifact's chunks (a replacement starts its assembly again).
pub async fn clear_chunks(tx: &DatabaseTransaction, task_id: &str, artifact_id: &str) -> Result<(), DbErr> {
    task_artifact_chunk::Entity::delete_many()
        .filter(task_artifact_chunk::Column::TaskId.eq(task_id))
        .filter(task_artifact_chunk::Column::ArtifactId.eq(artifact_id))
        .exec(tx)
        .await?;
    Ok(())
}

/// An artifact's chunks in order.
pub async fn chunks_of(
    tx: &DatabaseTransaction,
    task_id: &str,
    artifact_id: &str,
) -> Result<Vec<task_artifact_chunk::Model>, DbErr> {
    task_artifact_chunk::Entity::find()
        .filter(task_artifact_chunk::Column::TaskId.eq(task_id))
        .filter(task_artifact_chunk::Column::ArtifactId.eq(artifact_id))
        .order_by_asc(task_artifact_chunk::Column::ChunkIndex)
        .all(tx)
        .await
}

/// A chunk row, for [`insert_chunks`].
pub fn chunk_row(
    task_id: &str,
    artifact_id: &str,
    index: i32,
    parts: Value,
) -> task_artifact_chunk::ActiveModel {
    task_artifact_chunk::ActiveModel {
        id: Set(new_id()),
        task_id: Set(task_id.to_owned()),
        artifact_id: Set(artifact_id.to_owned()),
        chunk_index: Set(index),
        parts_json: Set(parts),
    }
}

/// Adds chunk rows (one multi-row `INSERT`).
pub async fn insert_chunks(
    tx: &DatabaseTransaction,
    rows: Vec<task_artifact_chunk::ActiveModel>,
) -> Result<(), DbErr> {
    if let Some(statement) = chunks_insert(tx.get_database_backend(), rows) {
        tx.execute_raw(statement).await?;
    }
    Ok(())
}

/// [`insert_chunks`] as a statement; none for no rows.
pub fn chunks_insert(
    backend: DatabaseBackend,
    rows: Vec<task_artifact_chunk::ActiveModel>,
) -> Option<Statement> {
    if rows.is_empty() {
        return None;
    }
    Some(task_artifact_chunk::Entity::insert_many(rows).build(backend))
}
