//! The seam through which a layer above ingestion joins its transaction ([`TaskChanged`]).

use sea_orm::{DatabaseTransaction, DbErr};

use crate::db::entity::task;

/// Work a layer above ingestion does in ingestion's transaction after an event changed a task:
/// the approval detector opens a decision request in the same transaction as the prompt that
/// carries it. Ingestion calls it without knowing what it does, so `ingest` depends on no layer
/// above it; [`AppState`](crate::AppState) installs the services' hook.
pub trait TaskChanged: Send + Sync + std::fmt::Debug {
    /// Runs inside `tx`, after the change is folded into `row` and before it commits.
    fn task_changed<'a>(
        &'a self,
        tx: &'a DatabaseTransaction,
        row: &'a task::Model,
    ) -> futures::future::BoxFuture<'a, Result<(), DbErr>>;

    /// Whether [`TaskChanged::task_changed`] reads the task's projection rows for `row`
    /// (messages, transitions, artifacts): ingestion then writes what it folded so far first;
    /// otherwise those writes wait to go with the task row (ADR 0050).
    fn reads_projections(&self, _row: &task::Model) -> bool {
        true
    }
}
