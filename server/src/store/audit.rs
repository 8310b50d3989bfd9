//! Security audit facts (`shared/spec/security-and-durability.md` §4.4): sign-in, people and
//! access changes, stored in the same transaction as the change they describe, with a stable
//! `event_key` so a retried change records one fact. The table is append-only (a trigger refuses
//! update and delete). Reading the trail is the audit issue's; the facts are kept from now on.

use chrono::Utc;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ConnectionTrait, DbErr, EntityTrait};
use serde_json::Value;

use super::new_id;
use crate::db::entity::security_audit_event;

app::stored_words! {
    /// Who did what a fact records (`security_audit_events.actor_type`).
    pub enum ActorType {
        /// A signed-in member (or the development-mode administrator).
        User = "user",
        /// The console itself: the CLI, provisioning, sweeps.
        System = "system",
        /// An agent.
        Agent = "agent",
    }
}

/// Who acted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actor {
    User(String),
    System,
}

/// One fact to record.
#[derive(Clone, Debug)]
pub struct Fact<'a> {
    pub organization_id: &'a str,
    /// Unique per fact: the same key twice stores one row.
    pub event_key: String,
    pub action: &'static str,
    pub actor: &'a Actor,
    pub target_id: &'a str,
    pub detail: Value,
}

/// Records `fact` on `db` (the change's own transaction); a fact with the same key is kept as
/// it was.
pub async fn record<C: ConnectionTrait>(db: &C, fact: Fact<'_>) -> Result<(), DbErr> {
    let (actor_type, actor_user_id) = match fact.actor {
        Actor::User(id) => (ActorType::User, Some(id.clone())),
        Actor::System => (ActorType::System, None),
    };
    let row = security_audit_event::ActiveModel {
        id: Set(new_id()),
        organization_id: Set(fact.organization_id.to_owned()),
        event_key: Set(fact.event_key),
        action: Set(fact.action.to_owned()),
        actor_type: Set(actor_type),
        actor_user_id: Set(actor_user_id),
        target_id: Set(fact.target_id.to_owned()),
        detail_json: Set(fact.detail),
        occurred_at: Set(Utc::now()),
    };
    security_audit_event::Entity::insert(row)
        .on_conflict(
            OnConflict::column(security_audit_event::Column::EventKey)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// The facts of `organization_id`, oldest first (tests and, later, the audit trail).
pub async fn of_organization<C: ConnectionTrait>(
    db: &C,
    organization_id: &str,
) -> Result<Vec<security_audit_event::Model>, DbErr> {
    use sea_orm::{ColumnTrait, QueryFilter, QueryOrder};
    security_audit_event::Entity::find()
        .filter(security_audit_event::Column::OrganizationId.eq(organization_id))
        .order_by_asc(security_audit_event::Column::OccurredAt)
        .order_by_asc(security_audit_event::Column::Id)
        .all(db)
        .await
}
