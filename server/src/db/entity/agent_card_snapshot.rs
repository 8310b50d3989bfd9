//! `agent_card_snapshots`: every card fetched for an agent; the latest decides which
//! extensions are honoured.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "agent_card_snapshots")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    /// The card exactly as the agent served it.
    #[sea_orm(column_type = "JsonBinary")]
    pub raw_card_json: Json,
    #[sea_orm(column_type = "JsonBinary")]
    pub normalized_card_json: Json,
    #[sea_orm(column_type = "JsonBinary")]
    pub compliance_json: Json,
    /// `unsigned`, `verified`, `untrusted` or `invalid`.
    pub signature_status: String,
    /// SHA-256 (hex) of the raw card bytes.
    pub digest: String,
    /// The URL the card was finally fetched from (after the discovery fallbacks).
    pub resolved_card_url: String,
    pub fetched_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::agent::Entity",
        from = "Column::AgentId",
        to = "super::agent::Column::Id"
    )]
    Agent,
}

impl Related<super::agent::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Agent.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
