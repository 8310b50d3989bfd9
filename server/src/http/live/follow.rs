//! One connection following a scope's feed ([`super::fanout`]): the body of
//! `GET /api/live/tasks/{id}` and `GET /api/live/conversations/{id}`.
//!
//! It catches up from the feed's newest frames when they reach back to where it is (where the
//! browser resumes, or where it was when it fell behind), and reads from the database only when
//! they do not: a resume point further back, or a gap of more than the feed keeps. Otherwise it
//! forwards the feed's frames as they are, shared bytes, with no task or channel of its own:
//! the response body is the follower.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;

use super::LivePermit;
use super::fanout::{Feeds, Frame, Start, Subscription, ledger_frame};
use crate::db::Db;
use crate::state::AppState;
use crate::store::access::Access;
use crate::store::tasks::{self as task_store, EVENTS_PER_READ, EventScope};

/// A comment frame sent after this much silence, so proxies keep the connection open.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a connection waits for a feed that is starting before it reads the database itself.
pub(super) const FEED_START_WAIT: Duration = Duration::from_secs(1);
/// How long a follower waits before reading again after a failed catch-up read.
const CATCH_UP_RETRY: Duration = Duration::from_secs(1);

struct Follower {
    subscription: Subscription,
    /// Every event of the scope up to this sequence was sent (or skipped by the resume point).
    cursor: i64,
    /// The follower must read the database before it forwards the feed's frames again.
    behind: bool,
    pending: VecDeque<Bytes>,
    db: Db,
    feeds: Feeds,
    organization_id: String,
    scope: EventScope,
    shutdown: CancellationToken,
    keep_alive: Pin<Box<Sleep>>,
    _permit: LivePermit,
}

/// The SSE response following `scope` after the sequence `after`.
pub(super) fn follow(
    state: &AppState,
    subscription: Subscription,
    organization_id: String,
    scope: EventScope,
    after: i64,
    permit: LivePermit,
) -> Response {
    let follower = Follower {
        subscription,
        cursor: after,
        behind: true,
        pending: VecDeque::new(),
        db: state.db.clone(),
        feeds: state.feeds.clone(),
        organization_id,
        scope,
        shutdown: state.shutdown.clone(),
        keep_alive: Box::pin(tokio::time::sleep(KEEP_ALIVE)),
        _permit: permit,
    };
    let frames = futures::stream::unfold(follower, |mut follower| async move {
        let bytes = follower.next().await?;
        Some((Ok::<_, Infallible>(bytes), follower))
    });
    let mut response = Response::new(Body::from_stream(frames));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    super::event_stream_headers(headers);
    response
}

impl Follower {
    /// The next bytes to send; `None` ends the stream (shutdown).
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(bytes) = self.pending.pop_front() {
                self.keep_alive.as_mut().reset(Instant::now() + KEEP_ALIVE);
                return Some(bytes);
            }
            if self.behind {
                // Boxed: the read's future is large and rarely alive.
                Box::pin(self.catch_up()).await?;
                continue;
            }
            tokio::select! {
                () = self.shutdown.cancelled() => return None,
                () = &mut self.keep_alive => {
                    self.keep_alive.as_mut().reset(Instant::now() + KEEP_ALIVE);
                    return Some(Bytes::from_static(b":\n\n"));
                }
                frame = self.subscription.frames.recv() => match frame {
                    Ok(frame) => self.take(&frame),
                    Err(RecvError::Lagged(_)) => self.behind = true,
                    // The feed stopped: end, and the browser reconnects where it was.
                    Err(RecvError::Closed) => return None,
                },
            }
        }
    }

    /// Queues a frame of the feed, or notes a gap before it.
    fn take(&mut self, frame: &Arc<Frame>) {
        match frame.sequence {
            None => self.pending.push_back(frame.bytes.clone()),
            Some(sequence) if sequence <= self.cursor => {}
            // The scope has no event between the previous frame and this one.
            Some(sequence) if frame.prev <= self.cursor => {
                self.pending.push_back(frame.bytes.clone());
                self.cursor = sequence;
            }
            Some(_) => self.behind = true,
        }
    }

    /// Catches up to the feed: from its newest frames when they reach back to the cursor (once
    /// the feed has read them), else by reading one page of the scope's events after the cursor
    /// from the database, caught up when it is not full. `None` at shutdown.
    async fn catch_up(&mut self) -> Option<()> {
        let start = tokio::select! {
            () = self.shutdown.cancelled() => return None,
            start = self.subscription.started(FEED_START_WAIT) => start,
        };
        match start {
            // The feed is gone: end, and the browser reconnects where it was.
            Start::Missing | Start::Stopped => return None,
            Start::Ready => {
                if let Some(backlog) = self.subscription.backlog(self.cursor) {
                    self.behind = false;
                    for frame in &backlog {
                        self.take(frame);
                    }
                    return Some(());
                }
            }
            Start::Pending => {}
        }
        self.feeds.count_catch_up();
        match task_store::events_after(
            &self.db.read,
            // The connection's caller was checked when it opened (`live.rs`).
            &Access::everything(self.organization_id.as_str()),
            &self.scope,
            self.cursor,
        )
        .await
        {
            Ok(events) => {
                self.behind = events.len() as u64 >= EVENTS_PER_READ;
                for event in &events {
                    self.pending.push_back(ledger_frame(event));
                    self.cursor = event.sequence;
                }
                Some(())
            }
            Err(error) => {
                tracing::warn!(%error, "live stream read failed");
                tokio::select! {
                    () = self.shutdown.cancelled() => None,
                    () = tokio::time::sleep(CATCH_UP_RETRY) => Some(()),
                }
            }
        }
    }
}
