//! A task's artifact rows while a group of its events is folded (issue #33): each artifact is
//! read once per transaction, its append chunks are gathered and inserted with one statement,
//! and its row is written once, when the task row is ([`Artifacts::flush`]). A stream of chunks
//! then costs its ledger rows and a few statements per group instead of three per chunk.
//!
//! Everything that reads chunks back from the database (a finished task's snapshot, which only
//! adds a missing tail) flushes first, and a replacement deletes the stored chunks and drops
//! the gathered ones, so the rows written are the ones folding one event at a time writes.

use std::collections::{HashMap, HashSet};

use app::a2a::Artifact;
use sea_orm::{DatabaseBackend, DatabaseTransaction, DbErr};
use serde_json::Value;

use crate::db::entity::{task_artifact, task_artifact_chunk};
use crate::store::deferred::Deferred;
use crate::store::projections;

type Key = (String, String);

/// Chunks gathered at most before they are written (a rebuild folds a whole ledger at once).
const FLUSH_AT: usize = 256;

/// The artifact rows of the open task, and what is not written yet.
#[derive(Default)]
pub(super) struct Artifacts {
    /// Rows read or written in this transaction by `(task, artifact)`; `None`: no such row.
    known: HashMap<Key, Option<task_artifact::Model>>,
    /// Rows changed in memory since they were written.
    dirty: HashSet<Key>,
    /// Chunk rows not inserted yet, in order.
    chunks: Vec<(Key, task_artifact_chunk::ActiveModel)>,
}

fn key(task_id: &str, artifact_id: &str) -> Key {
    (task_id.to_owned(), artifact_id.to_owned())
}

impl Artifacts {
    /// The task's artifact by its id, read from the database the first time.
    pub(super) async fn find(
        &mut self,
        tx: &DatabaseTransaction,
        task_id: &str,
        artifact_id: &str,
    ) -> Result<Option<task_artifact::Model>, DbErr> {
        let key = key(task_id, artifact_id);
        if let Some(known) = self.known.get(&key) {
            return Ok(known.clone());
        }
        let found = projections::find_artifact(tx, task_id, artifact_id).await?;
        self.known.insert(key, found.clone());
        Ok(found)
    }

    /// Appends a chunk to `existing`: its count and sequence, whether more follow, and a name or
    /// description the chunk brought. Writes what is gathered once it is [`FLUSH_AT`] chunks.
    pub(super) async fn append(
        &mut self,
        tx: &DatabaseTransaction,
        mut existing: task_artifact::Model,
        sequence: i64,
        artifact: &Artifact,
        last_chunk: bool,
        parts: Value,
    ) -> Result<(), DbErr> {
        let key = key(&existing.task_id, &existing.artifact_id);
        let row = projections::chunk_row(&existing.task_id, &existing.artifact_id, existing.chunks, parts);
        self.chunks.push((key.clone(), row));
        if artifact.name.is_some() {
            existing.name.clone_from(&artifact.name);
        }
        if artifact.description.is_some() {
            existing.description.clone_from(&artifact.description);
        }
        existing.streaming = !last_chunk;
        existing.chunks += 1;
        existing.sequence = sequence;
        self.dirty.insert(key.clone());
        self.known.insert(key, Some(existing));
        if self.chunks.len() >= FLUSH_AT {
            self.flush(tx).await?;
        }
        Ok(())
    }

    /// Starts `row`'s artifact over with `parts` as its only chunk: the stored chunks are
    /// deleted, the gathered ones dropped, and the row written now.
    pub(super) async fn replace(
        &mut self,
        tx: &DatabaseTransaction,
        row: task_artifact::Model,
        parts: Value,
    ) -> Result<(), DbErr> {
        let key = key(&row.task_id, &row.artifact_id);
        let exists = self.find(tx, &row.task_id, &row.artifact_id).await?.is_some();
        self.chunks.retain(|(of, _)| *of != key);
        projections::clear_chunks(tx, &row.task_id, &row.artifact_id).await?;
        projections::save_artifact(tx, row.clone(), exists).await?;
        let first = projections::chunk_row(&row.task_id, &row.artifact_id, 0, parts);
        self.chunks.push((key.clone(), first));
        self.dirty.remove(&key);
        self.known.insert(key, Some(row));
        Ok(())
    }

    /// Adds what is gathered to `writes`, to be sent with the task row: the chunks (one
    /// statement) and each changed artifact row.
    pub(super) fn defer(&mut self, backend: DatabaseBackend, writes: &mut Deferred) -> Result<(), DbErr> {
        let chunks = std::mem::take(&mut self.chunks);
        if let Some(statement) =
            projections::chunks_insert(backend, chunks.into_iter().map(|(_, row)| row).collect())
        {
            writes.push(statement);
        }
        for key in std::mem::take(&mut self.dirty) {
            if let Some(Some(row)) = self.known.get(&key) {
                writes.push(projections::artifact_update(backend, row.clone())?);
            }
        }
        Ok(())
    }

    /// Writes what is gathered: the chunks (one statement) and each changed artifact row.
    pub(super) async fn flush(&mut self, tx: &DatabaseTransaction) -> Result<(), DbErr> {
        let chunks = std::mem::take(&mut self.chunks);
        projections::insert_chunks(tx, chunks.into_iter().map(|(_, row)| row).collect()).await?;
        for key in std::mem::take(&mut self.dirty) {
            if let Some(Some(row)) = self.known.get(&key) {
                projections::save_artifact(tx, row.clone(), true).await?;
            }
        }
        Ok(())
    }
}
