//! The task of one feed ([`super::fanout`]): it reads the scope's newest events, then wakes on
//! the bus (and re-reads on the live streams' interval) and publishes each new event once.

use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use super::fanout::{Key, Publisher, RECENT};
use crate::ingest::bus::Notice;
use crate::ingest::committed::{CommittedEvents, Wake};
use crate::services::commands;
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::tasks::{self as task_store, EventScope};

/// How long a feed waits before trying again when it cannot read the scope's newest events.
const START_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs a feed until `stop` (its last connection went), shutdown, or the scope turns out to be
/// a task that does not exist.
pub(super) async fn run(state: AppState, key: Key, publisher: Publisher, stop: CancellationToken) {
    let Key {
        organization_id,
        scope,
    } = key;
    // One feed serves every connection of the scope; each was checked when it opened (`live.rs`).
    let everything = Access::everything(organization_id.as_str());
    // Subscribed to the bus before the newest events are read: no later commit goes unnoticed.
    let mut events = CommittedEvents::new(
        &state.bus,
        state.db.clone(),
        organization_id.clone(),
        Some(scope.clone()),
        0,
        super::reread(&state),
    );
    let newest = RECENT as u64 + 1;
    let mut prev = loop {
        let read = task_store::scope_tail(&state.db.read, &everything, &scope, newest).await;
        publisher.feeds.count_feed_read();
        match read {
            Ok(tail) => break publisher.start(&tail, (tail.len() as u64) < newest),
            Err(StoreError::NotFound) => return publisher.missing(),
            Err(error) => tracing::warn!(%error, "live feed could not read the scope's newest events"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = state.shutdown.cancelled() => return,
            () = tokio::time::sleep(START_RETRY) => {}
        }
    };
    events.set_after(prev);
    let conversation = matches!(scope, EventScope::Conversation(_));
    loop {
        let wake = tokio::select! {
            () = stop.cancelled() => return,
            () = state.shutdown.cancelled() => return,
            wake = events.wait() => wake,
        };
        match wake {
            Wake::Closed => return,
            Wake::Reread => {}
            Wake::Notice(notice) => {
                if conversation
                    && let Some(bytes) = conversation_frame(&state, &organization_id, &notice).await
                {
                    publisher.other(bytes);
                }
                if !events.advances(&notice) {
                    continue;
                }
            }
        }
        prev = read_new(&mut events, &publisher, prev).await;
    }
}

/// Reads and publishes every event committed after the cursor; the feed's last sequence.
async fn read_new(events: &mut CommittedEvents, publisher: &Publisher, mut prev: i64) -> i64 {
    loop {
        publisher.feeds.count_feed_read();
        match events.read().await {
            Ok(batch) => {
                for event in &batch.events {
                    publisher.ledger(event, prev);
                    prev = event.sequence;
                }
                if !batch.full {
                    return prev;
                }
            }
            Err(error) => {
                // Read again at the next wake-up or re-read tick; the cursor did not move.
                tracing::warn!(%error, "live feed read failed");
                return prev;
            }
        }
    }
}

/// The extra frames of a conversation stream: `task` when a task joined it, `command` when one
/// of its sends changed status; `notice` is about that conversation.
async fn conversation_frame(state: &AppState, organization_id: &str, notice: &Notice) -> Option<Bytes> {
    match notice {
        Notice::Ledger {
            task_id,
            new_task: true,
            ..
        } => named_frame("task", &serde_json::json!({ "taskId": task_id })),
        Notice::Command { command_id, .. } => {
            let command = commands::find(&state.db, &Access::everything(organization_id), command_id)
                .await
                .ok()?;
            named_frame("command", &commands::view(&command))
        }
        _ => None,
    }
}

fn named_frame(name: &str, data: &impl serde::Serialize) -> Option<Bytes> {
    let data = serde_json::to_string(data).ok()?;
    Some(format!("event: {name}\ndata: {data}\n\n").into())
}
