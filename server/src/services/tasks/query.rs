//! Reads of the committed projections: task pages and views, conversations and their ledger tail.

use app::api::tasks::{
    CommandStatus, CommandView, ConversationSummary, ConversationView, LedgerEvent, TaskFilter, TaskPage,
    WIRE_HISTORY,
};
use app::projection::TaskView;

use super::TaskError;
use crate::db::Db;
use crate::db::entity::task;
use crate::services::commands;
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::agents as agent_store;
use crate::store::tasks as task_store;

/// Conversations on the Chat landing.
pub const RECENT_CONVERSATIONS: u64 = 50;

/// One page of the organization's tasks, newest first.
pub async fn list(
    db: &Db,
    access: &Access,
    filter: TaskFilter,
    words: &[String],
    agent_id: &str,
    offset: u64,
    limit: u64,
) -> Result<TaskPage, StoreError> {
    let narrow = task_store::Narrow { words, agent_id };
    task_store::list(&db.read, access, filter, narrow, offset, limit).await
}

/// One task row of the organization by its local id.
pub async fn find(db: &Db, access: &Access, task_id: &str) -> Result<task::Model, StoreError> {
    task_store::find(&db.read, access, task_id).await
}

/// One task's view with at most `limit` of its latest messages, artifacts and transitions each.
pub async fn view(db: &Db, access: &Access, task_id: &str, limit: u64) -> Result<TaskView, StoreError> {
    task_store::view_limited(&db.read, access, task_id, limit).await
}

/// The [`RECENT_CONVERSATIONS`] most recent conversations.
pub async fn conversations(db: &Db, access: &Access) -> Result<Vec<ConversationSummary>, StoreError> {
    task_store::conversations(&db.read, access, RECENT_CONVERSATIONS).await
}

/// A conversation's tasks and its sends that have no task yet (or did not succeed).
pub async fn conversation(
    db: &Db,
    access: &Access,
    conversation_id: String,
) -> Result<ConversationView, TaskError> {
    if uuid::Uuid::parse_str(&conversation_id).is_err() {
        return Err(TaskError::NotFound);
    }
    // Commands first: a command that succeeds between the two reads committed its task in
    // the same transaction, so the tasks read after it sees that task. Read the other way
    // round, a new chat's first command could succeed in between and the conversation
    // would look empty (404) right after the send.
    let commands: Vec<CommandView> = commands::of_conversation(db, access, &conversation_id)
        .await?
        .iter()
        .map(commands::view)
        .filter(|c| c.task_id.is_none() || c.status != CommandStatus::Succeeded)
        .collect();
    let tasks = task_store::conversation_tasks(&db.read, access, &conversation_id).await?;
    let agent_id = tasks
        .first()
        .map(|t| t.agent_id.clone())
        .or_else(|| commands.first().map(|c| c.agent_id.clone()))
        .ok_or(TaskError::NotFound)?;
    let agent_name = match tasks.first() {
        Some(task) => task.agent_name.clone(),
        None => agent_store::find(db, access, &agent_id)
            .await
            .ok()
            .and_then(|a| a.display_name),
    };
    Ok(ConversationView {
        conversation_id,
        agent_id,
        agent_name,
        remote_context_id: tasks.iter().rev().find_map(|t| t.remote_context_id.clone()),
        last_sequence: tasks.iter().map(|t| t.last_sequence).max().unwrap_or(0),
        tasks,
        commands,
    })
}

/// The latest [`WIRE_EXCHANGES`](app::api::tasks::WIRE_EXCHANGES) HTTP exchanges of a
/// conversation, oldest first (ADR 0046).
pub async fn conversation_exchanges(
    db: &Db,
    access: &Access,
    conversation_id: &str,
) -> Result<Vec<app::api::tasks::WireExchange>, TaskError> {
    if uuid::Uuid::parse_str(conversation_id).is_err() {
        return Err(TaskError::NotFound);
    }
    Ok(crate::store::wire_exchanges::of_conversation(
        &db.read,
        access,
        conversation_id,
        app::api::tasks::WIRE_EXCHANGES,
    )
    .await
    .map_err(crate::store::StoreError::from)?)
}

/// The latest [`WIRE_HISTORY`] ledger events of a conversation, oldest first.
pub async fn conversation_events(
    db: &Db,
    access: &Access,
    conversation_id: &str,
) -> Result<Vec<LedgerEvent>, TaskError> {
    if uuid::Uuid::parse_str(conversation_id).is_err() {
        return Err(TaskError::NotFound);
    }
    Ok(task_store::conversation_tail(&db.read, access, conversation_id, WIRE_HISTORY).await?)
}
