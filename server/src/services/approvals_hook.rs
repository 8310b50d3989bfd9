//! The services' part of ingestion: the hook that runs approval detection
//! ([`approvals::detect`]) inside ingestion's transaction, so a decision request opens in the
//! same transaction as the prompt that carries it while `ingest` does not call up into `services`.

use futures::future::BoxFuture;
use sea_orm::{DatabaseTransaction, DbErr};

use crate::db::entity::task;
use crate::ingest::TaskChanged;
use crate::services::approvals;

/// Opens a decision request when a changed task now asks for an approval.
#[derive(Clone, Copy, Debug, Default)]
pub struct DetectApprovals;

impl TaskChanged for DetectApprovals {
    fn task_changed<'a>(
        &'a self,
        tx: &'a DatabaseTransaction,
        row: &'a task::Model,
    ) -> BoxFuture<'a, Result<(), DbErr>> {
        Box::pin(async move { approvals::detect(tx, row).await.map(|_| ()) })
    }

    fn reads_projections(&self, row: &task::Model) -> bool {
        approvals::reads_prompt(row)
    }
}
