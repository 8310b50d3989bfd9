//! Live routes: committed state pushed to browsers over SSE.
//!
//! - `GET /api/live/tasks/{id}` and `GET /api/live/conversations/{id}`: the scope's ledger
//!   events in sequence order, each frame `id: <sequence>` / `event: ledger` / `data:`
//!   [`LedgerEvent`]. Resumable: the browser's `Last-Event-ID` (or `?after=` on the first
//!   connection) says where to continue, so a dropped connection or a server restart loses and
//!   duplicates nothing. Conversation streams also send `command` frames (a send changed
//!   status) and `task` frames (a task joined the conversation).
//! - `GET /api/tasks/events`: the app-wide "something changed" signal (`ready`, `freshness`,
//!   `resync` after 15 s of silence; closed after 55 s; `retry: 1000`; no task data), as in
//!   `shared/spec/reference.md` §4.6.
//!
//! The ledger streams of one scope share one reader ([`fanout`]): it wakes on the in-process bus,
//! which carries every commit of this process, reads the new events once and fans the encoded
//! frames out to every connection following the scope ([`follow`]). On SQLite one process owns
//! the database, so the bus covers everything and the reader re-reads only every
//! [`SAFETY_NET_REREAD`] as a safety net; on PostgreSQL it also re-reads every [`REREAD`], which
//! is how commits made by another replica reach it (issue #26).
//!
//! Every live connection (these three routes and `POST /api/agents/{id}/stream`) holds one of
//! the process's `A2A_MAX_LIVE_CONNECTIONS` permits for as long as its body is open; past the
//! cap the route answers `503` with `Retry-After` and [`LIVE_BUSY`], before reading anything.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::api::error::ApiError;
use super::api::principal::Principal;
use crate::services::tasks as task_services;
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::tasks::{self as task_store, EventScope};

pub mod fanout;
mod feed;
mod follow;

use fanout::Start;

/// How often a live stream re-reads without a wake-up on PostgreSQL (other replicas' commits).
pub const REREAD: Duration = Duration::from_secs(1);
/// How often a live stream re-reads without a wake-up on SQLite, where the bus sees every commit.
pub const SAFETY_NET_REREAD: Duration = Duration::from_secs(15);
/// The `503` message when every live connection permit is taken.
pub const LIVE_BUSY: &str = "Too many live connections are open; try again in a few seconds.";
/// The `Retry-After` of that `503`, in seconds.
pub const LIVE_RETRY_AFTER_SECONDS: u64 = 5;
/// Silence after which the freshness stream sends `resync`.
pub const RESYNC_AFTER: Duration = Duration::from_secs(15);
/// The freshness stream closes after this long; the browser reconnects.
pub const FRESHNESS_LIFETIME: Duration = Duration::from_secs(55);

/// One open live connection; dropped with the response body, which frees the slot.
pub type LivePermit = OwnedSemaphorePermit;

/// Takes a live connection permit, or answers the `503` a client should retry later.
#[allow(clippy::result_large_err)]
pub(crate) fn admit(state: &AppState) -> Result<LivePermit, Response> {
    state.live_connections.clone().try_acquire_owned().map_err(|_| {
        let mut response = ApiError::unavailable_with(LIVE_BUSY).into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(LIVE_RETRY_AFTER_SECONDS));
        response
    })
}

/// The re-read interval without a wake-up for this database.
pub(crate) fn reread(state: &AppState) -> Duration {
    if state.db.is_sqlite() {
        SAFETY_NET_REREAD
    } else {
        REREAD
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct After {
    after: Option<i64>,
}

fn resume_point(headers: &HeaderMap, query: &After) -> i64 {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(query.after)
        .unwrap_or(0)
        .max(0)
}

/// `GET /api/live/tasks/{id}`.
pub async fn task_stream(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    Query(query): Query<After>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let permit = match admit(&state) {
        Ok(permit) => permit,
        Err(busy) => return Ok(busy),
    };
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(StoreError::NotFound.into());
    }
    // A member with grants reads only the tasks they cover (§1.3: anything else is a 404); the
    // feed below is shared by every connection to the task, so it is checked here, first.
    if !principal.access.is_everything() {
        task_services::find(&state.db, &principal.access, &id).await?;
    }
    let organization_id = principal.organization_id().to_owned();
    let scope = EventScope::Task(id.clone());
    let subscription = state.feeds.subscribe(&state, &organization_id, &scope);
    // The feed looks the task up once for every connection opening meanwhile; when it is slow
    // to, the connection looks for itself.
    match subscription.started(follow::FEED_START_WAIT).await {
        Start::Ready => {}
        Start::Missing => return Err(StoreError::NotFound.into()),
        Start::Pending | Start::Stopped => {
            task_services::find(&state.db, &principal.access, &id).await?;
        }
    }
    let after = resume_point(&headers, &query);
    Ok(follow::follow(
        &state,
        subscription,
        organization_id,
        scope,
        after,
        permit,
    ))
}

/// `GET /api/live/conversations/{id}`.
pub async fn conversation_stream(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    Query(query): Query<After>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if uuid::Uuid::parse_str(&id).is_err() {
        return Err(ApiError::not_found("Conversation not found."));
    }
    let permit = match admit(&state) {
        Ok(permit) => permit,
        Err(busy) => return Ok(busy),
    };
    let organization_id = principal.organization_id().to_owned();
    // A conversation's stream carries every task in it: a member needs a grant on its whole
    // agent (a member granted single skills follows their tasks one by one).
    if !principal.access.is_everything() {
        let agent = task_store::conversation_agent(&state.db.read, &organization_id, &id).await?;
        if !agent.is_some_and(|agent| principal.access.reads_agent(&agent)) {
            return Err(ApiError::not_found("Conversation not found."));
        }
    }
    let scope = EventScope::Conversation(id);
    let subscription = state.feeds.subscribe(&state, &organization_id, &scope);
    let after = resume_point(&headers, &query);
    Ok(follow::follow(
        &state,
        subscription,
        organization_id,
        scope,
        after,
        permit,
    ))
}

/// An SSE response of the frames sent on `events`, with the no-store and no-buffering headers
/// every event stream here carries; it ends when the sender is dropped. The body owns
/// `permit`, so the connection's slot is freed the moment the body is dropped.
pub(crate) fn sse(events: mpsc::Receiver<Event>, permit: LivePermit) -> Response {
    let stream = futures::stream::unfold((events, permit), |(mut rx, permit)| async move {
        rx.recv()
            .await
            .map(|event| (Ok::<_, Infallible>(event), (rx, permit)))
    });
    let mut response = Sse::new(stream).keep_alive(KeepAlive::default()).into_response();
    event_stream_headers(response.headers_mut());
    response
}

/// The headers every event stream here carries: not stored, not transformed, not buffered by
/// a proxy.
pub(crate) fn event_stream_headers(headers: &mut HeaderMap) {
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-store, no-transform"),
    );
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
}

/// `GET /api/tasks/events`: content-free change signals for lists.
pub async fn freshness(State(state): State<AppState>) -> Result<Response, ApiError> {
    let permit = match admit(&state) {
        Ok(permit) => permit,
        Err(busy) => return Ok(busy),
    };
    // Read once before answering so a database failure is an ordinary HTTP error.
    state.organization_id().await?;
    let (tx, rx) = mpsc::channel::<Event>(8);
    tokio::spawn(async move {
        let frame = |name: &str| {
            Event::default()
                .event(name)
                .retry(Duration::from_millis(1000))
                .data("{}")
        };
        let mut notices = state.bus.subscribe();
        if tx.send(frame("ready")).await.is_err() {
            return;
        }
        let end = tokio::time::sleep(FRESHNESS_LIFETIME);
        tokio::pin!(end);
        loop {
            let silence = tokio::time::sleep(RESYNC_AFTER);
            tokio::pin!(silence);
            let name = tokio::select! {
                () = state.shutdown.cancelled() => return,
                () = &mut end => return,
                () = tx.closed() => return,
                () = &mut silence => "resync",
                notice = notices.recv() => match notice {
                    Ok(_) | Err(RecvError::Lagged(_)) => "freshness",
                    Err(RecvError::Closed) => return,
                },
            };
            if name == "freshness" {
                // Coalesce a burst into one signal.
                tokio::time::sleep(Duration::from_millis(250)).await;
                while notices.try_recv().is_ok() {}
            }
            if tx.send(frame(name)).await.is_err() {
                return;
            }
        }
    });
    Ok(sse(rx, permit))
}
