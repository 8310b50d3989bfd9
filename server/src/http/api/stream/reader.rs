//! The reader of one `POST /api/agents/{agentId}/stream` answer: a task of its own that reads
//! committed state (the command, the task row and view, the ledger events) whenever the bus
//! reports a commit and every [`POLL`] at the latest, and sends the frames the route describes,
//! until the task pauses or ends, an error, or [`LIFETIME`].

use std::time::Instant;

use app::a2a::TaskState;
use app::api::tasks::{CommandStatus, LedgerEvent};
use app::ext::sideband;
use app::projection::TaskKind;
use axum::response::Response;
use axum::response::sse::Event;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::{LIFETIME, POLL, UNAVAILABLE};
use crate::db::entity::task;
use crate::http::live::LivePermit;
use crate::ingest::committed::CommittedEvents;
use crate::services::commands;
use crate::services::tasks as task_services;
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::access::Access;
use crate::store::tasks::{EventScope, TASK_VIEW_ITEMS};

/// What one stream follows.
pub(super) struct Follow {
    pub(super) organization_id: String,
    /// The send being followed; `None` for a resubscription.
    pub(super) command_id: Option<String>,
    pub(super) session: String,
    /// The local task, once known.
    pub(super) task: Option<String>,
    /// The task's committed events after the last one sent; wakes the reader on the bus.
    pub(super) events: CommittedEvents,
    /// The task version of the last snapshot sent.
    pub(super) version: Option<i64>,
    /// A send on a task that was waiting for input: its status then. The stream does not end on
    /// that same status (the agent's first answer may be a stale snapshot), only once the task
    /// moved to another state or a newer status (a new question) (issue #27).
    pub(super) waiting_from: Option<Status>,
    /// The ledger sequence of the first event sent that moved the task away from `waiting_from`.
    /// It counts only once the task row read before deciding the end includes it: events are
    /// read after the row, and ending on a row older than the event would end at the stale
    /// pause the reply was sent from.
    pub(super) left_at: Option<i64>,
}

/// A task state with the agent's timestamp of it, if it sent one.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Status {
    pub(super) state: TaskState,
    pub(super) timestamp: Option<String>,
}

impl Status {
    /// Whether `other` is a move away from this status: another state, or the same with a
    /// different timestamp (an agent that asks again stamps its new question).
    fn left_by(&self, other: &Status) -> bool {
        other.state != self.state || (other.timestamp.is_some() && other.timestamp != self.timestamp)
    }
}

enum Next {
    Continue,
    End,
    /// The client went away.
    Gone,
}

/// The committed events of `task` (once known) after `after`, re-read every [`POLL`] at the
/// latest.
pub(super) fn committed(
    state: &AppState,
    organization_id: &str,
    task: Option<String>,
    after: i64,
) -> CommittedEvents {
    CommittedEvents::new(
        &state.bus,
        state.db.clone(),
        organization_id.to_owned(),
        task.map(EventScope::Task),
        after,
        POLL,
    )
}

/// The task status a stored event reports, if it reports one (a snapshot or a status update).
fn status_of(payload: &Value) -> Option<Status> {
    let status = match app::a2a::decode_stream_event(payload).ok()?.event {
        app::a2a::StreamEvent::Task(task) => task.status,
        app::a2a::StreamEvent::StatusUpdate(update) => update.status,
        _ => return None,
    };
    Some(Status {
        state: status.state,
        timestamp: status.timestamp,
    })
}

/// The sideband events of a stored event, decoded under the URIs negotiated when it was
/// received (reference §3.5); the same decoder runs in the browser's Trace panel.
fn sideband_of(event: &LedgerEvent, session: &str) -> Vec<sideband::SidebandEvent> {
    sideband::decode(
        &event.payload,
        &event.extensions,
        &sideband::DecodeContext {
            now: event.received_at.clone(),
            id_prefix: format!("event-{}", event.sequence),
            session_id: Some(session.to_owned()),
            request_id: Some(session.to_owned()),
        },
    )
}

pub(super) fn frame(name: &str, data: &impl serde::Serialize) -> Event {
    Event::default()
        .event(name)
        .json_data(data)
        .unwrap_or_else(|_| Event::default().comment("unserialisable frame"))
}

/// Starts the reader and answers with its frames.
pub(super) fn spawn(
    state: AppState,
    mut follow: Follow,
    first: Option<Event>,
    permit: LivePermit,
) -> Response {
    let (tx, rx) = mpsc::channel::<Event>(64);
    tokio::spawn(async move {
        if let Some(first) = first
            && tx.send(first).await.is_err()
        {
            return;
        }
        let ids = json!({"sessionId": follow.session, "requestId": follow.session});
        let deadline = Instant::now() + LIFETIME;
        loop {
            match cycle(&state, &mut follow, &tx).await {
                Ok(Next::Continue) => {}
                Ok(Next::End) => break,
                Ok(Next::Gone) => return,
                Err(error) => {
                    tracing::warn!(%error, "durable task stream read failed");
                    let mut data = ids.clone();
                    data["commandId"] = json!(follow.command_id);
                    data["message"] = json!(UNAVAILABLE);
                    if tx.send(frame("error", &data)).await.is_err() {
                        return;
                    }
                    break;
                }
            }
            if Instant::now() >= deadline {
                break;
            }
            tokio::select! {
                changed = follow.events.changed() => if !changed { break },
                () = state.shutdown.cancelled() => break,
                () = tx.closed() => return,
            }
        }
        let _ = tx.send(frame("end", &ids)).await;
    });
    crate::http::live::sse(rx, permit)
}

/// One read of committed state: the command, then the task row, its view when the version
/// moved, and the ledger events after the last one sent. The end is decided on the task row
/// read before the events, so every event up to that state has been sent.
async fn cycle(state: &AppState, follow: &mut Follow, tx: &mpsc::Sender<Event>) -> Result<Next, StoreError> {
    let send = |event: Event| async move { tx.send(event).await.is_ok() };
    let ids = json!({"sessionId": follow.session, "requestId": follow.session});
    let org = Access::everything(follow.organization_id.as_str());
    let mut settled = follow.command_id.is_none();
    if let Some(id) = &follow.command_id {
        let command = commands::find(&state.db, &org, id).await?;
        match command.status {
            CommandStatus::Failed | CommandStatus::Uncertain => {
                let mut data = ids;
                data["message"] = json!(command.last_error.unwrap_or_else(|| "The command failed.".into()));
                return Ok(if send(frame("error", &data)).await {
                    Next::End
                } else {
                    Next::Gone
                });
            }
            CommandStatus::Succeeded => settled = true,
            CommandStatus::Pending | CommandStatus::Dispatching => {}
        }
        if follow.task.is_none() {
            follow.task.clone_from(&command.task_id);
        }
    }
    let Some(local) = follow.task.clone() else {
        return Ok(Next::Continue);
    };
    let row = task_services::find(&state.db, &org, &local).await?;
    let persisted = json!({
        "localId": row.id,
        "taskId": row.remote_task_id.clone().unwrap_or_else(|| row.id.clone()),
        "tenant": row.tenant,
    });
    if !send(frame("persisted", &persisted)).await {
        return Ok(Next::Gone);
    }
    if follow.version != Some(row.version) {
        let view = task_services::view(&state.db, &org, &local, TASK_VIEW_ITEMS).await?;
        follow.version = Some(row.version);
        if !send(frame("snapshot", &view)).await {
            return Ok(Next::Gone);
        }
    }
    if !follow.events.has_scope() {
        follow.events.set_scope(EventScope::Task(local));
    }
    let batch = follow.events.read().await?;
    if !send_events(follow, batch.events, tx).await {
        return Ok(Next::Gone);
    }
    Ok(if settled && finished(follow, &row) && !batch.full {
        Next::End
    } else {
        Next::Continue
    })
}

/// Sends each event's `meta`, `a2a` and `sideband` frames; `false` when the client went away.
async fn send_events(follow: &mut Follow, events: Vec<LedgerEvent>, tx: &mpsc::Sender<Event>) -> bool {
    for event in events {
        if let Some(from) = &follow.waiting_from
            && follow.left_at.is_none()
            && status_of(&event.payload).is_some_and(|status| from.left_by(&status))
        {
            follow.left_at = Some(event.sequence);
        }
        let meta = json!({
            "protocolVersion": event.protocol_version,
            "negotiatedExtensions": event.extensions,
            "sessionId": follow.session,
            "requestId": follow.session,
        });
        if tx.send(frame("meta", &meta)).await.is_err()
            || tx.send(frame("a2a", &event.payload)).await.is_err()
        {
            return false;
        }
        for sideband in sideband_of(&event, &follow.session) {
            if tx.send(frame("sideband", &sideband)).await.is_err() {
                return false;
            }
        }
    }
    true
}

/// Whether the task row (read before the events) is at a state the stream ends on: a message
/// reply, a terminal state, or a pause that is not the one a reply was sent from.
fn finished(follow: &mut Follow, row: &task::Model) -> bool {
    let now = row.state.clone();
    let current = Status {
        state: now.clone(),
        timestamp: row.state_timestamp.clone(),
    };
    let left_in_row = follow.left_at.is_some_and(|at| row.last_sequence >= at);
    if left_in_row
        || follow
            .waiting_from
            .as_ref()
            .is_some_and(|from| from.left_by(&current))
    {
        follow.waiting_from = None;
    }
    row.kind == TaskKind::Message || now.is_terminal() || (now.is_paused() && follow.waiting_from.is_none())
}
