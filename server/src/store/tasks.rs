//! Reading tasks, conversations and the ledger back: the views the screens and the API show.
//! List queries read only the typed task columns, never event payloads.

use app::a2a::TaskState;
use app::api::tasks::{ConversationSummary, LedgerEvent, TaskFilter, TaskPage, TaskSummary};
use app::projection::TaskKind;
use sea_orm::sea_query::{Expr, ExprTrait, Func, LikeExpr, SimpleExpr};
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::Value;

use super::StoreError;
use super::access::Access;
use crate::db::entity::{agent, task, task_event};

/// Most ledger events returned by one read of the live stream.
pub const EVENTS_PER_READ: u64 = 500;

const ACTIVE: [TaskState; 2] = [TaskState::Submitted, TaskState::Working];
const WAITING: [TaskState; 2] = [TaskState::InputRequired, TaskState::AuthRequired];

fn rfc3339(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn from_json<T: serde::de::DeserializeOwned + Default>(value: Value) -> T {
    serde_json::from_value(value).unwrap_or_default()
}

/// The tasks `access` reads (by their agent and skill).
fn readable(access: &Access) -> Condition {
    access.rows(task::Column::AgentId, task::Column::SkillId)
}

/// The agent of a conversation of the organization (its tasks and sends all have the one
/// agent), if it has a task or a send yet.
pub async fn conversation_agent<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    conversation_id: &str,
) -> Result<Option<String>, StoreError> {
    use crate::db::entity::task_command;
    if let Some(row) = task::Entity::find()
        .filter(task::Column::OrganizationId.eq(organization_id))
        .filter(task::Column::ConversationId.eq(conversation_id))
        .order_by_asc(task::Column::CreatedAt)
        .one(db)
        .await?
    {
        return Ok(Some(row.agent_id));
    }
    Ok(task_command::Entity::find()
        .filter(task_command::Column::OrganizationId.eq(organization_id))
        .filter(task_command::Column::ConversationId.eq(conversation_id))
        .order_by_asc(task_command::Column::CreatedAt)
        .one(db)
        .await?
        .map(|row| row.agent_id))
}

/// Agent display names by id, for list rows.
async fn agent_names<C: ConnectionTrait>(
    db: &C,
    ids: Vec<String>,
) -> Result<std::collections::HashMap<String, Option<String>>, StoreError> {
    let rows = agent::Entity::find()
        .filter(agent::Column::Id.is_in(ids))
        .all(db)
        .await?;
    Ok(rows.into_iter().map(|a| (a.id, a.display_name)).collect())
}

fn summary(row: task::Model, agent_name: Option<String>) -> TaskSummary {
    TaskSummary {
        local_id: row.id,
        kind: row.kind,
        agent_id: row.agent_id,
        agent_name,
        conversation_id: row.conversation_id,
        remote_task_id: row.remote_task_id,
        remote_context_id: row.remote_context_id,
        tenant: row.tenant,
        state: row.state,
        title: row.title,
        created_at: rfc3339(row.created_at),
        updated_at: rfc3339(row.updated_at),
    }
}

/// What narrows a task page beyond its filter: lowercased words that must each appear in the
/// title or the remote task id, and one agent (empty: any).
#[derive(Clone, Copy, Debug, Default)]
pub struct Narrow<'a> {
    pub words: &'a [String],
    pub agent_id: &'a str,
}

/// `LOWER(column) LIKE '%word%'`, the word's `%`, `_` and `\` taken literally.
fn contains_word(column: task::Column, word: &str) -> SimpleExpr {
    let escaped = word.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    Expr::expr(Func::lower(Expr::col((task::Entity, column))))
        .like(LikeExpr::new(format!("%{escaped}%")).escape('\\'))
}

/// One page of the tasks `access` reads, newest first, narrowed by `narrow`: the grants filter
/// in SQL, before the page is cut, so a page never holds a hidden row (§1.3).
pub async fn list<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    filter: TaskFilter,
    narrow: Narrow<'_>,
    offset: u64,
    limit: u64,
) -> Result<TaskPage, StoreError> {
    let mut query = task::Entity::find()
        .filter(task::Column::OrganizationId.eq(&access.organization_id))
        .filter(readable(access));
    if !narrow.agent_id.is_empty() {
        query = query.filter(task::Column::AgentId.eq(narrow.agent_id));
    }
    for word in narrow.words {
        query = query.filter(
            Condition::any()
                .add(contains_word(task::Column::Title, word))
                .add(contains_word(task::Column::RemoteTaskId, word)),
        );
    }
    query = match filter {
        TaskFilter::All => query,
        TaskFilter::Active => query.filter(task::Column::State.is_in(ACTIVE)),
        TaskFilter::NeedsInput => query.filter(task::Column::State.is_in(WAITING)),
        TaskFilter::Done => query.filter(
            Condition::any()
                .add(task::Column::State.is_not_in(ACTIVE.into_iter().chain(WAITING)))
                .add(task::Column::Kind.eq(TaskKind::Message)),
        ),
    };
    let mut rows = query
        .order_by_desc(task::Column::UpdatedAt)
        .order_by_desc(task::Column::Id)
        .offset(offset)
        .limit(limit + 1)
        .all(db)
        .await?;
    let has_more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    let names = agent_names(db, rows.iter().map(|r| r.agent_id.clone()).collect()).await?;
    Ok(TaskPage {
        tasks: rows
            .into_iter()
            .map(|r| {
                let name = names.get(&r.agent_id).cloned().flatten();
                summary(r, name)
            })
            .collect(),
        offset,
        has_more,
    })
}

/// The task row, if it belongs to the organization and `access` reads it.
pub async fn find<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    task_id: &str,
) -> Result<task::Model, StoreError> {
    if uuid::Uuid::parse_str(task_id).is_err() {
        return Err(StoreError::NotFound);
    }
    task::Entity::find_by_id(task_id.to_owned())
        .filter(task::Column::OrganizationId.eq(&access.organization_id))
        .filter(readable(access))
        .one(db)
        .await?
        .ok_or(StoreError::NotFound)
}

/// How many task rows there are, in every organization.
pub async fn count_all<C: ConnectionTrait>(db: &C) -> Result<u64, sea_orm::DbErr> {
    use sea_orm::PaginatorTrait as _;
    task::Entity::find().count(db).await
}

/// The task with `id`, of any organization (workers and transactions that already know it).
pub async fn by_id<C: ConnectionTrait>(db: &C, id: &str) -> Result<Option<task::Model>, sea_orm::DbErr> {
    task::Entity::find_by_id(id.to_owned()).one(db).await
}

/// The newest task of `agent_id` in the remote context `context_id` (a send that names a
/// context joins that task's conversation).
pub async fn latest_in_context<C: ConnectionTrait>(
    db: &C,
    agent_id: &str,
    context_id: &str,
) -> Result<Option<task::Model>, sea_orm::DbErr> {
    task::Entity::find()
        .filter(task::Column::AgentId.eq(agent_id))
        .filter(task::Column::RemoteContextId.eq(context_id))
        .order_by_desc(task::Column::CreatedAt)
        .one(db)
        .await
}

/// The remote context of the newest task of a conversation that has one, so a new task
/// joins it.
pub async fn conversation_context<C: ConnectionTrait>(
    db: &C,
    conversation_id: &str,
) -> Result<Option<String>, sea_orm::DbErr> {
    Ok(task::Entity::find()
        .filter(task::Column::ConversationId.eq(conversation_id))
        .filter(task::Column::RemoteContextId.is_not_null())
        .order_by_desc(task::Column::CreatedAt)
        .one(db)
        .await?
        .and_then(|t| t.remote_context_id))
}

/// The bounded view of one task.
mod view;
pub use view::{TASK_VIEW_CHUNKS, TASK_VIEW_ITEMS, conversation_tasks, view, view_limited};

/// Recent conversations of the tasks `access` reads, newest activity first.
pub async fn conversations<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    limit: u64,
) -> Result<Vec<ConversationSummary>, StoreError> {
    // Newest tasks first; the first row seen of each conversation is its newest.
    let rows = task::Entity::find()
        .filter(task::Column::OrganizationId.eq(&access.organization_id))
        .filter(readable(access))
        .order_by_desc(task::Column::UpdatedAt)
        .limit(2000)
        .all(db)
        .await?;
    let names = agent_names(db, rows.iter().map(|r| r.agent_id.clone()).collect()).await?;
    let mut out: Vec<ConversationSummary> = Vec::new();
    let mut titles: std::collections::HashMap<String, (String, chrono::DateTime<chrono::Utc>)> =
        Default::default();
    for row in &rows {
        // The conversation's title is its oldest task's title.
        let entry = titles
            .entry(row.conversation_id.clone())
            .or_insert((row.title.clone(), row.created_at));
        if row.created_at <= entry.1 && !row.title.is_empty() {
            *entry = (row.title.clone(), row.created_at);
        }
        match out.iter_mut().find(|c| c.conversation_id == row.conversation_id) {
            Some(c) => c.task_count += 1,
            None => out.push(ConversationSummary {
                conversation_id: row.conversation_id.clone(),
                agent_id: row.agent_id.clone(),
                agent_name: names.get(&row.agent_id).cloned().flatten(),
                title: String::new(),
                task_count: 1,
                state: row.state.clone(),
                updated_at: rfc3339(row.updated_at),
            }),
        }
    }
    for c in &mut out {
        if let Some((title, _)) = titles.remove(&c.conversation_id) {
            c.title = title;
        }
    }
    out.truncate(limit as usize);
    Ok(out)
}

/// Which events a live stream follows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventScope {
    Task(String),
    Conversation(String),
}

/// Which end of the scope's ledger a read starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadFrom {
    /// The oldest events after the cursor first.
    Oldest,
    /// The newest events first.
    Newest,
}

/// The scope's ledger events after `after`, in one statement: a conversation's tasks are
/// chosen inside it, so a task that joins the conversation while the events are read cannot
/// be left out while a later event of another task is read.
async fn scope_events<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    scope: &EventScope,
    after: i64,
    from: ReadFrom,
    limit: u64,
) -> Result<Vec<LedgerEvent>, StoreError> {
    let organization_id = access.organization_id.as_str();
    let query = task_event::Entity::find()
        .filter(task_event::Column::OrganizationId.eq(organization_id))
        .filter(task_event::Column::Sequence.gt(after));
    let (query, conversation_id) = match scope {
        EventScope::Task(id) => {
            let row = find(db, access, id).await?;
            (
                query.filter(task_event::Column::TaskId.eq(row.id)),
                row.conversation_id,
            )
        }
        EventScope::Conversation(id) => {
            let tasks = sea_orm::sea_query::Query::select()
                .column(task::Column::Id)
                .from(task::Entity)
                .and_where(task::Column::OrganizationId.eq(organization_id))
                .and_where(task::Column::ConversationId.eq(id))
                .and_where(task::Column::LastSequence.gt(after))
                .cond_where(readable(access))
                .to_owned();
            (
                query.filter(task_event::Column::TaskId.in_subquery(tasks)),
                id.clone(),
            )
        }
    };
    let query = match from {
        ReadFrom::Oldest => query.order_by_asc(task_event::Column::Sequence),
        ReadFrom::Newest => query.order_by_desc(task_event::Column::Sequence),
    };
    let rows = query.limit(limit).all(db).await?;
    Ok(rows
        .into_iter()
        .map(|e| LedgerEvent {
            sequence: e.sequence,
            conversation_id: conversation_id.clone(),
            task_id: e.task_id,
            source: e.source,
            payload: e.payload_json,
            extensions: from_json(e.extensions_json),
            protocol_version: e.protocol_version,
            received_at: rfc3339(e.received_at),
        })
        .collect())
}

/// Committed ledger events of the scope after `after`, in sequence order, at most
/// [`EVENTS_PER_READ`].
pub async fn events_after<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    scope: &EventScope,
    after: i64,
) -> Result<Vec<LedgerEvent>, StoreError> {
    scope_events(db, access, scope, after, ReadFrom::Oldest, EVENTS_PER_READ).await
}

/// The scope's newest `limit` committed events, oldest first.
pub async fn scope_tail<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    scope: &EventScope,
    limit: u64,
) -> Result<Vec<LedgerEvent>, StoreError> {
    let mut events = scope_events(db, access, scope, 0, ReadFrom::Newest, limit).await?;
    events.reverse();
    Ok(events)
}

/// The newest `limit` ledger events of a conversation, oldest first.
pub async fn conversation_tail<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    conversation_id: &str,
    limit: u64,
) -> Result<Vec<LedgerEvent>, StoreError> {
    scope_tail(
        db,
        access,
        &EventScope::Conversation(conversation_id.to_owned()),
        limit,
    )
    .await
}

/// Every ledger event of a task in order (for rebuilds and checks).
pub async fn ledger<C: ConnectionTrait>(db: &C, task_id: &str) -> Result<Vec<task_event::Model>, StoreError> {
    Ok(task_event::Entity::find()
        .filter(task_event::Column::TaskId.eq(task_id))
        .order_by_asc(task_event::Column::Sequence)
        .all(db)
        .await?)
}

/// A task by its remote identity `(agent, tenant, remote task id)` within the organization.
pub async fn find_remote<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
    agent_id: &str,
    tenant: &str,
    remote_task_id: &str,
) -> Result<task::Model, StoreError> {
    task::Entity::find()
        .filter(task::Column::OrganizationId.eq(organization_id))
        .filter(task::Column::AgentId.eq(agent_id))
        .filter(task::Column::Tenant.eq(tenant))
        .filter(task::Column::RemoteTaskId.eq(remote_task_id))
        .one(db)
        .await?
        .ok_or(StoreError::NotFound)
}

/// The first access record of an archived object through a task `access` reads (which task
/// referenced it, and under which name and media type); `NotFound` when no such task did.
pub async fn artifact_access<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    digest: &str,
) -> Result<crate::db::entity::artifact_access::Model, StoreError> {
    use crate::db::entity::artifact_access;
    let readable_tasks = sea_orm::sea_query::Query::select()
        .column(task::Column::Id)
        .from(task::Entity)
        .and_where(task::Column::OrganizationId.eq(&access.organization_id))
        .cond_where(readable(access))
        .to_owned();
    artifact_access::Entity::find()
        .filter(artifact_access::Column::OrganizationId.eq(&access.organization_id))
        .filter(artifact_access::Column::Digest.eq(digest))
        .filter(artifact_access::Column::TaskId.in_subquery(readable_tasks))
        .order_by_asc(artifact_access::Column::CreatedAt)
        .one(db)
        .await?
        .ok_or(StoreError::NotFound)
}
