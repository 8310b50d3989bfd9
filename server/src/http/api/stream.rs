//! `POST /api/agents/{agentId}/stream` (operate; `shared/spec/reference.md` §4.6,
//! `shared/spec/security-and-durability.md` §3.4 "Compatibility routes"): SSE built only from
//! **committed** state for up to 50 s, read again when the bus reports a commit of the task or a
//! status change of the command, and every 250 ms at the latest.
//!
//! The body is a command body (§4.4), or `{"resubscribe": true, "taskId": "<remote>",
//! "tenant": ""}` to follow a known task again (`taskId is required to resubscribe.`; anything
//! but an object is `A valid send or subscription object is required.`). Frames, each
//! `event: <name>` / `data: <json>`:
//!
//! - `accepted {commandId}`: first, for a newly accepted send only (not for a replayed key);
//! - `persisted {localId, taskId, tenant}`: every poll cycle once the task exists (`taskId` is
//!   the remote id, or the local one when there is none);
//! - `snapshot`: the task view, first and whenever its `version` changes;
//! - `meta {protocolVersion, negotiatedExtensions, sessionId, requestId}`: before each `a2a`;
//! - `a2a`: each stored ledger event's protocol JSON, in sequence;
//! - `sideband`: each sideband event decoded from that stored event under the URIs negotiated
//!   when it was received (reference §3), right after its `a2a` frame;
//! - `error {sessionId, requestId, message}`: the command failed or became uncertain; a read
//!   failure adds `commandId` with a fixed message;
//! - `end {sessionId, requestId}`: last, at a paused or terminal state, after an error, or
//!   after 50 s.
//!
//! `sessionId` = `requestId` = the command id (a fresh id for a resubscription). The stream is
//! a reader in its own task: a client that goes away stops the reading, never the command.
//! The stream counts toward `A2A_MAX_LIVE_CONNECTIONS`; past it the route answers `503` with
//! `Retry-After` and submits nothing ([`crate::http::live::admit`]).

use std::time::{Duration, Instant};

use app::a2a::TaskState;
use app::api::tasks::{CommandStatus, LedgerEvent};
use app::ext::sideband;
use app::projection::TaskKind;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::response::sse::Event;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::agents::find as find_agent;
use super::body::{self, JsonBody};
use super::commands::{default_key, header_key, submit};
use super::error::ApiError;
use super::principal::{Permission, Principal};
use super::tasks::TASK_NOT_FOUND;
use crate::db::entity::task;
use crate::http::live::LivePermit;
use crate::ingest::committed::CommittedEvents;
use crate::services::commands;
use crate::services::tasks as task_services;
use crate::state::AppState;
use crate::store::tasks::{EventScope, TASK_VIEW_ITEMS};
use crate::store::{StoreError, new_id};

/// How often the stream re-reads committed state.
pub const POLL: Duration = Duration::from_millis(250);
/// How long one stream lasts at most.
pub const LIFETIME: Duration = Duration::from_secs(50);

pub const INVALID_BODY: &str = "A valid send or subscription object is required.";
pub const RESUBSCRIBE_NEEDS_TASK: &str = "taskId is required to resubscribe.";
pub const RESUBSCRIBE_NOT_BOOLEAN: &str = "resubscribe must be a boolean.";
pub const UNAVAILABLE: &str =
    "Durable task stream unavailable; query task or command status before retrying.";

/// `{"resubscribe": true, "taskId", "tenant"}` (strict).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Resubscribe {
    #[serde(rename = "resubscribe")]
    _resubscribe: bool,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    tenant: Option<String>,
}

/// What one stream follows.
struct Follow {
    organization_id: String,
    /// The send being followed; `None` for a resubscription.
    command_id: Option<String>,
    session: String,
    /// The local task, once known.
    task: Option<String>,
    /// The task's committed events after the last one sent; wakes the reader on the bus.
    events: CommittedEvents,
    /// The task version of the last snapshot sent.
    version: Option<i64>,
    /// A send on a task that was waiting for input: its status then. The stream does not end on
    /// that same status (the agent's first answer may be a stale snapshot), only once the task
    /// moved to another state or a newer status (a new question) (issue #27).
    waiting_from: Option<Status>,
    /// The ledger sequence of the first event sent that moved the task away from `waiting_from`.
    /// It counts only once the task row read before deciding the end includes it: events are
    /// read after the row, and ending on a row older than the event would end at the stale
    /// pause the reply was sent from.
    left_at: Option<i64>,
}

/// A task state with the agent's timestamp of it, if it sent one.
#[derive(Clone, Debug, PartialEq)]
struct Status {
    state: TaskState,
    timestamp: Option<String>,
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

/// `POST /api/agents/{agentId}/stream`.
pub async fn stream(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
    headers: HeaderMap,
    JsonBody(value): JsonBody<Value>,
) -> Result<Response, ApiError> {
    principal.require(Permission::Operate)?;
    // Past the live connection cap nothing is submitted (issue #26).
    let permit = match crate::http::live::admit(&state) {
        Ok(permit) => permit,
        Err(busy) => return Ok(busy),
    };
    let Value::Object(mut map) = value else {
        return Err(ApiError::bad_request(INVALID_BODY));
    };
    match map.get("resubscribe") {
        Some(Value::Bool(true)) => return resubscribe(state, principal, &agent_id, map, permit).await,
        Some(Value::Bool(false)) => {
            map.remove("resubscribe");
        }
        Some(_) => return Err(ApiError::bad_request(RESUBSCRIBE_NOT_BOOLEAN)),
        None => {}
    }
    let body: commands::CommandBody = body::from_value(Value::Object(map))?;
    let key = match header_key(&headers)? {
        Some(key) => key,
        None => default_key(&agent_id, &body),
    };
    let (command, replay) = submit(&state, &principal, &agent_id, body, key).await?;
    // A follow-up on a known task streams what happens from now on, not its whole history.
    let before = match (&command.task_id, replay) {
        (Some(local), false) => task_services::find(&state.db, &principal.organization_id, local)
            .await
            .ok(),
        _ => None,
    };
    let after = before.as_ref().map_or(0, |t| t.last_sequence);
    let waiting_from = before
        .map(|t| Status {
            state: t.state,
            timestamp: t.state_timestamp,
        })
        .filter(|s| s.state.is_paused());
    let events = committed(&state, &principal.organization_id, command.task_id.clone(), after)
        .with_command(Some(command.id.clone()));
    let follow = Follow {
        organization_id: principal.organization_id,
        command_id: Some(command.id.clone()),
        session: command.id.clone(),
        task: command.task_id.clone(),
        events,
        version: None,
        waiting_from,
        left_at: None,
    };
    let first = (!replay).then(|| frame("accepted", &json!({ "commandId": command.id })));
    Ok(spawn(state, follow, first, permit))
}

async fn resubscribe(
    state: AppState,
    principal: Principal,
    agent_id: &str,
    map: Map<String, Value>,
    permit: LivePermit,
) -> Result<Response, ApiError> {
    let body: Resubscribe = body::from_value(Value::Object(map))?;
    let remote = body
        .task_id
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| ApiError::bad_request(RESUBSCRIBE_NEEDS_TASK))?;
    let agent = find_agent(&state, &principal, agent_id).await?;
    let tenant = body.tenant.unwrap_or_default();
    let found =
        task_services::resubscribe(&state.db, &principal.organization_id, &agent.id, &tenant, &remote)
            .await
            .map_err(|e| ApiError::from_store(e, TASK_NOT_FOUND))?;
    let events = committed(
        &state,
        &principal.organization_id,
        Some(found.id.clone()),
        found.last_sequence,
    );
    let follow = Follow {
        organization_id: principal.organization_id,
        command_id: None,
        session: new_id(),
        task: Some(found.id),
        events,
        version: None,
        waiting_from: None,
        left_at: None,
    };
    Ok(spawn(state, follow, None, permit))
}

/// The committed events of `task` (once known) after `after`, re-read every [`POLL`] at the
/// latest.
fn committed(state: &AppState, organization_id: &str, task: Option<String>, after: i64) -> CommittedEvents {
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

fn frame(name: &str, data: &impl serde::Serialize) -> Event {
    Event::default()
        .event(name)
        .json_data(data)
        .unwrap_or_else(|_| Event::default().comment("unserialisable frame"))
}

/// Starts the reader and answers with its frames.
fn spawn(state: AppState, mut follow: Follow, first: Option<Event>, permit: LivePermit) -> Response {
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
    let org = follow.organization_id.clone();
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
