//! `task_commands`: A send or cancel, stored before it is dispatched.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "task_commands")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    pub conversation_id: Option<String>,
    pub task_id: Option<String>,
    pub tenant: String,
    pub action: crate::store::commands::CommandAction,
    pub idempotency_key: String,
    pub message_id: String,
    pub payload_digest: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub payload_json: Json,
    pub status: crate::store::commands::CommandStatus,
    pub attempts: i32,
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub result_json: Option<Json>,
    pub last_error: Option<String>,
    pub skill_id: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
