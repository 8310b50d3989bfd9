//! The view of one task, assembled from its projection rows (messages, artifacts and their
//! chunks, transitions), bounded however long the task ran (issue #26).

use app::a2a::{Part, Role};
use app::projection::{ArtifactView, MessageView, Omitted, TaskView, Transition, append_parts};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Select,
};

use super::{agent_names, find, from_json, rfc3339};
use crate::db::entity::{task, task_artifact, task_artifact_chunk, task_message, task_transition};
use crate::store::StoreError;
use crate::store::access::Access;

/// Most messages, artifacts and transitions one task view holds: the latest of each, the rest
/// counted in [`TaskView::omitted`] (issue #26: a task's view is bounded however long it ran).
pub const TASK_VIEW_ITEMS: u64 = 200;
/// Most artifact chunks one task view reads; parts past it are cut short and counted.
pub const TASK_VIEW_CHUNKS: u64 = 2000;

/// The view of one task, read from its projection rows, bounded by [`TASK_VIEW_ITEMS`].
pub async fn view<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    task_id: &str,
) -> Result<TaskView, StoreError> {
    view_limited(db, access, task_id, TASK_VIEW_ITEMS).await
}

/// The view of one task with at most `limit` (1 or more) of the latest messages, artifacts and
/// transitions each.
pub async fn view_limited<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    task_id: &str,
    limit: u64,
) -> Result<TaskView, StoreError> {
    let row = find(db, access, task_id).await?;
    let name = agent_names(db, vec![row.agent_id.clone()])
        .await?
        .remove(&row.agent_id)
        .flatten();
    view_of(db, row, name, limit.max(1)).await
}

/// The first `limit` rows of `ordered`, with how many of `total` they leave out (for messages
/// and transitions a count the task row keeps, so a long task's page costs no more than a short
/// one's: issue #33, ADR 0035).
async fn counted<C, E>(
    db: &C,
    ordered: Select<E>,
    limit: u64,
    total: i64,
) -> Result<(Vec<E::Model>, u64), StoreError>
where
    C: ConnectionTrait,
    E: EntityTrait,
    E::Model: Send + Sync,
{
    let rows = ordered.limit(limit).all(db).await?;
    // A read that came back short shows everything, whatever the count says.
    let omitted = if (rows.len() as u64) < limit {
        0
    } else {
        u64::try_from(total)
            .unwrap_or(0)
            .saturating_sub(rows.len() as u64)
    };
    Ok((rows, omitted))
}

async fn latest_messages<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
    limit: u64,
    total: i64,
) -> Result<(Vec<MessageView>, u64), StoreError> {
    let newest = task_message::Entity::find()
        .filter(task_message::Column::TaskId.eq(task_id))
        .order_by_desc(task_message::Column::Sequence)
        .order_by_desc(task_message::Column::Id);
    let (mut rows, omitted) = counted(db, newest, limit, total).await?;
    rows.reverse();
    let views = rows
        .into_iter()
        .map(|m| MessageView {
            message_id: m.message_id,
            role: Role::parse(Some(&m.role)),
            parts: from_json(m.parts_json),
            from_status: m.from_status,
            state: m.state,
            timestamp: m.timestamp,
            metadata: m.metadata_json.and_then(|v| serde_json::from_value(v).ok()),
            extensions: from_json(m.extensions_json),
            reference_task_ids: from_json(m.reference_task_ids_json),
            sequence: m.sequence,
        })
        .collect();
    Ok((views, omitted))
}

/// The latest artifacts by position, assembled from at most [`TASK_VIEW_CHUNKS`] chunks;
/// returns them with the artifacts and chunks left out.
async fn latest_artifacts<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
    limit: u64,
) -> Result<(Vec<ArtifactView>, u64, u64), StoreError> {
    let query = task_artifact::Entity::find().filter(task_artifact::Column::TaskId.eq(task_id));
    let newest = query
        .clone()
        .order_by_desc(task_artifact::Column::Position)
        .order_by_desc(task_artifact::Column::Id);
    let mut rows = newest.limit(limit).all(db).await?;
    // A task has few artifacts: they are counted, and only when the read came back full.
    let omitted = if rows.len() as u64 >= limit {
        query.count(db).await?.saturating_sub(rows.len() as u64)
    } else {
        0
    };
    rows.reverse();
    let ids: Vec<String> = rows.iter().map(|a| a.artifact_id.clone()).collect();
    let in_order = task_artifact_chunk::Entity::find()
        .filter(task_artifact_chunk::Column::TaskId.eq(task_id))
        .filter(task_artifact_chunk::Column::ArtifactId.is_in(ids))
        .order_by_asc(task_artifact_chunk::Column::ArtifactId)
        .order_by_asc(task_artifact_chunk::Column::ChunkIndex);
    // Each artifact row counts its chunks.
    let total_chunks = rows.iter().map(|a| i64::from(a.chunks)).sum();
    let (chunks, omitted_chunks) = counted(db, in_order, TASK_VIEW_CHUNKS, total_chunks).await?;
    let views = rows
        .into_iter()
        .map(|a| {
            let mut parts: Vec<Part> = Vec::new();
            for chunk in chunks.iter().filter(|c| c.artifact_id == a.artifact_id) {
                let chunk_parts: Vec<Part> = from_json(chunk.parts_json.clone());
                append_parts(&mut parts, &chunk_parts);
            }
            ArtifactView {
                artifact_id: a.artifact_id,
                name: a.name,
                description: a.description,
                parts,
                metadata: a.metadata_json.and_then(|v| serde_json::from_value(v).ok()),
                extensions: from_json(a.extensions_json),
                streaming: a.streaming,
                chunks: u32::try_from(a.chunks).unwrap_or(0),
                sequence: a.sequence,
            }
        })
        .collect();
    Ok((views, omitted, omitted_chunks))
}

async fn latest_transitions<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
    limit: u64,
    total: i64,
) -> Result<(Vec<Transition>, u64), StoreError> {
    let newest = task_transition::Entity::find()
        .filter(task_transition::Column::TaskId.eq(task_id))
        .order_by_desc(task_transition::Column::Sequence);
    let (mut rows, omitted) = counted(db, newest, limit, total).await?;
    rows.reverse();
    let views = rows
        .into_iter()
        .map(|t| Transition {
            state: t.state,
            timestamp: t.timestamp,
            sequence: t.sequence,
        })
        .collect();
    Ok((views, omitted))
}

async fn view_of<C: ConnectionTrait>(
    db: &C,
    row: task::Model,
    agent_name: Option<String>,
    limit: u64,
) -> Result<TaskView, StoreError> {
    let (messages, omitted_messages) = latest_messages(db, &row.id, limit, row.message_count).await?;
    let (artifacts, omitted_artifacts, omitted_chunks) = latest_artifacts(db, &row.id, limit).await?;
    let (transitions, omitted_transitions) =
        latest_transitions(db, &row.id, limit, row.transition_count).await?;
    Ok(TaskView {
        local_id: row.id,
        kind: row.kind,
        agent_id: row.agent_id,
        agent_name,
        conversation_id: row.conversation_id,
        remote_task_id: row.remote_task_id,
        remote_context_id: row.remote_context_id,
        tenant: row.tenant,
        state: row.state,
        state_timestamp: row.state_timestamp,
        title: row.title,
        skill_id: row.skill_id,
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
        version: row.version,
        last_sequence: row.last_sequence,
        messages,
        artifacts,
        transitions,
        omitted: Omitted {
            messages: omitted_messages,
            artifacts: omitted_artifacts,
            transitions: omitted_transitions,
            chunks: omitted_chunks,
        },
    })
}

/// The tasks of a conversation that `access` reads, oldest first, with their views.
pub async fn conversation_tasks<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    conversation_id: &str,
) -> Result<Vec<TaskView>, StoreError> {
    let rows = task::Entity::find()
        .filter(task::Column::OrganizationId.eq(&access.organization_id))
        .filter(super::readable(access))
        .filter(task::Column::ConversationId.eq(conversation_id))
        .order_by_asc(task::Column::CreatedAt)
        .order_by_asc(task::Column::Id)
        .all(db)
        .await?;
    let names = agent_names(db, rows.iter().map(|r| r.agent_id.clone()).collect()).await?;
    let mut views = Vec::with_capacity(rows.len());
    for row in rows {
        let name = names.get(&row.agent_id).cloned().flatten();
        views.push(view_of(db, row, name, TASK_VIEW_ITEMS).await?);
    }
    Ok(views)
}
