//! Background workers (`shared/spec/security-and-durability.md` §3.5): command dispatch from the
//! outbox, stream subscriptions that follow every active task, and reconciliation sweeps. Both claim their work with
//! time-limited leases carrying a fresh owner id per attempt, renew them while working, and
//! commit results only while they still hold the lease, so any number of processes can share
//! one PostgreSQL database and a crashed one's work is taken over when its leases expire.
//! On a database error each loop logs one line and tries again on its next pass.

pub mod approvals;
mod claim_loop;
pub mod dispatch;
pub mod exchanges;
pub mod housekeeping;
pub mod push;
pub mod reconcile;
pub mod statistics;
pub mod subscriptions;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use std::time::Duration;

use crate::db::Db;
use crate::gateway::Gateway;
use crate::ingest::Ingestor;
use crate::ingest::bus::Bus;
use crate::store::leases::Held;

/// What the workers need; cheap to clone.
#[derive(Clone, Debug)]
pub struct WorkerDeps {
    pub db: Db,
    pub gateway: Gateway,
    /// The credential vault: each operation resolves the agent's credential again.
    pub vault: crate::vault::Vault,
    pub ingestor: Ingestor,
    pub bus: Bus,
    /// The sideband URIs this deployment understands (built-in plus configured, reference §2.1).
    pub understood_sideband: std::sync::Arc<Vec<String>>,
    /// How often the approval sweep runs (`A2A_DECISION_SWEEP_MS`).
    pub decision_sweep: std::time::Duration,
    /// Leases, intervals and the stream cap.
    pub tuning: Tuning,
    /// Push notifications (`A2A_PUSH_*`); `None`: the push worker does not run.
    pub push: Option<crate::config::push::PushSettings>,
    /// The streams this process may hold open to agents, shared by every stream it opens
    /// (send streams and subscriptions); sized from [`Tuning::max_streams`] by [`start`].
    pub streams: StreamSlots,
}

/// Leases, intervals and limits of the workers. The defaults are the reference's
/// (`shared/spec/security-and-durability.md` §3.5); tests may shorten them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// The dispatch lease (60 s), renewed every third of it from claim to settlement.
    pub dispatch_lease: std::time::Duration,
    /// Streams open to agents at once per process (`A2A_MAX_AGENT_STREAMS`, default 8).
    pub max_streams: usize,
    /// How often an open task that is not streamed is read with `GetTask` (15 s).
    pub get_task_interval: std::time::Duration,
    /// Tasks asked for per `ListTasks` page of a reconciliation sweep (50).
    pub sweep_page_size: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            dispatch_lease: dispatch::LEASE,
            max_streams: crate::config::DEFAULT_MAX_AGENT_STREAMS,
            get_task_interval: subscriptions::GET_TASK_INTERVAL,
            sweep_page_size: reconcile::PAGE_SIZE,
        }
    }
}

/// Permits for open agent streams: one is held for as long as a stream is open.
#[derive(Clone, Debug)]
pub struct StreamSlots(std::sync::Arc<tokio::sync::Semaphore>);

impl StreamSlots {
    pub fn new(max: usize) -> StreamSlots {
        StreamSlots(std::sync::Arc::new(tokio::sync::Semaphore::new(max)))
    }

    /// A slot if one is free now; `None` at the cap (the caller polls instead).
    pub fn try_take(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.0.clone().try_acquire_owned().ok()
    }
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

/// Runs `pass` every `period` (the first one period after the start) until shutdown: the loop
/// of the periodic workers (approval sweep, housekeeping, statistics).
pub(crate) async fn every<F, Fut>(period: Duration, shutdown: CancellationToken, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(period) => {}
        }
        pass().await;
    }
}

/// Renews `lease` every `beat` until the task is aborted; cancels `lost` (and ends) when a
/// renewal finds the lease gone. A database error is retried at the next beat.
async fn keep_lease(db: sea_orm::DatabaseConnection, lease: Held, beat: Duration, lost: CancellationToken) {
    loop {
        tokio::time::sleep(beat).await;
        match lease.renew(&db).await {
            Ok(true) => {}
            Ok(false) => {
                lost.cancel();
                return;
            }
            Err(error) => tracing::warn!(%error, lease = %lease.id(), "lease renewal failed"),
        }
    }
}

/// The heartbeat of one held lease: renews it every `beat` until dropped; `lost` is cancelled
/// when a renewal finds the lease gone.
struct Heartbeat {
    lost: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Heartbeat {
    fn start(db: &Db, lease: &Held, beat: Duration) -> Heartbeat {
        let lost = CancellationToken::new();
        let task = tokio::spawn(keep_lease(db.write.clone(), lease.clone(), beat, lost.clone()));
        Heartbeat { lost, task }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The delay after `attempts` failures in a row: `start` doubling to `max` (1 s, 2 s, 4 s, …).
pub fn doubling(attempts: i32, start: Duration, max: Duration) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(16);
    start.saturating_mul(2u32.saturating_pow(doublings)).min(max)
}

/// `gateway` for one operation of a conversation: its HTTP exchanges are noted for the Wire
/// panel (ADR 0046). Without a conversation nothing would list them, so it stays untagged.
pub(crate) fn for_conversation(
    gateway: Gateway,
    organization_id: &str,
    agent_id: &str,
    conversation_id: Option<&str>,
    task_id: Option<&str>,
) -> Gateway {
    match conversation_id {
        Some(conversation_id) => gateway.tagged(crate::gateway::exchanges::ExchangeTag {
            organization_id: organization_id.to_owned(),
            agent_id: agent_id.to_owned(),
            conversation_id: conversation_id.to_owned(),
            task_id: task_id.map(str::to_owned),
        }),
        None => gateway,
    }
}

/// `gateway` for one operation on `task` ([`for_conversation`]).
pub(crate) fn for_task(gateway: Gateway, task: &crate::db::entity::task::Model) -> Gateway {
    for_conversation(
        gateway,
        &task.organization_id,
        &task.agent_id,
        Some(&task.conversation_id),
        Some(&task.id),
    )
}

/// A fresh lease owner id.
pub fn owner_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Starts every worker loop on `tracker`; they stop when `shutdown` is cancelled.
/// The worker set gets its own [`StreamSlots`], sized from `deps.tuning.max_streams`.
pub fn start(mut deps: WorkerDeps, tracker: &TaskTracker, shutdown: CancellationToken) {
    deps.streams = StreamSlots::new(deps.tuning.max_streams);
    // The Wire panel's exchange log, written by one task (ADR 0046).
    let (log, queue) = crate::gateway::exchanges::ExchangeLog::channel(crate::gateway::exchanges::QUEUE);
    deps.gateway = deps.gateway.with_exchange_log(log);
    tracker.spawn(exchanges::run(deps.db.clone(), queue, shutdown.clone()));
    tracker.spawn(dispatch::run(deps.clone(), tracker.clone(), shutdown.clone()));
    tracker.spawn(approvals::run(
        deps.clone(),
        deps.decision_sweep,
        shutdown.clone(),
    ));
    tracker.spawn(housekeeping::run(
        deps.clone(),
        housekeeping::PERIOD,
        shutdown.clone(),
    ));
    // The ledger tables' statistics (ADR 0061); SQLite's plans do not depend on table sizes.
    if sea_orm::ConnectionTrait::get_database_backend(&deps.db.write) == sea_orm::DatabaseBackend::Postgres {
        tracker.spawn(statistics::run(
            deps.clone(),
            statistics::PERIOD,
            shutdown.clone(),
        ));
    }
    tracker.spawn(push::run(deps.clone(), tracker.clone(), shutdown.clone()));
    tracker.spawn(reconcile::run(deps.clone(), tracker.clone(), shutdown.clone()));
    tracker.spawn(subscriptions::run(deps, tracker.clone(), shutdown));
}
