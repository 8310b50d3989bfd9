//! One reader per live scope, fanned out to every connection that follows it (issue #33,
//! ADR 0034).
//!
//! The first connection to follow a task or a conversation starts its *feed*: one task that
//! subscribes to the bus, reads the scope's newest [`RECENT`] events, and on each relevant commit
//! reads the new events once, encodes each SSE frame once and broadcasts it. The feed keeps its
//! newest [`RECENT`] frames, so a connection that resumes within them starts from memory; one that
//! resumes further back reads the database until it reaches them ([`super::follow`]). A frame
//! carries the sequence of the feed's previous event, so a connection that missed frames (it fell
//! more than [`FEED_CAPACITY`] frames behind, say) sees the gap and reads it from the database:
//! nothing is lost or sent twice. The feed stops when its last follower goes.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use app::api::tasks::LedgerEvent;
use bytes::Bytes;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::ingest::bus::Notice;
use crate::ingest::committed::{CommittedEvents, Wake};
use crate::services::commands;
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::tasks::{self as task_store, EventScope};

/// Frames the channel keeps for a follower that is slow to take them; one further behind reads
/// the database.
pub const FEED_CAPACITY: usize = 1024;
/// Newest frames a feed keeps for connections that join it.
pub const RECENT: usize = 256;
/// How long a feed waits before trying again when it cannot read the scope's newest events.
const START_RETRY: Duration = Duration::from_secs(1);

/// One encoded SSE frame, shared by every follower.
#[derive(Debug)]
pub struct Frame {
    /// The ledger sequence; `None` for a conversation's `task` and `command` frames.
    pub sequence: Option<i64>,
    /// The sequence of the feed's previous ledger frame; the scope has no event in between.
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
    channel: Arc<Mutex<Channel>>,
    started: watch::Receiver<Start>,
    key: Key,
    shared: Weak<Shared>,
    _stop: DropGuard,
}

/// What a feed publishes, under one lock, so that a connection joining takes the newest frames
/// and its place on the channel at the same point.
struct Channel {
    frames: broadcast::Sender<Arc<Frame>>,
    /// The newest ledger frames, oldest first; `None` until the feed has read them.
    recent: Option<VecDeque<Arc<Frame>>>,
    /// The last sequence published (or, before any, where the feed started).
    head: i64,
}

impl Channel {
    fn lock(channel: &Mutex<Channel>) -> std::sync::MutexGuard<'_, Channel> {
        channel.lock().unwrap_or_else(PoisonError::into_inner)
    }
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

/// Where a feed is in its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Still reading the scope's newest events (or retrying after a failed read).
    Pending,
    /// It has them and follows the scope.
    Ready,
    /// The scope is a task that does not exist; the feed stopped.
    Missing,
}

/// A follower's place on a feed.
pub struct Subscription {
    /// Frames broadcast since the subscription was taken.
    pub frames: broadcast::Receiver<Arc<Frame>>,
    feed: Arc<Feed>,
}

impl Subscription {
    /// Waits, at most `wait`, until the feed has read the scope's newest events (or found the
    /// scope missing); [`Start::Pending`] if it has not by then.
    pub async fn started(&self, wait: Duration) -> Start {
        let mut started = self.feed.started.clone();
        match tokio::time::timeout(wait, started.wait_for(|start| *start != Start::Pending)).await {
            Ok(Ok(start)) => *start,
            _ => Start::Pending,
        }
    }

    /// The feed's newest frames after the sequence `after`, when they reach back to it (else
    /// the follower reads the database). Frames it also receives on [`Self::frames`] come
    /// again there, at or below its cursor by then.
    pub fn backlog(&self, after: i64) -> Option<Vec<Arc<Frame>>> {
        let channel = Channel::lock(&self.feed.channel);
        let recent = channel.recent.as_ref()?;
        let reaches = recent.front().map_or(channel.head, |oldest| oldest.prev);
        (reaches <= after).then(|| {
            recent
                .iter()
                .filter(|frame| frame.sequence.is_some_and(|sequence| sequence > after))
                .cloned()
                .collect()
        })
    }
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
        let frames = Channel::lock(&feed.channel).frames.subscribe();
        Subscription { frames, feed }
    }

    fn start(&self, state: &AppState, key: Key) -> Arc<Feed> {
        let channel = Arc::new(Mutex::new(Channel {
            frames: broadcast::channel(FEED_CAPACITY).0,
            recent: None,
            head: 0,
        }));
        let stop = CancellationToken::new();
        let (started_tx, started) = watch::channel(Start::Pending);
        tokio::spawn(run(
            state.clone(),
            key.clone(),
            Publisher {
                channel: channel.clone(),
                started: started_tx,
                shared: self.shared.clone(),
            },
            stop.clone(),
        ));
        Arc::new(Feed {
            channel,
            started,
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
    channel: Arc<Mutex<Channel>>,
    started: watch::Sender<Start>,
    shared: Arc<Shared>,
}

impl Publisher {
    /// The scope's newest events become the feed's first frames; returns the last sequence.
    fn start(&self, events: &[LedgerEvent], complete: bool) -> i64 {
        // Without every event of the scope, the oldest read only says where the frames begin.
        let (first, kept) = match events.split_first() {
            Some((oldest, rest)) if !complete => (oldest.sequence, rest),
            _ => (0, events),
        };
        let mut prev = first;
        let recent = kept
            .iter()
            .map(|event| {
                let frame = Arc::new(Frame {
                    sequence: Some(event.sequence),
                    prev,
                    bytes: ledger_frame(event),
                });
                prev = event.sequence;
                frame
            })
            .collect();
        let mut channel = Channel::lock(&self.channel);
        channel.recent = Some(recent);
        channel.head = prev;
        drop(channel);
        self.started.send_replace(Start::Ready);
        prev
    }

    fn ledger(&self, event: &LedgerEvent, prev: i64) {
        let frame = Arc::new(Frame {
            sequence: Some(event.sequence),
            prev,
            bytes: ledger_frame(event),
        });
        let mut channel = Channel::lock(&self.channel);
        channel.head = event.sequence;
        if let Some(recent) = channel.recent.as_mut() {
            if recent.len() == RECENT {
                recent.pop_front();
            }
            recent.push_back(frame.clone());
        }
        // No receivers between two followers is normal.
        let _ = channel.frames.send(frame);
    }

    fn other(&self, bytes: Bytes, prev: i64) {
        let channel = Channel::lock(&self.channel);
        let _ = channel.frames.send(Arc::new(Frame {
            sequence: None,
            prev,
            bytes,
        }));
    }
}

async fn run(state: AppState, key: Key, publisher: Publisher, stop: CancellationToken) {
    let Key {
        organization_id,
        scope,
    } = key;
    let conversation = matches!(scope, EventScope::Conversation(_));
    // Subscribed to the bus before the newest events are read: no later commit goes unnoticed.
    let mut events = CommittedEvents::new(
        &state.bus,
        state.db.clone(),
        organization_id.clone(),
        Some(scope.clone()),
        0,
        super::reread(&state),
    );
    let mut prev = loop {
        let newest = RECENT as u64 + 1;
        let read = task_store::scope_tail(&state.db.read, &organization_id, &scope, newest).await;
        publisher.shared.feed_reads.fetch_add(1, Ordering::Relaxed);
        match read {
            Ok(events) => break publisher.start(&events, (events.len() as u64) < newest),
            Err(StoreError::NotFound) => {
                publisher.started.send_replace(Start::Missing);
                return;
            }
            Err(error) => tracing::warn!(%error, "live feed could not read the scope's newest events"),
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(START_RETRY) => {}
        }
    };
    events.set_after(prev);
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
                    publisher.other(bytes, prev);
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
