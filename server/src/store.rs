//! Repository functions: the only code that builds queries. Writes go through
//! [`Db::write`](crate::db::Db::write), reads through [`Db::read`](crate::db::Db::read).
//! Every function here is covered by the store suite on SQLite and PostgreSQL.

pub mod agents;
pub mod approvals;
pub mod artifacts;
pub mod card_snapshots;
pub mod commands;
pub mod dispatch;
pub mod leases;
pub mod organizations;
pub mod subscriptions;
pub mod tasks;

/// Errors callers act on; anything else is a database fault.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("not found")]
    NotFound,
    /// The row exists but the operation is not allowed on it (the message says why).
    #[error("{0}")]
    Conflict(&'static str),
    #[error(transparent)]
    Db(#[from] sea_orm::DbErr),
}

/// A new row id: UUIDv7, so ids sort by creation time.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
