//! Background workers (`shared/spec/security-and-durability.md` §3.5): command dispatch from the
//! outbox, and stream subscriptions that follow every active task. Both claim their work with
//! time-limited leases carrying a fresh owner id per attempt, renew them while working, and
//! commit results only while they still hold the lease, so any number of processes can share
//! one PostgreSQL database and a crashed one's work is taken over when its leases expire.
//! On a database error each loop logs one line and tries again on its next pass.

pub mod approvals;
pub mod dispatch;
pub mod subscriptions;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::db::Db;
use crate::gateway::Gateway;
use crate::ingest::Ingestor;
use crate::ingest::bus::Bus;

/// What the workers need; cheap to clone.
#[derive(Clone, Debug)]
pub struct WorkerDeps {
    pub db: Db,
    pub gateway: Gateway,
    pub ingestor: Ingestor,
    pub bus: Bus,
    /// The sideband URIs this deployment understands (built-in plus configured, reference §2.1).
    pub understood_sideband: std::sync::Arc<Vec<String>>,
    /// How often the approval sweep runs (`A2A_DECISION_SWEEP_MS`).
    pub decision_sweep: std::time::Duration,
}

/// Resolves when a command was accepted or settled in this process: the worker loops then run
/// a pass at once instead of at their next poll (other processes still find the work by
/// polling). Ledger notices are not a reason to wake.
pub async fn command_notice(notices: &mut tokio::sync::broadcast::Receiver<crate::ingest::bus::Notice>) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match notices.recv().await {
            Ok(crate::ingest::bus::Notice::Command { .. }) | Err(RecvError::Lagged(_)) => return,
            Ok(crate::ingest::bus::Notice::Ledger { .. } | crate::ingest::bus::Notice::Approvals) => {}
            Err(RecvError::Closed) => std::future::pending::<()>().await,
        }
    }
}

/// A fresh lease owner id.
pub fn owner_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Starts every worker loop on `tracker`; they stop when `shutdown` is cancelled.
pub fn start(deps: WorkerDeps, tracker: &TaskTracker, shutdown: CancellationToken) {
    tracker.spawn(dispatch::run(deps.clone(), tracker.clone(), shutdown.clone()));
    tracker.spawn(approvals::run(
        deps.clone(),
        deps.decision_sweep,
        shutdown.clone(),
    ));
    tracker.spawn(subscriptions::run(deps, tracker.clone(), shutdown));
}
