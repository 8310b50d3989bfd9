//! `wire_exchanges` (issue #32, ADR 0046): the HTTP exchanges the Wire panel lists, written in
//! batches by the exchange writer and purged after [`RETENTION`].

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::Value;

use super::access::Access;
use super::new_id;
use crate::db::entity::wire_exchange;
use crate::gateway::exchanges::Exchange;
use app::api::tasks::WireExchange;

/// How long an exchange is kept.
pub const RETENTION: chrono::Duration = chrono::Duration::days(7);

fn pairs_json(pairs: &[(String, String)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .map(|(name, value)| Value::Array(vec![name.clone().into(), value.clone().into()]))
            .collect(),
    )
}

fn pairs(json: &Value) -> Vec<(String, String)> {
    serde_json::from_value(json.clone()).unwrap_or_default()
}

/// Stores `exchanges` in one statement.
pub async fn insert<C: ConnectionTrait>(db: &C, exchanges: &[Exchange]) -> Result<(), DbErr> {
    if exchanges.is_empty() {
        return Ok(());
    }
    let rows = exchanges.iter().map(|e| wire_exchange::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(e.tag.organization_id.clone()),
        agent_id: Set(e.tag.agent_id.clone()),
        conversation_id: Set(e.tag.conversation_id.clone()),
        task_id: Set(e.tag.task_id.clone()),
        operation: Set(e.operation.to_owned()),
        method: Set(e.method.clone()),
        url: Set(e.url.clone()),
        status: Set(e.status.map(i32::from)),
        latency_ms: Set(i32::try_from(e.latency_ms).unwrap_or(i32::MAX)),
        error: Set(e.error.clone()),
        request_headers_json: Set(pairs_json(&e.request_headers)),
        response_headers_json: Set(pairs_json(&e.response_headers)),
        started_at: Set(e.started_at),
    });
    wire_exchange::Entity::insert_many(rows)
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// The newest `limit` exchanges of a conversation, oldest first, of the agents `access` reads
/// whole (a conversation's history needs the whole agent).
pub async fn of_conversation<C: ConnectionTrait>(
    db: &C,
    access: &Access,
    conversation_id: &str,
    limit: u64,
) -> Result<Vec<WireExchange>, DbErr> {
    let rows = wire_exchange::Entity::find()
        .filter(wire_exchange::Column::OrganizationId.eq(access.organization_id.as_str()))
        .filter(wire_exchange::Column::ConversationId.eq(conversation_id))
        .order_by_desc(wire_exchange::Column::StartedAt)
        .order_by_desc(wire_exchange::Column::Id)
        .limit(limit)
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .rev()
        .filter(|row| access.reads_agent(&row.agent_id))
        .map(|row| WireExchange {
            request_headers: pairs(&row.request_headers_json),
            response_headers: pairs(&row.response_headers_json),
            id: row.id,
            task_id: row.task_id,
            operation: row.operation,
            method: row.method,
            url: row.url,
            status: row.status.and_then(|s| u16::try_from(s).ok()),
            latency_ms: u32::try_from(row.latency_ms).unwrap_or(0),
            error: row.error,
            started_at: row
                .started_at
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        })
        .collect())
}

/// Deletes the exchanges that started before `cutoff`; how many.
pub async fn purge_before<C: ConnectionTrait>(db: &C, cutoff: DateTime<Utc>) -> Result<u64, DbErr> {
    Ok(wire_exchange::Entity::delete_many()
        .filter(wire_exchange::Column::StartedAt.lt(cutoff))
        .exec(db)
        .await?
        .rows_affected)
}
