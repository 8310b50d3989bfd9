//! `task_push_registrations`: a push config registered (or to be registered, or deleted) at a
//! task's agent, whose id is the config id and the callback path's last segment.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "task_push_registrations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    /// The local task.
    pub task_id: String,
    pub status: crate::store::push_registrations::PushStatus,
    /// Whether the config should exist at the agent (false once the task finished or its
    /// agent was disabled: the worker deletes it).
    pub desired: bool,
    pub attempts: i32,
    pub available_at: DateTimeUtc,
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    /// A fixed code of the last failure, never the agent's text.
    pub last_error: Option<String>,
    /// The current one-minute delivery window and the deliveries in it (§3.7: 120 per minute).
    pub window_start: Option<DateTimeUtc>,
    pub window_count: i32,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
