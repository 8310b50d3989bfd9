//! `decision_requests`: an approval request opened from an agent's prompt (reference §1.2).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "decision_requests")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub task_id: String,
    pub agent_id: String,
    pub tenant: String,
    pub skill_id: Option<String>,
    /// `agent:<task>:<message>:<digest prefix>`: replaying the same prompt opens nothing new.
    pub request_key: String,
    pub source_message_id: Option<String>,
    pub kind: app::ext::approval::ActionKind,
    pub status: crate::store::approvals::RequestStatus,
    pub title: String,
    pub summary: String,
    pub risk: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub policy_json: Json,
    pub requester_user_id: Option<String>,
    pub assigned_membership_id: Option<String>,
    pub current_revision: i32,
    pub expires_at: DateTimeUtc,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
