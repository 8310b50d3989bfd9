//! The dispatch worker (`shared/spec/security-and-durability.md` §3.4): sends stored commands.
//!
//! - Polls every 250 ms (at once when this process accepts a command) and claims at most 10
//!   due outbox rows per pass, each under a 60 s lease renewed every 20 s from the claim until
//!   the command settles, card discovery included (it can outlast a lease). A heartbeat that
//!   finds the lease gone stops the dispatch before anything is sent.
//! - Every fenced write is a conditional `UPDATE` ([`crate::store::leases`],
//!   [`crate::store::commands::transition`]): it commits only while this owner holds an
//!   unexpired lease and the command still has the status this worker expects; zero rows
//!   affected means the lease was lost, and the worker stops without sending.
//! - Failures before anything is sent (card discovery) retry up to three attempts, 1 s then
//!   2 s apart, then the command fails.
//! - An unknown outcome after the request left (timeout, dropped connection, unreadable answer)
//!   makes the command `uncertain`; nothing ever resends it. A dispatch whose lease expired
//!   (its worker died) becomes `uncertain` too. An agent that answered with an A2A error
//!   did not act: that command `failed` with the agent's message (ADR 0008).
//! - On success, ingesting the response, marking the command `succeeded` and completing the
//!   outbox row happen in one transaction fenced by the lease.
//! - An agent that streams is sent the command with `SendStreamingMessage`: its first event is
//!   the answer above, and when it leaves the task unfinished (waiting included: the stream of a
//!   reply may open with the stale snapshot) the same transaction claims the task's
//!   subscription, so the rest of that stream is followed by the subscription code instead of
//!   dropped (the events between a send's answer and a later `SubscribeToTask` would be lost
//!   for good). Cancel stays `CancelTask`; an agent that does not stream, or a caller that asked
//!   for a blocking answer (`returnImmediately: false`), gets `SendMessage`. A send stream
//!   takes one of the process's stream slots (`A2A_MAX_AGENT_STREAMS`); with none free the
//!   command goes out as `SendMessage` and the subscription worker follows the task.

mod complete;
mod message;
mod send;
mod settle;

use std::time::Duration;

use sea_orm::DbErr;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use self::send::handle;
use super::{WorkerDeps, owner_id};
use crate::services::commands::DISPATCH_TOPIC;
use crate::store::dispatch as store;
use crate::store::leases::OUTBOX;

pub const POLL: Duration = Duration::from_millis(250);
/// Commands claimed at most per pass (one write claims them all).
pub const BATCH: u64 = 10;
/// The dispatch lease (reference: 60 s); the heartbeat renews it every third of it.
pub const LEASE: Duration = Duration::from_secs(60);
/// Attempts before a command whose agent cannot be discovered fails.
pub const MAX_ATTEMPTS: i32 = 3;

pub const DISCOVERY_FAILED: &str = "Agent discovery failed before dispatch after three attempts.";
pub const UNCERTAIN: &str =
    "Remote outcome is uncertain. Automatic resend is disabled; check the task before submitting new work.";
pub const LEASE_EXPIRED: &str = "A previous dispatch lease expired. Remote outcome requires reconciliation.";
pub const LEASE_LOST: &str = "Dispatch lease lost before completion.";
pub const AGENT_REMOVED: &str = "The agent has been removed.";

/// Media types the console can show, asked for when the caller names none (reference §4.4).
pub use app::settings::DEFAULT_OUTPUT_MODES;

/// The loop: one pass every [`POLL`] until shutdown.
pub async fn run(deps: WorkerDeps, tracker: TaskTracker, shutdown: CancellationToken) {
    let mut notices = deps.bus.subscribe();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(POLL) => {}
            () = super::command_notice(&mut notices) => {}
        }
        if let Err(error) = pass(&deps, &tracker, &shutdown).await {
            tracing::warn!(%error, "command dispatch pass failed");
        }
    }
}

/// Where a send stream kept after its answer is followed: the worker's tracker, and the token
/// that stops it at shutdown (like the subscription worker's follows).
#[derive(Clone)]
struct Follows {
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

/// Claims due commands and dispatches each in its own task. Returns how many were claimed.
pub async fn pass(
    deps: &WorkerDeps,
    tracker: &TaskTracker,
    shutdown: &CancellationToken,
) -> Result<usize, DbErr> {
    let follows = Follows {
        tracker: tracker.clone(),
        shutdown: shutdown.clone(),
    };
    let due = store::due(&deps.db.write, DISPATCH_TOPIC, BATCH).await?;
    // One write claims the whole batch: a hundred sends at once are a few writes, not a hundred
    // queued behind ingestion's transactions for the single SQLite writer (issue #33).
    let ids: Vec<String> = due.iter().map(|row| row.id.clone()).collect();
    let leases = OUTBOX
        .claim_many(&deps.db.write, &ids, &owner_id(), deps.tuning.dispatch_lease)
        .await?;
    let claimed = leases.len();
    for lease in leases {
        let Some(row) = due.iter().find(|row| row.id == lease.id()) else {
            continue;
        };
        let (deps, follows, command) = (deps.clone(), follows.clone(), row.aggregate_id.clone());
        tracker.spawn(async move {
            if let Err(error) = handle(&deps, &follows, &command, &lease).await {
                tracing::warn!(%error, %command, "command dispatch failed");
            }
        });
    }
    Ok(claimed)
}
