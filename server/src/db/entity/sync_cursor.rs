//! `sync_cursors`: one `ListTasks` sweep schedule per (organization, agent, tenant), with its
//! lease and the page token of a sweep in progress.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "sync_cursors")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub organization_id: String,
    pub agent_id: String,
    pub tenant: String,
    pub status: crate::store::sync_cursors::SyncStatus,
    /// The agent's opaque token for the next page of the sweep in progress; saved only after
    /// the page before it was ingested.
    pub page_token: Option<String>,
    pub attempts: i32,
    pub available_at: DateTimeUtc,
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    /// A fixed code of the last failure (`app::words::SyncFailure`), never the agent's text.
    pub last_error: Option<String>,
    /// When the last full sweep finished.
    pub swept_at: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
