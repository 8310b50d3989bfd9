//! `agents`: an agent registered by its card URL, per organization.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "agents")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub card_url: String,
    /// `env` (from `A2A_REGISTERED_AGENTS`, cannot be removed) or `managed`.
    pub source: crate::store::agents::AgentSource,
    pub enabled: bool,
    pub display_name: Option<String>,
    pub description: Option<String>,
    /// Protocol version of the latest card snapshot (`1.0`, `0.3`, …).
    pub protocol_version: Option<String>,
    pub last_discovery_at: Option<DateTimeUtc>,
    pub last_healthy_at: Option<DateTimeUtc>,
    /// Why the latest discovery failed, shown in the agent list.
    pub last_error: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// Set when an operator removes the agent; its tasks and history stay.
    pub removed_at: Option<DateTimeUtc>,
    /// The pinned interface (`app::a2a::InterfacePin` as JSON); null means the first one the
    /// console speaks.
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub interface_pin_json: Option<Json>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::agent_card_snapshot::Entity")]
    CardSnapshots,
}

impl Related<super::agent_card_snapshot::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::CardSnapshots.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
