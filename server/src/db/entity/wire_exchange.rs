//! `wire_exchanges`: one HTTP request a worker made to an agent for a conversation, as the
//! Wire panel shows it (issue #32). Headers are stored with every secret replaced.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "wire_exchanges")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    pub conversation_id: String,
    pub task_id: Option<String>,
    /// The A2A operation (`SendStreamingMessage`, `GetTask`, …).
    pub operation: String,
    pub method: String,
    pub url: String,
    /// The HTTP status; `None` when no answer came (refused, timed out, connection failed).
    pub status: Option<i32>,
    /// Milliseconds from sending to the response head (or to the failure).
    pub latency_ms: i32,
    /// Why no answer came, in the console's own words.
    pub error: Option<String>,
    /// `[[name, value], …]` as sent, secrets replaced.
    #[sea_orm(column_type = "JsonBinary")]
    pub request_headers_json: Json,
    /// `[[name, value], …]` as received, secrets replaced.
    #[sea_orm(column_type = "JsonBinary")]
    pub response_headers_json: Json,
    pub started_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
