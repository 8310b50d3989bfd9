//! Registered agents: managed ones an operator adds and removes, and env-seeded ones
//! (`A2A_REGISTERED_AGENTS`) that cannot be removed.

use chrono::Utc;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::access::Access;
use super::{StoreError, new_id};
use crate::db::Db;
use crate::db::entity::agent;

app::stored_words! {
    /// Where an agent registration came from (`agents.source`).
    pub enum AgentSource {
        /// Seeded from `A2A_REGISTERED_AGENTS`.
        Env = "env",
        /// Added by an operator.
        Managed = "managed",
    }
}

/// Registers `card_url` for the organization, or brings back a removed registration.
/// Registering the same URL twice returns the existing agent.
pub async fn register(
    db: &Db,
    organization_id: &str,
    card_url: &str,
    source: AgentSource,
) -> Result<agent::Model, StoreError> {
    let now = Utc::now();
    let row = agent::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(organization_id.to_owned()),
        card_url: Set(card_url.to_owned()),
        source: Set(source),
        enabled: Set(true),
        display_name: Set(None),
        description: Set(None),
        protocol_version: Set(None),
        last_discovery_at: Set(None),
        last_healthy_at: Set(None),
        last_error: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        removed_at: Set(None),
        interface_pin_json: Set(None),
    };
    // A removed agent that is registered again comes back with its history.
    agent::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([agent::Column::OrganizationId, agent::Column::CardUrl])
                .update_columns([agent::Column::RemovedAt, agent::Column::UpdatedAt])
                .to_owned(),
        )
        .exec_without_returning(&db.write)
        .await?;
    if source == AgentSource::Env {
        agent::Entity::update_many()
            .col_expr(
                agent::Column::Source,
                sea_orm::sea_query::Expr::value(AgentSource::Env.as_str()),
            )
            .filter(agent::Column::OrganizationId.eq(organization_id))
            .filter(agent::Column::CardUrl.eq(card_url))
            .exec(&db.write)
            .await?;
    }
    find_by_url(db, organization_id, card_url).await
}

/// The agent registered under `card_url`, removed or not.
pub async fn find_by_url(db: &Db, organization_id: &str, card_url: &str) -> Result<agent::Model, StoreError> {
    agent::Entity::find()
        .filter(agent::Column::OrganizationId.eq(organization_id))
        .filter(agent::Column::CardUrl.eq(card_url))
        .one(&db.write)
        .await?
        .ok_or(StoreError::NotFound)
}

/// A listed (not removed) agent of the organization that `access` sees (`NotFound` otherwise).
pub async fn find(db: &Db, access: &Access, agent_id: &str) -> Result<agent::Model, StoreError> {
    agent::Entity::find_by_id(agent_id.to_owned())
        .filter(agent::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.agents(agent::Column::Id))
        .filter(agent::Column::RemovedAt.is_null())
        .one(&db.read)
        .await?
        .ok_or(StoreError::NotFound)
}

/// Every enabled agent that is not removed, in every organization (the workers' view).
pub async fn enabled_all<C: sea_orm::ConnectionTrait>(db: &C) -> Result<Vec<agent::Model>, sea_orm::DbErr> {
    agent::Entity::find()
        .filter(agent::Column::Enabled.eq(true))
        .filter(agent::Column::RemovedAt.is_null())
        .all(db)
        .await
}

/// The agent with `id`, removed or not, of any organization (workers and transactions that
/// already know it).
pub async fn by_id<C: sea_orm::ConnectionTrait>(
    db: &C,
    id: &str,
) -> Result<Option<agent::Model>, sea_orm::DbErr> {
    agent::Entity::find_by_id(id.to_owned()).one(db).await
}

/// Agents that have not been removed and that `access` sees, oldest first.
pub async fn list(db: &Db, access: &Access) -> Result<Vec<agent::Model>, StoreError> {
    Ok(agent::Entity::find()
        .filter(agent::Column::OrganizationId.eq(&access.organization_id))
        .filter(access.agents(agent::Column::Id))
        .filter(agent::Column::RemovedAt.is_null())
        .order_by_asc(agent::Column::CreatedAt)
        .order_by_asc(agent::Column::Id)
        .all(&db.read)
        .await?)
}

/// Removes a managed agent from the list; its row, snapshots and history stay.
pub async fn remove(db: &Db, organization_id: &str, agent_id: &str) -> Result<(), StoreError> {
    let found = agent::Entity::find_by_id(agent_id.to_owned())
        .filter(agent::Column::OrganizationId.eq(organization_id))
        .filter(agent::Column::RemovedAt.is_null())
        .one(&db.write)
        .await?
        .ok_or(StoreError::NotFound)?;
    if found.source == AgentSource::Env {
        return Err(StoreError::Conflict(
            "This agent comes from A2A_REGISTERED_AGENTS and can't be removed from the UI.",
        ));
    }
    let now = Utc::now();
    let mut row: agent::ActiveModel = found.into();
    row.removed_at = Set(Some(now));
    row.updated_at = Set(now);
    agent::Entity::update(row).exec(&db.write).await?;
    Ok(())
}

/// What one discovery attempt found out about an agent.
#[derive(Clone, Debug)]
pub enum DiscoveryOutcome {
    /// The card was fetched; its name, description and protocol version are copied to the row.
    Reachable {
        display_name: Option<String>,
        description: Option<String>,
        protocol_version: Option<String>,
    },
    /// Discovery failed; the message is shown in the agent list.
    Failed { error: String },
}

/// Records the outcome of a card discovery on the agent row.
pub async fn record_discovery(
    db: &Db,
    agent_id: &str,
    outcome: DiscoveryOutcome,
) -> Result<agent::Model, StoreError> {
    let found = agent::Entity::find_by_id(agent_id.to_owned())
        .one(&db.write)
        .await?
        .ok_or(StoreError::NotFound)?;
    let now = Utc::now();
    let mut row: agent::ActiveModel = found.into();
    row.last_discovery_at = Set(Some(now));
    row.updated_at = Set(now);
    match outcome {
        DiscoveryOutcome::Reachable {
            display_name,
            description,
            protocol_version,
        } => {
            row.display_name = Set(display_name);
            row.description = Set(description);
            row.protocol_version = Set(protocol_version);
            row.last_healthy_at = Set(Some(now));
            row.last_error = Set(None);
        }
        DiscoveryOutcome::Failed { error } => row.last_error = Set(Some(error)),
    }
    Ok(agent::Entity::update(row).exec(&db.write).await?)
}

/// Pins the agent to an interface (`app::a2a::InterfacePin` as JSON), or unpins it with `None`.
pub async fn set_interface_pin(
    db: &Db,
    organization_id: &str,
    agent_id: &str,
    pin: Option<serde_json::Value>,
) -> Result<agent::Model, StoreError> {
    let found = agent::Entity::find_by_id(agent_id.to_owned())
        .filter(agent::Column::OrganizationId.eq(organization_id))
        .one(&db.write)
        .await?
        .ok_or(StoreError::NotFound)?;
    let mut row: agent::ActiveModel = found.into();
    row.interface_pin_json = Set(pin);
    row.updated_at = Set(Utc::now());
    Ok(agent::Entity::update(row).exec(&db.write).await?)
}
