//! One reader per live scope, fanned out to every connection that follows it (issue #33,
//! ADR 0034).
//!
//! The first connection to follow a task or a conversation starts its *feed* ([`super::feed`]):
//! one task that reads the scope's newest events, then each relevant commit once, encodes each
//! SSE frame once and broadcasts it. The feed keeps its newest frames ([`RECENT`], at most
//! [`RECENT_BYTES`]), so a connection resuming within them starts from memory; one resuming
//! further back reads the database until it reaches them ([`super::follow`]). A ledger frame
//! carries the sequence of the feed's previous ledger frame, so a connection that missed frames
//! sees the gap (or the channel tells it that it lagged) and catches up again: nothing is lost or
//! sent twice. The feed stops when its last connection goes, and a connection ends when its
//! feed stops (the browser reconnects where it was).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use app::api::tasks::LedgerEvent;
use bytes::Bytes;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::state::AppState;
use crate::store::tasks::EventScope;

/// Frames the channel keeps for a connection that is slow to take them; one further behind
/// catches up again.
pub const FEED_CAPACITY: usize = 1024;
/// Newest ledger frames a feed keeps for connections that join it.
pub const RECENT: usize = 256;
/// At most this many bytes of them (large artifacts): older ones go first, the newest stays.
pub const RECENT_BYTES: usize = 1 << 20;

/// One encoded SSE frame, shared by every connection.
#[derive(Debug)]
pub struct Frame {
    /// The ledger sequence; `None` for a conversation's `task` and `command` frames.
    pub sequence: Option<i64>,
    /// Of a ledger frame: the sequence of the feed's previous ledger frame (the scope has no
    /// event in between). Unused (0) for the others.
    pub prev: i64,
    pub bytes: Bytes,
}

impl Frame {
    /// The ledger frame of `event`, after the feed's ledger frame `prev`.
    pub fn ledger(event: &LedgerEvent, prev: i64) -> Arc<Frame> {
        Arc::new(Frame {
            sequence: Some(event.sequence),
            prev,
            bytes: ledger_frame(event),
        })
    }
}

/// A ledger event as one SSE frame: `id:` its sequence, `event: ledger`, `data:` the JSON.
pub fn ledger_frame(event: &LedgerEvent) -> Bytes {
    match serde_json::to_string(event) {
        Ok(data) => format!("id: {}\nevent: ledger\ndata: {data}\n\n", event.sequence).into(),
        Err(_) => Bytes::from_static(b": unserialisable event\n\n"),
    }
}

/// Where a feed is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Reading the scope's newest events (or retrying after a failed read).
    Pending,
    /// It has them and follows the scope.
    Ready,
    /// The scope is a task that does not exist; the feed stopped.
    Missing,
    /// The feed stopped (shutdown, or it failed); its connections end.
    Stopped,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    pub organization_id: String,
    pub scope: EventScope,
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

/// A feed; its task stops when the last [`Subscription`] holding it is dropped.
pub struct Feed {
    channel: Arc<Mutex<Channel>>,
    started: watch::Receiver<Start>,
    key: Key,
    shared: Weak<Shared>,
    _stop: DropGuard,
}

impl Feed {
    fn following(&self) -> bool {
        matches!(*self.started.borrow(), Start::Pending | Start::Ready)
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

/// What a feed publishes, under one lock, so that a connection joining takes the newest frames
/// and its place on the channel at the same point.
struct Channel {
    /// `None` once the feed stopped: receivers see the channel closed.
    frames: Option<broadcast::Sender<Arc<Frame>>>,
    /// The newest ledger frames, oldest first; `None` until the feed has read them.
    recent: Option<Recent>,
}

struct Recent {
    frames: VecDeque<Arc<Frame>>,
    bytes: usize,
    /// The scope has no event between this sequence and the oldest frame kept.
    floor: i64,
}

fn lock(channel: &Mutex<Channel>) -> MutexGuard<'_, Channel> {
    channel.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A connection's place on a feed.
pub struct Subscription {
    /// Frames broadcast since the subscription was taken.
    pub frames: broadcast::Receiver<Arc<Frame>>,
    feed: Arc<Feed>,
}

impl Subscription {
    /// Waits, at most `wait`, until the feed has read the scope's newest events (or found the
    /// scope missing, or stopped); [`Start::Pending`] if it has not by then.
    pub async fn started(&self, wait: Duration) -> Start {
        let mut started = self.feed.started.clone();
        match tokio::time::timeout(wait, started.wait_for(|start| *start != Start::Pending)).await {
            Ok(Ok(start)) => *start,
            Ok(Err(_)) => Start::Stopped,
            Err(_) => Start::Pending,
        }
    }

    /// The feed's newest frames after the sequence `after`, when they reach back to it (else
    /// the connection reads the database). Frames it also receives on [`Self::frames`] come
    /// again there, at or below its cursor by then.
    pub fn backlog(&self, after: i64) -> Option<Vec<Arc<Frame>>> {
        let channel = lock(&self.feed.channel);
        let recent = channel.recent.as_ref()?;
        (recent.floor <= after).then(|| {
            recent
                .frames
                .iter()
                .filter(|frame| frame.sequence.is_some_and(|sequence| sequence > after))
                .cloned()
                .collect()
        })
    }
}

impl Feeds {
    /// Follows the scope: joins its feed, starting one if none follows it.
    pub fn subscribe(&self, state: &AppState, organization_id: &str, scope: &EventScope) -> Subscription {
        let key = Key {
            organization_id: organization_id.to_owned(),
            scope: scope.clone(),
        };
        let mut feeds = self.shared.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        let (feed, stopped) = match feeds.get(&key).and_then(Weak::upgrade) {
            Some(feed) if feed.following() => (feed, None),
            stopped => {
                let feed = self.start(state, key.clone());
                feeds.insert(key, Arc::downgrade(&feed));
                (feed, stopped)
            }
        };
        drop(feeds);
        // Dropped after the map's lock: the last handle of a stopped feed takes that lock.
        drop(stopped);
        let frames = match &lock(&feed.channel).frames {
            Some(frames) => frames.subscribe(),
            // It stopped just now: a closed receiver ends the connection, which reconnects.
            None => broadcast::channel(1).1,
        };
        Subscription { frames, feed }
    }

    fn start(&self, state: &AppState, key: Key) -> Arc<Feed> {
        let channel = Arc::new(Mutex::new(Channel {
            frames: Some(broadcast::channel(FEED_CAPACITY).0),
            recent: None,
        }));
        let stop = CancellationToken::new();
        let (started_tx, started) = watch::channel(Start::Pending);
        let publisher = Publisher {
            channel: channel.clone(),
            started: started_tx,
            feeds: self.clone(),
        };
        tokio::spawn(super::feed::run(
            state.clone(),
            key.clone(),
            publisher,
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

    /// Database reads made by connections catching up to a feed.
    pub fn catch_up_reads(&self) -> u64 {
        self.shared.catch_up_reads.load(Ordering::Relaxed)
    }

    pub(super) fn count_feed_read(&self) {
        self.shared.feed_reads.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn count_catch_up(&self) {
        self.shared.catch_up_reads.fetch_add(1, Ordering::Relaxed);
    }
}

/// The feed task's side of the channel. Dropped when the task ends, however it ends: the
/// channel closes and the feed is marked stopped, so its connections end and the next one
/// starts a new feed.
pub(super) struct Publisher {
    channel: Arc<Mutex<Channel>>,
    started: watch::Sender<Start>,
    pub feeds: Feeds,
}

impl Publisher {
    /// The scope's newest events become the feed's first frames, kept and sent (a connection
    /// that caught up from the database meanwhile takes what it lacks from them); returns the
    /// last sequence. `complete`: these are all of the scope's events.
    pub fn start(&self, events: &[LedgerEvent], complete: bool) -> i64 {
        // Without every event of the scope, the oldest read only says where the frames begin.
        let (floor, kept) = match events.split_first() {
            Some((oldest, rest)) if !complete => (oldest.sequence, rest),
            _ => (0, events),
        };
        let mut prev = floor;
        let mut channel = lock(&self.channel);
        channel.recent = Some(Recent {
            frames: VecDeque::with_capacity(kept.len()),
            bytes: 0,
            floor,
        });
        for event in kept {
            publish(&mut channel, Frame::ledger(event, prev));
            prev = event.sequence;
        }
        drop(channel);
        self.started.send_replace(Start::Ready);
        prev
    }

    /// Publishes the ledger frame of `event`, after the ledger frame `prev`.
    pub fn ledger(&self, event: &LedgerEvent, prev: i64) {
        publish(&mut lock(&self.channel), Frame::ledger(event, prev));
    }

    /// Publishes a conversation's `task` or `command` frame (not kept for later connections).
    pub fn other(&self, bytes: Bytes) {
        if let Some(frames) = &lock(&self.channel).frames {
            // No receivers between two connections is normal.
            let _ = frames.send(Arc::new(Frame {
                sequence: None,
                prev: 0,
                bytes,
            }));
        }
    }

    /// The scope is a task that does not exist.
    pub fn missing(&self) {
        self.started.send_replace(Start::Missing);
    }
}

fn publish(channel: &mut Channel, frame: Arc<Frame>) {
    if let Some(recent) = channel.recent.as_mut() {
        recent.bytes += frame.bytes.len();
        recent.frames.push_back(frame.clone());
        while recent.frames.len() > RECENT || (recent.bytes > RECENT_BYTES && recent.frames.len() > 1) {
            let Some(oldest) = recent.frames.pop_front() else {
                break;
            };
            recent.bytes -= oldest.bytes.len();
            recent.floor = oldest.sequence.unwrap_or(recent.floor);
        }
    }
    if let Some(frames) = &channel.frames {
        let _ = frames.send(frame);
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        lock(&self.channel).frames = None;
        self.started.send_if_modified(|start| {
            let stopped = matches!(start, Start::Pending | Start::Ready);
            if stopped {
                *start = Start::Stopped;
            }
            stopped
        });
    }
}
