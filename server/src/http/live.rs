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
//! Each stream wakes on the in-process bus, which carries every commit of this process. On
//! SQLite one process owns the database, so the bus covers everything and the stream re-reads
//! only every [`SAFETY_NET_REREAD`] as a safety net; on PostgreSQL it also re-reads every
//! [`REREAD`], which is how commits made by another replica reach it (issue #26).
//!
//! Every live connection (these three routes and `POST /api/agents/{id}/stream`) holds one of
//! the process's `A2A_MAX_LIVE_CONNECTIONS` permits for as long as its body is open; past the
//! cap the route answers `503` with `Retry-After` and [`LIVE_BUSY`], before reading anything.

use std::convert::Infallible;
use std::time::Duration;

use app::api::tasks::LedgerEvent;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::api::error::ApiError;
use crate::ingest::bus::Notice;
use crate::ingest::committed::{CommittedEvents, Wake};
use crate::services::commands;
use crate::services::tasks as task_services;
use crate::state::AppState;
use crate::store::organizations;
use crate::store::tasks::EventScope;

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
fn reread(state: &AppState) -> Duration {
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
    Path(id): Path<String>,
    Query(query): Query<After>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let permit = match admit(&state) {
        Ok(permit) => permit,
        Err(busy) => return Ok(busy),
    };
    let organization = organizations::local(&state.db).await?;
    let task = task_services::find(&state.db, &organization.id, &id).await?;
    let after = resume_point(&headers, &query);
    Ok(ledger_stream(
        state,
        organization.id,
        EventScope::Task(task.id),
        after,
        permit,
    ))
}

/// `GET /api/live/conversations/{id}`.
pub async fn conversation_stream(
    State(state): State<AppState>,
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
    let organization = organizations::local(&state.db).await?;
    let after = resume_point(&headers, &query);
    Ok(ledger_stream(
        state,
        organization.id,
        EventScope::Conversation(id),
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
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-store, no-transform"),
    );
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

fn ledger_frame(event: &LedgerEvent) -> Event {
    Event::default()
        .id(event.sequence.to_string())
        .event("ledger")
        .json_data(event)
        .unwrap_or_else(|_| Event::default().comment("unserialisable event"))
}

fn ledger_stream(
    state: AppState,
    organization_id: String,
    scope: EventScope,
    after: i64,
    permit: LivePermit,
) -> Response {
    let (tx, rx) = mpsc::channel::<Event>(64);
    let conversation = matches!(scope, EventScope::Conversation(_));
    let mut events = CommittedEvents::new(
        &state.bus,
        state.db.clone(),
        organization_id.clone(),
        Some(scope),
        after,
        reread(&state),
    );
    tokio::spawn(async move {
        loop {
            match events.read().await {
                Ok(batch) => {
                    for event in &batch.events {
                        if tx.send(ledger_frame(event)).await.is_err() {
                            return;
                        }
                    }
                    if batch.full {
                        continue;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "live stream read failed");
                }
            }
            // Wait for something relevant, a re-read tick, or shutdown.
            loop {
                let wake = tokio::select! {
                    () = state.shutdown.cancelled() => return,
                    () = tx.closed() => return,
                    wake = events.wait() => wake,
                };
                match wake {
                    Wake::Reread => break,
                    Wake::Closed => return,
                    Wake::Notice(notice) => {
                        if conversation
                            && conversation_frame(&state, &organization_id, &notice, &tx)
                                .await
                                .is_err()
                        {
                            return;
                        }
                        if events.advances(&notice) {
                            break;
                        }
                    }
                }
            }
        }
    });
    sse(rx, permit)
}

/// The extra frames of a conversation stream: `task` when a task joined it, `command` when one
/// of its sends changed status; `notice` is about that conversation. `Err` when the client went
/// away.
async fn conversation_frame(
    state: &AppState,
    organization_id: &str,
    notice: &Notice,
    tx: &mpsc::Sender<Event>,
) -> Result<(), ()> {
    let frame = match notice {
        Notice::Ledger {
            task_id,
            new_task: true,
            ..
        } => Some(
            Event::default()
                .event("task")
                .data(serde_json::json!({ "taskId": task_id }).to_string()),
        ),
        Notice::Command { command_id, .. } => commands::find(&state.db, organization_id, command_id)
            .await
            .ok()
            .and_then(|command| {
                Event::default()
                    .event("command")
                    .json_data(commands::view(&command))
                    .ok()
            }),
        _ => None,
    };
    match frame {
        Some(frame) => tx.send(frame).await.map_err(|_| ()),
        None => Ok(()),
    }
}

/// `GET /api/tasks/events`: content-free change signals for lists.
pub async fn freshness(State(state): State<AppState>) -> Result<Response, ApiError> {
    let permit = match admit(&state) {
        Ok(permit) => permit,
        Err(busy) => return Ok(busy),
    };
    // Read once before answering so a database failure is an ordinary HTTP error.
    organizations::local(&state.db).await?;
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
