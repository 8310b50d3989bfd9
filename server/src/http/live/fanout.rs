//! One reader per live scope, fanned out to every connection that follows it (issue #33).
//!
//! The first connection to follow a task or a conversation starts its *feed*: one task that
//! subscribes to the bus, starts at the scope's head and, on each relevant commit, reads the new
//! events once, encodes each SSE frame once and broadcasts it. Every connection
//! ([`super::follow`]) catches up from the database to where it resumes, then forwards the
//! feed's frames: the same bytes, shared. A frame carries the sequence of the feed's previous
//! event, so a connection that missed frames (it fell more than [`FEED_CAPACITY`] frames behind,
//! or joined while the feed was reading) sees the gap and reads it from the database: nothing is
//! lost or sent twice. The feed stops when its last follower goes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use app::api::tasks::LedgerEvent;
use bytes::Bytes;
use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::ingest::bus::Notice;
use crate::ingest::committed::{CommittedEvents, Wake};
use crate::services::commands;
use crate::state::AppState;
use crate::store::tasks::{self as task_store, EventScope};

/// Frames a feed keeps for followers that are behind; one further behind reads the database.
pub const FEED_CAPACITY: usize = 1024;
/// How long a feed waits before trying again when it cannot read the scope's head.
const HEAD_RETRY: Duration = Duration::from_secs(1);
/// [`Subscription::head`] before the feed has read the scope's head.
pub(super) const NOT_STARTED: i64 = i64::MAX;

/// One encoded SSE frame, shared by every follower.
#[derive(Debug)]
pub struct Frame {
    /// The ledger sequence; `None` for a conversation's `task` and `command` frames.
    pub sequence: Option<i64>,
    /// The sequence of the feed's previous ledger frame (the scope's head when the feed started).
    pub prev: i64,
    pub bytes: Bytes,
}

/// A ledger event as one SSE frame: `id:` its sequence, `event: ledger`, `data:` the JSON.
pub fn ledger_frame(event: &LedgerEvent) -> Bytes {
    match serde_json::to_string(event) {
        Ok(data) => format!("id: {}\nevent: ledger\ndata: {data}\n\n", event.sequence).into(),
        Err(_) => Bytes::from_static(b": unserialisable event\n\n"),
    }
}

fn named_frame(name: &str, data: &impl serde::Serialize) -> Option<Bytes> {
    let data = serde_json::to_string(data).ok()?;
    Some(format!("event: {name}\ndata: {data}\n\n").into())
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    organization_id: String,
    scope: EventScope,
}

/// The process's live feeds, by scope. Cheap to clone.
#[derive(Clone, Default)]
pub struct Feeds {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Feeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feeds").field("running", &self.running()).finish()
    }
}

#[derive(Default)]
struct Shared {
    feeds: Mutex<HashMap<Key, Weak<Feed>>>,
    feed_reads: AtomicU64,
    catch_up_reads: AtomicU64,
}

/// A running feed; it stops when the last [`Subscription`] holding it is dropped.
pub struct Feed {
    frames: broadcast::Sender<Arc<Frame>>,
    head: Arc<AtomicI64>,
    key: Key,
    shared: Weak<Shared>,
    _stop: DropGuard,
}

impl Drop for Feed {
    fn drop(&mut self) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        let mut feeds = shared.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        // A feed started for the same scope since then is alive: it stays.
        if feeds.get(&self.key).is_some_and(|feed| feed.strong_count() == 0) {
            feeds.remove(&self.key);
        }
    }
}

/// A follower's place on a feed.
pub struct Subscription {
    /// Frames broadcast since the subscription was taken.
    pub frames: broadcast::Receiver<Arc<Frame>>,
    /// The feed's last sequence when the subscription was taken ([`NOT_STARTED`] before it
    /// read the scope's head): a follower resuming at or after it needs no catch-up read.
    pub head: i64,
    _feed: Arc<Feed>,
}

impl Feeds {
    /// Follows the scope: joins its feed, starting one if none runs.
    pub fn subscribe(&self, state: &AppState, organization_id: &str, scope: &EventScope) -> Subscription {
        let key = Key {
            organization_id: organization_id.to_owned(),
            scope: scope.clone(),
        };
        let mut feeds = self.shared.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        let feed = match feeds.get(&key).and_then(Weak::upgrade) {
            Some(feed) => feed,
            None => {
                let feed = self.start(state, key.clone());
                feeds.insert(key, Arc::downgrade(&feed));
                feed
            }
        };
        drop(feeds);
        // Subscribe before reading the head: every frame after that head is received.
        let frames = feed.frames.subscribe();
        Subscription {
            frames,
            head: feed.head.load(Ordering::SeqCst),
            _feed: feed,
        }
    }

    fn start(&self, state: &AppState, key: Key) -> Arc<Feed> {
        let (frames, _) = broadcast::channel(FEED_CAPACITY);
        let head = Arc::new(AtomicI64::new(NOT_STARTED));
        let stop = CancellationToken::new();
        tokio::spawn(run(
            state.clone(),
            key.clone(),
            Publisher {
                frames: frames.clone(),
                head: head.clone(),
                shared: self.shared.clone(),
            },
            stop.clone(),
        ));
        Arc::new(Feed {
            frames,
            head,
            key,
            shared: Arc::downgrade(&self.shared),
            _stop: stop.drop_guard(),
        })
    }

    /// Scopes with a running feed.
    pub fn running(&self) -> usize {
        let feeds = self.shared.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        feeds.values().filter(|feed| feed.strong_count() > 0).count()
    }

    /// Database reads made by feeds.
    pub fn feed_reads(&self) -> u64 {
        self.shared.feed_reads.load(Ordering::Relaxed)
    }

    /// Database reads made by followers catching up to a feed.
    pub fn catch_up_reads(&self) -> u64 {
        self.shared.catch_up_reads.load(Ordering::Relaxed)
    }

    pub(super) fn count_catch_up(&self) {
        self.shared.catch_up_reads.fetch_add(1, Ordering::Relaxed);
    }
}

/// The feed task's side of the channel.
struct Publisher {
    frames: broadcast::Sender<Arc<Frame>>,
    head: Arc<AtomicI64>,
    shared: Arc<Shared>,
}

impl Publisher {
    fn ledger(&self, event: &LedgerEvent, prev: i64) {
        // The head moves before the frame is sent, so a follower that reads it after
        // subscribing receives every frame past it.
        self.head.store(event.sequence, Ordering::SeqCst);
        self.send(Frame {
            sequence: Some(event.sequence),
            prev,
            bytes: ledger_frame(event),
        });
    }

    fn send(&self, frame: Frame) {
        // No receivers between two followers is normal.
        let _ = self.frames.send(Arc::new(frame));
    }
}

async fn run(state: AppState, key: Key, publisher: Publisher, stop: CancellationToken) {
    let Key {
        organization_id,
        scope,
    } = key;
    let conversation = matches!(scope, EventScope::Conversation(_));
    // Subscribed to the bus before the head is read: no commit after it goes unnoticed.
    let mut events = CommittedEvents::new(
        &state.bus,
        state.db.clone(),
        organization_id.clone(),
        Some(scope.clone()),
        0,
        super::reread(&state),
    );
    let mut prev = loop {
        match task_store::scope_head(&state.db.read, &organization_id, &scope).await {
            Ok(head) => break head,
            Err(error) => tracing::warn!(%error, "live feed could not read where the scope ends"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(HEAD_RETRY) => {}
        }
    };
    events.set_after(prev);
    publisher.head.store(prev, Ordering::SeqCst);
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
                    publisher.send(Frame {
                        sequence: None,
                        prev,
                        bytes,
                    });
                }
                if !events.advances(&notice) {
                    continue;
                }
            }
        }
        loop {
            publisher.shared.feed_reads.fetch_add(1, Ordering::Relaxed);
            match events.read().await {
                Ok(batch) => {
                    for event in &batch.events {
                        publisher.ledger(event, prev);
                        prev = event.sequence;
                    }
                    if !batch.full {
                        break;
                    }
                }
                Err(error) => {
                    // Read again at the next wake-up or re-read tick; the cursor did not move.
                    tracing::warn!(%error, "live feed read failed");
                    break;
                }
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
            let command = commands::find(&state.db, organization_id, command_id)
                .await
                .ok()?;
            named_frame("command", &commands::view(&command))
        }
        _ => None,
    }
}
