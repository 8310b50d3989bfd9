//! The event ledger as ingestion writes it: the append-only events, the artifact access rows
//! beside them, and the projection reset and event list of a rebuild (the organization's sequence
//! counter is [`sequences`](super::sequences)). Only `ingest` calls these; readers of the ledger
//! use [`tasks`](super::tasks).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, EntityTrait,
    QueryFilter, QueryOrder, QueryTrait, Statement,
};
use serde_json::Value;

use super::new_id;
use crate::db::Db;
use crate::db::entity::{
    artifact_access, task, task_artifact, task_artifact_chunk, task_event, task_message, task_transition,
};

/// One event to append.
pub struct NewEvent<'a> {
    pub organization_id: &'a str,
    pub task_id: &'a str,
    pub sequence: i64,
    pub source: &'a str,
    pub event_kind: &'a str,
    pub source_key: String,
    pub payload_digest: String,
    pub payload: Value,
    pub extensions: &'a [String],
    pub protocol_version: Option<String>,
    pub remote_timestamp: Option<String>,
    pub received_at: DateTime<Utc>,
}

/// An archived object a task's event referenced.
pub struct NewAccess<'a> {
    pub organization_id: &'a str,
    pub task_id: &'a str,
    pub digest: &'a str,
    pub media_type: Option<String>,
    pub filename: Option<String>,
    pub size: u64,
}

/// Appends one event unless the task already has the event `(source, source_key)`
/// (de-duplication, by the ledger's unique key): `false` for a duplicate, which writes nothing.
pub async fn append(tx: &DatabaseTransaction, event: NewEvent<'_>) -> Result<bool, DbErr> {
    let inserted = task_event::Entity::insert(event_row(event))
        .on_conflict(
            OnConflict::columns([
                task_event::Column::TaskId,
                task_event::Column::Source,
                task_event::Column::SourceKey,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(tx)
        .await?;
    Ok(inserted == 1)
}

/// Events of one locked task gathered in a transaction, appended by [`append_all`] in one
/// statement. The caller de-duplicates them first ([`probe`](super::probe)).
#[derive(Default)]
pub struct EventRows(Vec<task_event::ActiveModel>);

impl EventRows {
    pub fn push(&mut self, event: NewEvent<'_>) {
        self.0.push(event_row(event));
    }
}

/// Appends the gathered events (a multi-row `INSERT`). A duplicate key fails it: the caller
/// checked them under the task's row lock, so none can have appeared since.
pub async fn append_all(tx: &DatabaseTransaction, rows: EventRows) -> Result<(), DbErr> {
    if let Some(statement) = append_all_statement(tx.get_database_backend(), rows) {
        tx.execute_raw(statement).await?;
    }
    Ok(())
}

/// [`append_all`] as a statement, to send with the transaction's other writes; none for no rows.
pub fn append_all_statement(backend: DatabaseBackend, rows: EventRows) -> Option<Statement> {
    if rows.0.is_empty() {
        return None;
    }
    Some(task_event::Entity::insert_many(rows.0).build(backend))
}

fn event_row(event: NewEvent<'_>) -> task_event::ActiveModel {
    task_event::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(event.organization_id.to_owned()),
        task_id: Set(event.task_id.to_owned()),
        sequence: Set(event.sequence),
        source: Set(event.source.to_owned()),
        event_kind: Set(event.event_kind.to_owned()),
        source_key: Set(event.source_key),
        payload_digest: Set(event.payload_digest),
        payload_json: Set(event.payload),
        extensions_json: Set(serde_json::json!(event.extensions)),
        protocol_version: Set(event.protocol_version),
        remote_timestamp: Set(event.remote_timestamp),
        received_at: Set(event.received_at),
    }
}

/// Records that the task referenced an archived object (once per task and object).
pub async fn record_access(tx: &DatabaseTransaction, access: NewAccess<'_>) -> Result<(), DbErr> {
    artifact_access::Entity::insert(artifact_access::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(access.organization_id.to_owned()),
        task_id: Set(access.task_id.to_owned()),
        digest: Set(access.digest.to_owned()),
        media_type: Set(access.media_type),
        filename: Set(access.filename),
        size: Set(access.size as i64),
        created_at: Set(Utc::now()),
    })
    .on_conflict(
        OnConflict::columns([artifact_access::Column::TaskId, artifact_access::Column::Digest])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(tx)
    .await?;
    Ok(())
}

/// Drops a task's projection rows (messages, artifacts and their chunks, transitions) before a
/// rebuild folds its ledger again.
pub async fn clear_projections(tx: &DatabaseTransaction, task_id: &str) -> Result<(), DbErr> {
    task_message::Entity::delete_many()
        .filter(task_message::Column::TaskId.eq(task_id))
        .exec(tx)
        .await?;
    task_artifact_chunk::Entity::delete_many()
        .filter(task_artifact_chunk::Column::TaskId.eq(task_id))
        .exec(tx)
        .await?;
    task_artifact::Entity::delete_many()
        .filter(task_artifact::Column::TaskId.eq(task_id))
        .exec(tx)
        .await?;
    task_transition::Entity::delete_many()
        .filter(task_transition::Column::TaskId.eq(task_id))
        .exec(tx)
        .await?;
    Ok(())
}

/// Every ledger event of a task, in sequence order.
pub async fn events_of<C: ConnectionTrait>(db: &C, task_id: &str) -> Result<Vec<task_event::Model>, DbErr> {
    task_event::Entity::find()
        .filter(task_event::Column::TaskId.eq(task_id))
        .order_by_asc(task_event::Column::Sequence)
        .all(db)
        .await
}

/// The ids of every task, oldest first (for a rebuild of all of them).
pub async fn task_ids(db: &Db) -> Result<Vec<String>, DbErr> {
    Ok(task::Entity::find()
        .order_by_asc(task::Column::CreatedAt)
        .all(&db.read)
        .await?
        .into_iter()
        .map(|t| t.id)
        .collect())
}
