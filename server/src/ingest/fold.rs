//! Folding one event into the projection rows, inside the ingestion transaction. The rules are
//! the shared ones of [`app::projection`] (the browser folds with the same code); the server
//! only touches the rows an event changes, so the cost per event does not grow with the
//! length of the ledger: a status update writes the task row and at most one message and one
//! transition; an append chunk adds one chunk row. Artifact rows and chunks go through
//! [`Artifacts`], which writes a group's chunks together; the rows are written through
//! `store::projections`.

use app::a2a::{Artifact, Message, Part, StreamEvent, TaskStatus};
use app::projection::{StatusVerdict, append_parts, missing_tail, status_verdict, title_of};
use sea_orm::{ConnectionTrait, DatabaseTransaction, DbErr};
use serde_json::{Value, json};

use super::artifacts::Artifacts;
use super::batch::{MessageFate, MessageKeys, message_key};
use crate::db::entity::{task, task_artifact, task_message};
use crate::store::deferred::Deferred;
use crate::store::new_id;
use crate::store::projections;

/// What folding changed on the task row (written by the caller), its artifacts (the caller
/// writes them with the row), its messages (those known to be new gathered there), and the
/// other writes folding decided on (transitions), sent with the row (ADR 0050).
pub(super) struct Folded<'t> {
    pub row: &'t mut task::Model,
    pub changed: bool,
    pub artifacts: &'t mut Artifacts,
    pub messages: &'t mut MessageKeys,
    pub writes: &'t mut Deferred,
}

pub(super) async fn fold(
    tx: &DatabaseTransaction,
    folded: &mut Folded<'_>,
    sequence: i64,
    event: &StreamEvent,
) -> Result<(), DbErr> {
    match event {
        StreamEvent::Task(snapshot) => {
            note_context(folded, snapshot.context_id.as_deref());
            if folded.row.remote_task_id.is_none() && folded.row.kind == app::projection::TaskKind::Task {
                folded.row.remote_task_id = Some(snapshot.id.clone());
            }
            // A finished task's artifacts only take a missing tail (`missing_tail`).
            let finished = folded.row.state.is_terminal();
            if status(tx, folded, sequence, &snapshot.status)
                .await?
                .takes_content()
            {
                for message in &snapshot.history {
                    add_message(tx, folded, sequence, message, None).await?;
                }
                for artifact in &snapshot.artifacts {
                    if finished {
                        fill_artifact(tx, folded, sequence, artifact).await?;
                    } else {
                        replace_artifact(tx, folded, sequence, artifact, false).await?;
                    }
                }
            }
        }
        StreamEvent::StatusUpdate(update) => {
            note_context(folded, update.context_id.as_deref());
            status(tx, folded, sequence, &update.status).await?;
        }
        StreamEvent::ArtifactUpdate(update) => {
            note_context(folded, update.context_id.as_deref());
            if !folded.row.state.is_terminal() {
                let existing = folded
                    .artifacts
                    .find(tx, &folded.row.id, &update.artifact.artifact_id)
                    .await?;
                match existing {
                    Some(existing) if update.append => {
                        let parts = parts_json(&update.artifact)?;
                        folded
                            .artifacts
                            .append(tx, existing, sequence, &update.artifact, update.last_chunk, parts)
                            .await?;
                        folded.changed = true;
                    }
                    _ => replace_artifact(tx, folded, sequence, &update.artifact, !update.last_chunk).await?,
                }
            }
        }
        StreamEvent::Message(message) => {
            note_context(folded, message.context_id.as_deref());
            add_message(tx, folded, sequence, message, None).await?;
        }
    }
    Ok(())
}

fn note_context(folded: &mut Folded<'_>, context_id: Option<&str>) {
    if folded.row.remote_context_id.is_none()
        && let Some(context) = context_id.filter(|c| !c.is_empty())
    {
        folded.row.remote_context_id = Some(context.to_owned());
        folded.changed = true;
    }
}

async fn status(
    tx: &DatabaseTransaction,
    folded: &mut Folded<'_>,
    sequence: i64,
    status: &TaskStatus,
) -> Result<StatusVerdict, DbErr> {
    let verdict = status_verdict(
        &folded.row.state,
        folded.row.state_timestamp.as_deref(),
        &status.state,
        status.timestamp.as_deref(),
    );
    match verdict {
        StatusVerdict::Apply => {
            folded.row.state = status.state.clone();
            folded.row.transition_count += 1;
            folded.changed = true;
            folded.writes.push(projections::transition_insert(
                tx.get_database_backend(),
                &folded.row.id,
                &folded.row.state,
                status.timestamp.clone(),
                sequence,
            ));
        }
        StatusVerdict::Same => {}
        StatusVerdict::Stale | StatusVerdict::Final => return Ok(verdict),
    }
    if status.timestamp.is_some() && folded.row.state_timestamp != status.timestamp {
        folded.row.state_timestamp.clone_from(&status.timestamp);
        folded.changed = true;
    }
    if let Some(message) = &status.message {
        add_message(tx, folded, sequence, message, Some(status)).await?;
    }
    Ok(verdict)
}

async fn add_message(
    tx: &DatabaseTransaction,
    folded: &mut Folded<'_>,
    sequence: i64,
    message: &Message,
    status: Option<&TaskStatus>,
) -> Result<(), DbErr> {
    // Without an id nothing can be de-duplicated; each one is kept.
    let unique = message.message_id.is_empty();
    let dedupe_key = if unique {
        format!("seq:{sequence}:{}", new_id())
    } else {
        message_key(&message.message_id)
    };
    let fate = folded.messages.claim(&dedupe_key, unique);
    if matches!(fate, MessageFate::Duplicate) {
        return Ok(());
    }
    let parts = serde_json::to_value(&message.parts).map_err(|e| DbErr::Custom(e.to_string()))?;
    let row = task_message::Model {
        id: new_id(),
        task_id: folded.row.id.clone(),
        dedupe_key,
        message_id: message.message_id.clone(),
        role: message.role.as_v1_str().to_owned(),
        parts_json: parts,
        from_status: status.is_some(),
        state: status.map(|s| s.state.clone()),
        timestamp: status.and_then(|s| s.timestamp.clone()),
        metadata_json: message.metadata.clone().map(Value::Object),
        extensions_json: json!(message.extensions),
        reference_task_ids_json: json!(message.reference_task_ids),
        sequence,
    };
    let inserted = match fate {
        MessageFate::New => {
            folded.messages.add(row);
            true
        }
        _ => {
            let key = row.dedupe_key.clone();
            let inserted = projections::insert_message(tx, row).await? > 0;
            if inserted {
                folded.messages.inserted(&key);
            }
            inserted
        }
    };
    if inserted {
        folded.row.message_count += 1;
        folded.changed = true;
        if folded.row.title.is_empty()
            && message.role == app::a2a::Role::User
            && let Some(title) = title_of(message)
        {
            folded.row.title = title;
        }
    }
    Ok(())
}

fn parts_json(artifact: &Artifact) -> Result<Value, DbErr> {
    serde_json::to_value(&artifact.parts).map_err(|e| DbErr::Custom(e.to_string()))
}

/// A replacement resets the artifact's assembly: its chunks are dropped and this one is the first.
async fn replace_artifact(
    tx: &DatabaseTransaction,
    folded: &mut Folded<'_>,
    sequence: i64,
    artifact: &Artifact,
    streaming: bool,
) -> Result<(), DbErr> {
    let task_id = folded.row.id.clone();
    let existing = folded.artifacts.find(tx, &task_id, &artifact.artifact_id).await?;
    let row = task_artifact::Model {
        id: existing.as_ref().map_or_else(new_id, |e| e.id.clone()),
        task_id: task_id.clone(),
        artifact_id: artifact.artifact_id.clone(),
        name: artifact.name.clone(),
        description: artifact.description.clone(),
        metadata_json: artifact.metadata.clone().map(Value::Object),
        extensions_json: json!(artifact.extensions),
        streaming,
        chunks: 1,
        sequence,
        position: existing.as_ref().map_or(sequence, |e| e.position),
    };
    folded.artifacts.replace(tx, row, parts_json(artifact)?).await?;
    folded.changed = true;
    Ok(())
}

/// Adds to a finished task's artifact only what `artifact` has after the parts held.
async fn fill_artifact(
    tx: &DatabaseTransaction,
    folded: &mut Folded<'_>,
    sequence: i64,
    artifact: &Artifact,
) -> Result<(), DbErr> {
    let Some(existing) = folded
        .artifacts
        .find(tx, &folded.row.id, &artifact.artifact_id)
        .await?
    else {
        return replace_artifact(tx, folded, sequence, artifact, false).await;
    };
    // The chunks are read back: what is gathered is written first.
    folded.artifacts.flush(tx).await?;
    let chunks = projections::chunks_of(tx, &existing.task_id, &existing.artifact_id).await?;
    let mut held = Vec::new();
    for chunk in chunks {
        // Read as the task view reads them.
        let parts: Vec<Part> = serde_json::from_value(chunk.parts_json).unwrap_or_default();
        append_parts(&mut held, &parts);
    }
    if let Some(parts) = missing_tail(&held, &artifact.parts) {
        let tail = Artifact {
            parts,
            ..artifact.clone()
        };
        let parts = parts_json(&tail)?;
        folded
            .artifacts
            .append(tx, existing, sequence, &tail, true, parts)
            .await?;
        folded.changed = true;
    }
    Ok(())
}
