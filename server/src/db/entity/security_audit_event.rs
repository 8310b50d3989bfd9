//! `security_audit_events`: one fact about people, sign-in or access (`shared/spec/
//! security-and-durability.md` §4.4), append-only (a trigger refuses update and delete).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "security_audit_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    /// Unique: a retried change records its fact once.
    #[sea_orm(unique)]
    pub event_key: String,
    /// `team.created`, `grant.created`, `membership.role_changed`, `session.ended`, …
    pub action: String,
    pub actor_type: crate::store::audit::ActorType,
    /// `None` for the system.
    pub actor_user_id: Option<String>,
    pub target_id: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub detail_json: Json,
    pub occurred_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
