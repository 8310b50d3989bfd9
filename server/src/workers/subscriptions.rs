//! The subscription worker (`shared/spec/security-and-durability.md` §3.5–§3.6): follows every
//! active task so its state keeps arriving with no browser open.
//!
//! - Looks for new work every 250 ms, and at once when a command settles in this process (so
//!   a new task is attached to within milliseconds of its send's answer).
//! - At most `A2A_MAX_AGENT_STREAMS` (default 8) streams open per process, counting the send
//!   streams handed over by the dispatch worker: every stream holds one of the process's
//!   [`StreamSlots`](super::StreamSlots). Each subscription is held under a 15 s lease renewed
//!   every 5 s. A worker that dies loses its leases, and another (or the restarted one) takes
//!   over with `SubscribeToTask`, which observes existing work and never resends a message.
//! - Agents that stream are followed with `SubscribeToTask` while a stream slot is free; other
//!   tasks (agents that do not stream, streaming ones over the cap, and tasks waiting for
//!   input) are read with `GetTask`, the lease released in between, so a task over the cap
//!   gets a stream as soon as a slot frees. A task is read at once when it is armed (a send
//!   answered), then every 15 s (reference: "`GetTask` runs every 15 s for each known
//!   unfinished task", security-and-durability §3.6). A command accepted while a read is in
//!   flight makes the next read immediate ([`crate::store::subscriptions::wake_if_turned`]).
//!   A task whose send went out as `SendStreamingMessage` is first followed over that same
//!   stream, handed over by the dispatch worker under a lease claimed here
//!   ([`follow_open_stream`]); `SubscribeToTask` only takes over if it closes early.
//!   A task that can no longer be subscribed to (finished meanwhile) is read once with
//!   `GetTask`.
//! - Following stops only at a terminal state (issue #27). A task waiting for input
//!   (input-required, auth-required) is read with `GetTask` like any unfinished task: an agent may move on by itself, and a reply's stream may open with a stale snapshot.
//!   A new command on the task makes it due at once (in the ingestion transaction).
//! - Every `SubscribeToTask` is reconciled with one `GetTask` once open, and once more when the
//!   task finishes through it ([`observer`]): nothing emitted between two streams is lost.
//! - Every reconnect backs off, a stream that closed cleanly included ("reconnect backoff 1 s
//!   doubling to 30 s", security-and-durability §3.5): 1 s doubling to 30 s, each delay less up
//!   to a quarter at random (jitter), counted from the last healthy stream (one that stayed
//!   open [`HEALTHY_STREAM`]) or successful read.
//! - Every event is ingested fenced by the lease: a worker that lost it commits nothing.

mod observer;
mod read_ahead;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use app::a2a::AgentCard;
use app::ext::negotiation;
use chrono::Utc;
use sea_orm::{ConnectionTrait, DbErr};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use self::observer::Observer;
use super::{Heartbeat, WorkerDeps, owner_id};
use crate::db::entity::{task, task_subscription};
use crate::gateway::{Endpoint, EventStream};
use crate::services::agents as agent_services;
use crate::store::leases::{Held, SUBSCRIPTIONS};
use crate::store::subscriptions::{self as store, SubscriptionStatus};
use crate::store::{agents, card_snapshots, tasks};

pub const POLL: Duration = Duration::from_millis(250);
/// Tasks read with `GetTask` at once per process, beyond the stream cap.
pub const POLL_SLOTS: usize = 16;
pub const LEASE: Duration = Duration::from_secs(15);
pub const HEARTBEAT: Duration = Duration::from_secs(5);
pub const BACKOFF_START: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// The most stream events stored in one transaction (group commit).
pub const GROUP_LIMIT: usize = 64;
/// How often a task that is not streamed is read with `GetTask` (reference: 15 s).
pub const GET_TASK_INTERVAL: Duration = Duration::from_secs(15);
/// A stream open at least this long was healthy: the next reconnect backs off from the start.
pub const HEALTHY_STREAM: Duration = BACKOFF_MAX;

/// The loop: claims due subscriptions while fewer than the stream cap plus [`POLL_SLOTS`] run.
pub async fn run(deps: WorkerDeps, tracker: TaskTracker, shutdown: CancellationToken) {
    let running = Arc::new(AtomicUsize::new(0));
    let mut notices = deps.bus.subscribe();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(POLL) => {}
            () = super::command_notice(&mut notices) => {}
        }
        if let Err(error) = pass(&deps, &tracker, &shutdown, &running).await {
            tracing::warn!(%error, "subscription pass failed");
        }
    }
}

async fn pass(
    deps: &WorkerDeps,
    tracker: &TaskTracker,
    shutdown: &CancellationToken,
    running: &Arc<AtomicUsize>,
) -> Result<(), DbErr> {
    let free = (deps.tuning.max_streams + POLL_SLOTS).saturating_sub(running.load(Ordering::SeqCst));
    if free == 0 {
        return Ok(());
    }
    let due = store::due(&deps.db.write, free as u64).await?;
    for sub in due {
        let Some(lease) = claim(&deps.db.write, &sub.id).await? else {
            continue;
        };
        running.fetch_add(1, Ordering::SeqCst);
        let (deps, running, shutdown) = (deps.clone(), running.clone(), shutdown.clone());
        tracker.spawn(async move {
            let work = observe(&deps, &sub, &lease);
            let outcome = follow(&deps, &lease, &shutdown, work).await;
            finish(&deps, &sub, &lease, outcome).await;
            running.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// Claims the subscription `id` for a fresh owner if it is due (pending, or streaming under an
/// expired lease). Runs on any connection, so the dispatch worker can claim inside the
/// transaction that armed the row; either way only one follower can win it.
async fn claim<C: ConnectionTrait>(db: &C, id: &str) -> Result<Option<Held>, DbErr> {
    SUBSCRIPTIONS.claim(db, id, &owner_id(), LEASE).await
}

/// Claims the subscription of the local task `task_id` for a fresh owner, inside the dispatch
/// transaction that stored the send's first stream event (and armed the row), so the open send
/// stream is followed instead of dropped. `None` when the task has no subscription, or one no
/// worker holds that cannot be claimed now (stopped); [`Handover::Busy`] when a worker holds it.
pub(super) async fn claim_for_task<C: ConnectionTrait>(
    db: &C,
    task_id: &str,
) -> Result<Option<Handover>, DbErr> {
    let Some(sub) = store::of_task_on(db, task_id).await? else {
        return Ok(None);
    };
    Ok(if let Some(lease) = claim(db, &sub.id).await? {
        Some(Handover::Claimed(Box::new(sub), lease))
    } else {
        (sub.status == SubscriptionStatus::Streaming).then(|| Handover::Busy(task_id.to_owned()))
    })
}

/// Who follows a send stream kept by the dispatch worker.
pub(super) enum Handover {
    /// Claimed in the transaction that stored the send's answer.
    Claimed(Box<task_subscription::Model>, Held),
    /// Held by a worker reading the waiting task with `GetTask` (the local task id): claimed
    /// by [`claim_when_free`] once that read is done.
    Busy(String),
}

/// How long a send stream waits for a `GetTask` read of its task to release the row.
const HANDOVER_WAIT: Duration = Duration::from_secs(5);

/// Claims the subscription of `task_id` once the worker reading it releases the row (a poll
/// of a waiting task holds it for one `GetTask`); `None` if it is still held after
/// [`HANDOVER_WAIT`], or gone: that follower (or the next) sees what the stream would have.
pub(super) async fn claim_when_free(
    deps: &WorkerDeps,
    task_id: &str,
) -> Option<(task_subscription::Model, Held)> {
    let deadline = tokio::time::Instant::now() + HANDOVER_WAIT;
    while tokio::time::Instant::now() < deadline {
        match claim_for_task(&deps.db.write, task_id).await {
            Ok(Some(Handover::Claimed(sub, lease))) => return Some((*sub, lease)),
            Ok(Some(Handover::Busy(_))) => tokio::time::sleep(POLL / 5).await,
            Ok(None) => return None,
            Err(error) => {
                tracing::warn!(%error, task = %task_id, "send stream handover failed");
                return None;
            }
        }
    }
    tracing::info!(task = %task_id, "send stream dropped: the task is followed by another worker");
    None
}

/// Follows a task over a stream that is already open (the dispatch worker's send stream, whose
/// first event it stored) under a lease claimed with [`claim_for_task`]: the same ingestion,
/// de-duplication keys, fence, heartbeat and release as a subscription this worker opened. When
/// the stream closes while the task is still active the row goes back to `pending` and the loop
/// resubscribes with `SubscribeToTask` (never a resend).
pub(super) async fn follow_open_stream(
    deps: &WorkerDeps,
    sub: &task_subscription::Model,
    lease: &Held,
    events: EventStream,
    shutdown: &CancellationToken,
) {
    let work = observe_open(deps, sub, lease, events);
    let outcome = follow(deps, lease, shutdown, work).await;
    finish(deps, sub, lease, outcome).await;
}

/// Releases the row after following ended; a failure only delays the next owner (the lease
/// runs out).
async fn finish(deps: &WorkerDeps, sub: &task_subscription::Model, lease: &Held, outcome: Outcome) {
    if let Err(error) = release(deps, sub, lease, outcome).await {
        tracing::warn!(%error, task = %sub.task_id, "subscription release failed");
    }
}

/// How following a task ended.
#[derive(Debug)]
enum Outcome {
    /// The task paused or finished: stop following.
    Stopped,
    /// Follow again after a backoff.
    Again(String),
    /// The stream closed while the task was still active: follow again after a backoff
    /// (from the start when the stream was `healthy`).
    Closed { healthy: bool },
    /// Read while still active: read (or stream) again after the `GetTask` interval. `turn` is
    /// the task's turn when it was read (a command since makes the next read immediate).
    PollLater { turn: i64 },
    /// The lease was lost or the process is shutting down: leave the row to its next owner.
    Abandoned,
}

/// Runs `work` while the lease is renewed; stops it when the lease is lost or at shutdown.
async fn follow(
    deps: &WorkerDeps,
    lease: &Held,
    shutdown: &CancellationToken,
    work: impl Future<Output = Outcome>,
) -> Outcome {
    let heartbeat = Heartbeat::start(&deps.db, lease, HEARTBEAT);
    tokio::select! {
        outcome = work => outcome,
        () = heartbeat.lost.cancelled() => Outcome::Abandoned,
        () = shutdown.cancelled() => Outcome::Abandoned,
    }
}

async fn observe(deps: &WorkerDeps, sub: &task_subscription::Model, lease: &Held) -> Outcome {
    let target = match target(deps, sub).await {
        Ok(Some(target)) => target,
        Ok(None) => return Outcome::Stopped,
        Err(reason) => return Outcome::Again(reason),
    };
    let observer = Observer {
        deps,
        lease,
        target: &target,
    };
    // A stream holds a slot for as long as it is open; without one the task is polled. A task
    // waiting for input is polled too: no stream is open for it (issue #27).
    let waiting = target.task.state.is_paused();
    match (target.streaming && !waiting)
        .then(|| deps.streams.try_take())
        .flatten()
    {
        Some(_slot) => observer.stream().await,
        None => observer.read_once().await,
    }
}

/// Follows the task over `events`, already open; the agent is known to stream.
async fn observe_open(
    deps: &WorkerDeps,
    sub: &task_subscription::Model,
    lease: &Held,
    events: EventStream,
) -> Outcome {
    let target = match target(deps, sub).await {
        Ok(Some(target)) => target,
        Ok(None) => return Outcome::Stopped,
        Err(reason) => return Outcome::Again(reason),
    };
    Observer {
        deps,
        lease,
        target: &target,
    }
    .consume(events, target.task.state.clone())
    .await
}

/// What following needs to know about the task and its agent.
struct Target {
    task: task::Model,
    endpoint: Endpoint,
    /// The gateway with the agent's credential, resolved for this follow.
    gateway: crate::gateway::Gateway,
    streaming: bool,
    remote_task_id: String,
    /// Sideband URIs negotiated from the stored card: sent as the extension header and
    /// recorded with every event this subscription stores (reference §2.1, §3.5).
    negotiated: Vec<String>,
}

async fn target(deps: &WorkerDeps, sub: &task_subscription::Model) -> Result<Option<Target>, String> {
    let task = tasks::by_id(&deps.db.write, &sub.task_id)
        .await
        .map_err(|e| e.to_string())?;
    let Some(task) = task else { return Ok(None) };
    let Some(remote_task_id) = task.remote_task_id.clone() else {
        return Ok(None);
    };
    if task.state.is_terminal() {
        return Ok(None);
    }
    let agent = agents::by_id(&deps.db.write, &task.agent_id)
        .await
        .map_err(|e| e.to_string())?
        .filter(|a| a.enabled && a.removed_at.is_none());
    let Some(agent) = agent else { return Ok(None) };
    let (endpoint, gateway) = agent_services::connect(&deps.db, &deps.gateway, &deps.vault, &agent)
        .await
        .map_err(|e| e.to_string())?;
    let gateway = crate::workers::for_task(gateway, &task);
    let snapshot = card_snapshots::latest(&deps.db, &agent.id)
        .await
        .map_err(|e| e.to_string())?;
    let streaming = snapshot
        .as_ref()
        .and_then(|s| AgentCard::decode(&s.raw_card_json).ok())
        .is_some_and(|card| card.capabilities.streaming);
    let negotiated = snapshot.map_or_else(Vec::new, |s| {
        negotiation::negotiated_sideband(&s.raw_card_json, &deps.understood_sideband)
    });
    Ok(Some(Target {
        task,
        endpoint,
        gateway,
        streaming,
        remote_task_id,
        negotiated,
    }))
}

/// The delay before following again after `attempts` reconnects in a row: [`BACKOFF_START`]
/// doubling to [`BACKOFF_MAX`], less up to a quarter at random so followers that failed
/// together do not come back together.
pub fn backoff(attempts: i32) -> Duration {
    let full = BACKOFF_START
        .saturating_mul(1 << (attempts - 1).clamp(0, 5))
        .min(BACKOFF_MAX);
    let random = (uuid::Uuid::new_v4().as_u128() % 1024) as u32;
    full - full / 4 * random / 1024
}

/// Writes how following ended, if the lease is still ours.
async fn release(
    deps: &WorkerDeps,
    sub: &task_subscription::Model,
    lease: &Held,
    outcome: Outcome,
) -> Result<(), DbErr> {
    let now = Utc::now();
    let Some(held_attempts) = store::attempts_held(&deps.db.write, lease).await? else {
        return Ok(());
    };
    let again = |attempts: i32, reason: Option<String>| {
        let delay = backoff(attempts);
        tracing::info!(task = %sub.task_id, ?reason, ?delay, "following the task again later");
        (SubscriptionStatus::Pending, now + delay, attempts, reason)
    };
    let turn = match &outcome {
        Outcome::PollLater { turn } => Some(*turn),
        _ => None,
    };
    let (status, available_at, attempts, error) = match outcome {
        Outcome::Abandoned => return Ok(()),
        Outcome::Stopped => (SubscriptionStatus::Stopped, now, 0, None),
        Outcome::PollLater { .. } => (
            SubscriptionStatus::Pending,
            now + deps.tuning.get_task_interval,
            0,
            None,
        ),
        Outcome::Closed { healthy: true } => again(1, None),
        Outcome::Closed { healthy: false } => again(held_attempts + 1, None),
        Outcome::Again(reason) => again(held_attempts + 1, Some(reason)),
    };
    let release = store::Release {
        status,
        available_at,
        attempts,
        last_error: error,
    };
    let released = store::release(&deps.db.write, lease, release).await?;
    if let (true, Some(turn)) = (released, turn) {
        store::wake_if_turned(&deps.db.write, &sub.task_id, turn).await?;
    }
    Ok(())
}
