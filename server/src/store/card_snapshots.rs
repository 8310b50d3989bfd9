//! Agent card snapshots: a fetched card is kept when its digest differs from the latest one
//! (issue #26: an unchanged card is not stored again on every view); the latest is authoritative.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::agent_card_snapshot;

/// A card as fetched, with what discovery made of it.
#[derive(Clone, Debug)]
pub struct NewSnapshot {
    pub raw_card: serde_json::Value,
    pub normalized_card: serde_json::Value,
    pub compliance: serde_json::Value,
    pub signature_status: String,
    pub digest: String,
    pub resolved_card_url: String,
    pub fetched_at: DateTime<Utc>,
}

/// Stores a snapshot for an agent, unless the agent's latest snapshot has the same digest: then
/// that one is returned and nothing is written (a card up to 2 MiB is fetched on every view).
pub async fn record_if_changed(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    snapshot: NewSnapshot,
) -> Result<agent_card_snapshot::Model, StoreError> {
    if let Some(latest) = latest_on(&db.write, agent_id).await?
        && latest.digest == snapshot.digest
    {
        return Ok(latest);
    }
    record(db, organization_id, agent_id, snapshot).await
}

/// Stores a snapshot for an agent.
pub async fn record(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    snapshot: NewSnapshot,
) -> Result<agent_card_snapshot::Model, StoreError> {
    let row = agent_card_snapshot::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(organization_id.to_owned()),
        agent_id: Set(agent_id.to_owned()),
        raw_card_json: Set(snapshot.raw_card),
        normalized_card_json: Set(snapshot.normalized_card),
        compliance_json: Set(snapshot.compliance),
        signature_status: Set(snapshot.signature_status),
        digest: Set(snapshot.digest),
        resolved_card_url: Set(snapshot.resolved_card_url),
        fetched_at: Set(snapshot.fetched_at),
    };
    Ok(agent_card_snapshot::Entity::insert(row)
        .exec_with_returning(&db.write)
        .await?)
}

/// The most recent snapshot of an agent's card, if any was fetched.
pub async fn latest(db: &Db, agent_id: &str) -> Result<Option<agent_card_snapshot::Model>, StoreError> {
    Ok(latest_on(&db.read, agent_id).await?)
}

/// [`latest`] on any connection (inside a transaction that decides by the card).
pub async fn latest_on(
    conn: &impl sea_orm::ConnectionTrait,
    agent_id: &str,
) -> Result<Option<agent_card_snapshot::Model>, sea_orm::DbErr> {
    agent_card_snapshot::Entity::find()
        .filter(agent_card_snapshot::Column::AgentId.eq(agent_id))
        .order_by_desc(agent_card_snapshot::Column::FetchedAt)
        .order_by_desc(agent_card_snapshot::Column::Id)
        .one(conn)
        .await
}

/// How many snapshots of an agent's card are stored.
pub async fn count(db: &Db, agent_id: &str) -> Result<u64, StoreError> {
    use sea_orm::PaginatorTrait;
    Ok(agent_card_snapshot::Entity::find()
        .filter(agent_card_snapshot::Column::AgentId.eq(agent_id))
        .count(&db.read)
        .await?)
}
