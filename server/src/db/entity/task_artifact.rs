//! `task_artifacts`: Projection: one artifact of a task (its parts are in the chunks).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "task_artifacts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub task_id: String,
    pub artifact_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub metadata_json: Option<Json>,
    #[sea_orm(column_type = "JsonBinary")]
    pub extensions_json: Json,
    pub streaming: bool,
    pub chunks: i32,
    pub sequence: i64,
    pub position: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
