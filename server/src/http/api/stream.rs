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

mod reader;

use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::agents::find as find_agent;
use super::body::{self, JsonBody};
use super::commands::{default_key, header_key, submit};
use super::error::ApiError;
use super::principal::{Permission, Principal};
use super::tasks::TASK_NOT_FOUND;
use crate::http::live::LivePermit;
use crate::services::commands;
use crate::services::tasks as task_services;
use crate::state::AppState;
use crate::store::{StoreError, new_id};
use reader::{Follow, Status, committed, frame, spawn};

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
        (Some(local), false) => task_services::find(&state.db, &principal.access, local)
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
    let events = committed(
        &state,
        principal.organization_id(),
        command.task_id.clone(),
        after,
    )
    .with_command(Some(command.id.clone()));
    let follow = Follow {
        organization_id: principal.organization_id().to_owned(),
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
    let found = task_services::resubscribe(&state.db, &principal.access, &agent.id, &tenant, &remote)
        .await
        .map_err(|e| match e {
            StoreError::Conflict(message) => ApiError::new(StatusCode::FORBIDDEN, message),
            other => ApiError::from_store(other, TASK_NOT_FOUND),
        })?;
    let events = committed(
        &state,
        principal.organization_id(),
        Some(found.id.clone()),
        found.last_sequence,
    );
    let follow = Follow {
        organization_id: principal.organization_id().to_owned(),
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
