//! `tasks`: A task row: an A2A task, or a direct Message reply (`kind = message`).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "tasks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    pub conversation_id: String,
    pub tenant: String,
    pub remote_task_id: Option<String>,
    pub remote_context_id: Option<String>,
    pub kind: app::projection::TaskKind,
    pub state: app::a2a::TaskState,
    pub state_timestamp: Option<String>,
    pub title: String,
    pub skill_id: Option<String>,
    pub turn: i64,
    pub version: i64,
    pub last_sequence: i64,
    /// Messages of the task (its `task_messages` rows), kept by ingestion.
    pub message_count: i64,
    /// Status transitions of the task (its `task_transitions` rows), kept by ingestion.
    pub transition_count: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub terminal_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
