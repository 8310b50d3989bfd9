//! `task_events`: The append-only event ledger.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "task_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub task_id: String,
    pub sequence: i64,
    pub source: String,
    pub event_kind: String,
    pub source_key: String,
    pub payload_digest: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub payload_json: Json,
    #[sea_orm(column_type = "JsonBinary")]
    pub extensions_json: Json,
    pub protocol_version: Option<String>,
    pub remote_timestamp: Option<String>,
    pub received_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
