//! Keeps PostgreSQL's statistics of the ledger tables fresh while they grow (ADR 0061,
//! [`crate::store::statistics`]): every [`PERIOD`], the tables changed enough since their last
//! analysis are analyzed, so no prepared statement keeps a plan made when they were nearly empty.
//! Every worker process may run it; two analyses of one table are harmless. Not started on SQLite.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::WorkerDeps;
use crate::store::statistics;

/// How often the ledger tables' changes are checked.
pub const PERIOD: Duration = Duration::from_secs(5);

/// The loop: one check every `period` until shutdown.
pub async fn run(deps: WorkerDeps, period: Duration, shutdown: CancellationToken) {
    let deps = &deps;
    super::every(period, shutdown, || async move {
        match statistics::refresh(&deps.db.write).await {
            Ok(tables) if tables.is_empty() => {}
            Ok(tables) => tracing::debug!(?tables, "analyzed the ledger tables"),
            Err(error) => tracing::warn!(%error, "analyzing the ledger tables failed"),
        }
    })
    .await;
}
