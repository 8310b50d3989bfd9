//! `task_messages`: Projection: one message of a task.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "task_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub task_id: String,
    pub dedupe_key: String,
    pub message_id: String,
    pub role: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub parts_json: Json,
    pub from_status: bool,
    pub state: Option<app::a2a::TaskState>,
    pub timestamp: Option<String>,
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub metadata_json: Option<Json>,
    #[sea_orm(column_type = "JsonBinary")]
    pub extensions_json: Json,
    #[sea_orm(column_type = "JsonBinary")]
    pub reference_task_ids_json: Json,
    pub sequence: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
