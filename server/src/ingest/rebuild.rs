//! Rebuilding projections from the ledger (`rebuild-projections`): the projection rows of a task
//! are dropped and its stored events folded again, under the task lock, in one transaction.

use app::a2a::decode_stream_event;
use sea_orm::{ConnectionTrait, DbErr, TransactionTrait};

use super::IngestError;
use super::artifacts::Artifacts;
use super::batch::MessageKeys;
use super::fold;
use super::locate::initial_state;
use crate::db::Db;
use crate::store::deferred::Deferred;
use crate::store::{ledger, task_rows};

/// Writes a rebuild gathers before it sends them.
const REBUILD_WRITES_AT: usize = 256;

/// Rebuilds a task's projections from its ledger: the projection rows are dropped and every
/// stored event is folded again, in sequence order, in one transaction under the task lock.
/// A stored event that no longer decodes fails the rebuild and leaves the previous projection
/// in place. Rebuilding never writes ledger events or contacts an agent, and rebuilding twice
/// gives the same projection. Returns how many events were folded.
pub async fn rebuild(db: &Db, task_id: &str) -> Result<usize, IngestError> {
    let tx = db.write.begin().await?;
    let mut row = task_rows::lock(&tx, task_id)
        .await?
        .ok_or(IngestError::Identity("Unknown local task."))?;
    ledger::clear_projections(&tx, task_id).await?;
    // The row as ingestion first created it; identity and scheduling columns stay.
    row.state = initial_state(row.kind);
    row.state_timestamp = None;
    row.remote_context_id = None;
    row.title = String::new();
    row.terminal_at = None;
    row.message_count = 0;
    row.transition_count = 0;
    let events = ledger::events_of(&tx, task_id).await?;
    let mut artifacts = Artifacts::default();
    // The projection rows were dropped: every message is new unless an earlier event added it.
    let mut messages = MessageKeys::all_new();
    let mut writes = Deferred::default();
    let mut folded = fold::Folded {
        row: &mut row,
        changed: false,
        artifacts: &mut artifacts,
        messages: &mut messages,
        writes: &mut writes,
    };
    for event in &events {
        let decoded =
            decode_stream_event(&event.payload_json).map_err(|e| IngestError::Invalid(e.to_string()))?;
        fold::fold(&tx, &mut folded, event.sequence, &decoded.event).await?;
        if folded.writes.len() + folded.messages.pending() >= REBUILD_WRITES_AT {
            folded.messages.defer(tx.get_database_backend(), folded.writes);
            folded.writes.flush(&tx).await?;
        }
    }
    messages.defer(tx.get_database_backend(), &mut writes);
    writes.flush(&tx).await?;
    artifacts.flush(&tx).await?;
    if row.state.is_terminal() {
        row.terminal_at = Some(row.updated_at);
    }
    task_rows::write_rebuilt(&tx, &row).await?;
    tx.commit().await?;
    Ok(events.len())
}

/// The ids of every task, oldest first (for a rebuild of all of them).
pub async fn task_ids(db: &Db) -> Result<Vec<String>, DbErr> {
    ledger::task_ids(db).await
}
