//! The check a rebuild makes before it replaces anything (`shared/spec/security-and-durability.md`
//! §3.3 "Rebuild" step 2): every stored event still matches its digest (directly, or through the
//! complete original archived under that digest when its bytes were archived), still decodes,
//! and every archived object it references exists with the content its digest names.
//!
//! A problem is one line naming the event and the task, with no SQL or decoder detail.

use app::a2a::decode_stream_event;
use serde_json::Value;

use super::archive::{ArtifactStore, ObjectProblem, archive_notes, digest, stored_marker};
use crate::db::Db;
use crate::db::entity::task_event;
use crate::store::{ledger, task_rows};
use app::ext::canonical::ledger_json;

/// What makes a task's ledger unfit to rebuild from.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LedgerProblem {
    #[error("Task {task} does not exist; projections left unchanged.")]
    UnknownTask { task: String },
    #[error("Ledger event {sequence} of task {task} does not match its digest; projections left unchanged.")]
    Digest { task: String, sequence: i64 },
    #[error("Ledger event {sequence} of task {task} cannot be read; projections left unchanged.")]
    Undecodable { task: String, sequence: i64 },
    #[error(
        "Archived object {digest} of ledger event {sequence} of task {task} is missing; projections left unchanged."
    )]
    MissingObject {
        task: String,
        sequence: i64,
        digest: String,
    },
    #[error(
        "Archived object {digest} of ledger event {sequence} of task {task} does not match its digest; \
         projections left unchanged."
    )]
    CorruptObject {
        task: String,
        sequence: i64,
        digest: String,
    },
}

/// Why a check could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Problem(#[from] LedgerProblem),
    #[error(transparent)]
    Db(#[from] sea_orm::DbErr),
}

/// Checks every stored event of `task_id`; returns how many there are.
pub async fn verify(db: &Db, store: &ArtifactStore, task_id: &str) -> Result<usize, VerifyError> {
    let task = task_id.to_owned();
    let row = task_rows::find_any(&db.read, task_id)
        .await?
        .ok_or_else(|| LedgerProblem::UnknownTask { task: task.clone() })?;
    let events = ledger::events_of(&db.read, task_id).await?;
    for event in &events {
        check_event(store, &row.organization_id, &task, event)?;
    }
    Ok(events.len())
}

fn check_event(
    store: &ArtifactStore,
    organization_id: &str,
    task: &str,
    event: &task_event::Model,
) -> Result<(), LedgerProblem> {
    let sequence = event.sequence;
    let object = |digest: &str, problem: ObjectProblem| {
        let (task, digest) = (task.to_owned(), digest.to_owned());
        match problem {
            ObjectProblem::Missing => LedgerProblem::MissingObject {
                task,
                sequence,
                digest,
            },
            ObjectProblem::Corrupt => LedgerProblem::CorruptObject {
                task,
                sequence,
                digest,
            },
        }
    };
    let mismatch = || LedgerProblem::Digest {
        task: task.to_owned(),
        sequence,
    };
    let stored = ledger_json(&event.payload_json);
    // Only an event whose bytes were archived is stored differently from what arrived: its
    // original is archived under the event's digest, must rewrite to exactly the stored
    // version, and every object that rewrite refers to must be intact. (References the agent
    // wrote into its own metadata are not the console's and are not looked at.)
    let mut archived = Vec::new();
    if digest(stored.as_bytes()) != event.payload_digest {
        let original = match store.verified(organization_id, &event.payload_digest) {
            Ok(bytes) => bytes,
            // No original: a marker written at ingestion must vouch for exactly this stored
            // version (ingest.rs), and the objects its notes name must be intact.
            Err(ObjectProblem::Missing) => {
                let marker = stored_marker(&event.payload_digest, &digest(stored.as_bytes()));
                match store.verified(organization_id, &digest(&marker)) {
                    Ok(_) => {}
                    Err(ObjectProblem::Missing) => return Err(mismatch()),
                    Err(problem) => return Err(object(&digest(&marker), problem)),
                }
                for noted in noted_digests(&event.payload_json) {
                    store
                        .verified(organization_id, &noted)
                        .map_err(|problem| object(&noted, problem))?;
                }
                return decodable(event, task);
            }
            Err(problem) => return Err(object(&event.payload_digest, problem)),
        };
        let original: Value = serde_json::from_slice(&original).map_err(|_| mismatch())?;
        let (rewritten, objects) = store.rewritten(organization_id, &original);
        if ledger_json(&rewritten) != stored {
            return Err(mismatch());
        }
        archived = objects;
    }
    decodable(event, task)?;
    for reference in archived {
        store
            .verified(organization_id, &reference.digest)
            .map_err(|problem| object(&reference.digest, problem))?;
    }
    Ok(())
}

fn decodable(event: &task_event::Model, task: &str) -> Result<(), LedgerProblem> {
    decode_stream_event(&event.payload_json)
        .map(|_| ())
        .map_err(|_| LedgerProblem::Undecodable {
            task: task.to_owned(),
            sequence: event.sequence,
        })
}

/// The objects the stored event's archive notes name.
fn noted_digests(payload: &Value) -> Vec<String> {
    archive_notes(payload)
        .iter()
        .filter_map(|note| note["digest"].as_str().map(str::to_owned))
        .collect()
}
