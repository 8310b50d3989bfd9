//! The approval sweep (`shared/spec/reference.md` §4.8 "Sweep"): every `A2A_DECISION_SWEEP_MS`,
//! open requests past their expiry become `expired` and open requests of finished tasks become
//! `superseded`. Every replica may sweep; the updates are guarded by the current status, so
//! two sweeps change a request once. A sweep that changed something publishes
//! [`Notice::Approvals`](crate::ingest::bus::Notice::Approvals), so open pages refresh live.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::WorkerDeps;
use crate::services::approvals;

/// The loop: one sweep every `period` until shutdown.
pub async fn run(deps: WorkerDeps, period: Duration, shutdown: CancellationToken) {
    let deps = &deps;
    super::every(period, shutdown, || async move {
        match approvals::sweep(&deps.db, chrono::Utc::now()).await {
            Ok(swept) if swept != approvals::Swept::default() => {
                // Open pages learn of the change as they do of a reviewer's (issue #26).
                deps.bus.publish(crate::ingest::bus::Notice::Approvals);
                tracing::info!(
                    expired = swept.expired,
                    superseded = swept.superseded,
                    "approval sweep"
                );
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "approval sweep failed"),
        }
    })
    .await;
}
