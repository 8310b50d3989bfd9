//! Command routes (`shared/spec/reference.md` §4.5, `shared/spec/security-and-durability.md`
//! §3.4 and §3.10):
//!
//! - `POST /api/agents/{agentId}/commands` (operate): **requires** `Idempotency-Key`; body is a
//!   command body (§4.4); `202`, `Location: /api/commands/<id>`, `{"command": …}`. The same key
//!   and body return the same command (`202`); different content `409`.
//! - `GET /api/commands/{commandId}` (read): `{"command": …}`; `404` for unknown or non-UUID ids.
//! - `POST /api/agents/{agentId}/messages` (operate): accept, then wait up to 50 s polling every
//!   100 ms ([`wait_for`]); the answer is [`outcome`].
//! - `POST /api/agents/{agentId}/tasks/{taskId}/cancel?tenant=` (operate): a `cancelTask` for
//!   the **remote** task id; waits like `/messages`.

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::agents::find as find_agent;
use super::body::JsonBody;
use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::db::Db;
use crate::db::entity::task_command;
use crate::ingest::archive::digest;
use crate::services::commands::{self, Action, CommandBody, KEY_REQUIRED, NewCommand, ValidBody};
use crate::state::AppState;
use crate::store::access::Access;
use crate::store::commands::CommandStatus;
use crate::store::{StoreError, new_id};
use app::ext::canonical::ledger_json;

/// How long `/messages` and `/cancel` wait for the outcome (reference §4.5).
pub const WAIT: Duration = Duration::from_secs(50);
/// How often they re-read the command while waiting.
pub const WAIT_POLL: Duration = Duration::from_millis(100);

pub const COMMAND_NOT_FOUND: &str = "Command not found.";
/// Fallback when a failed or uncertain command carries no reason.
const FAILED: &str = "The command did not succeed.";

/// The `Idempotency-Key` header, if present (`400` when it is not text).
pub fn header_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(value) => value
            .to_str()
            .map(|v| Some(v.to_owned()))
            .map_err(|_| ApiError::bad_request(KEY_REQUIRED)),
    }
}

/// The `/messages` and `/stream` key when the caller sent none: `message:` + SHA-256 of the
/// canonical `{agentId, tenant, messageId}` when the body names a `messageId`, else random
/// (reference §4.5).
pub fn default_key(agent_id: &str, body: &CommandBody) -> String {
    match &body.message_id {
        Some(message_id) => {
            let content = json!({
                "agentId": agent_id,
                "tenant": body.tenant.clone().unwrap_or_default(),
                "messageId": message_id,
            });
            format!("message:{}", digest(ledger_json(&content).as_bytes()))
        }
        None => new_id(),
    }
}

/// Validates and accepts a command for the agent; returns it and whether it was a replay.
pub async fn submit(
    state: &AppState,
    principal: &Principal,
    agent_id: &str,
    body: CommandBody,
    key: String,
) -> Result<(task_command::Model, bool), ApiError> {
    let agent = find_agent(state, principal, agent_id).await?;
    let body: ValidBody = commands::validate(body).map_err(ApiError::bad_request)?;
    let new = NewCommand {
        access: principal.access.clone(),
        agent,
        body,
        idempotency_key: key,
        conversation_id: None,
    };
    Ok(commands::accept(&state.db, &state.bus, new).await?)
}

/// `POST /api/agents/{agentId}/commands`.
pub async fn create(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CommandBody>,
) -> Result<Response, ApiError> {
    principal.require(Permission::Operate)?;
    let key = header_key(&headers)?.ok_or_else(|| ApiError::bad_request(KEY_REQUIRED))?;
    let (command, _replay) = submit(&state, &principal, &agent_id, body, key).await?;
    let mut response = (
        StatusCode::ACCEPTED,
        Json(json!({ "command": commands::api_json(&command) })),
    )
        .into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/commands/{}", command.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// `GET /api/commands/{commandId}`.
pub async fn get(
    State(state): State<AppState>,
    principal: Principal,
    Path(command_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let command = commands::find(&state.db, &principal.access, &command_id)
        .await
        .map_err(|e| ApiError::from_store(e, COMMAND_NOT_FOUND))?;
    Ok(Json(json!({ "command": commands::api_json(&command) })))
}

/// `POST /api/agents/{agentId}/messages`.
pub async fn message(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CommandBody>,
) -> Result<Response, ApiError> {
    principal.require(Permission::Operate)?;
    let key = match header_key(&headers)? {
        Some(key) => key,
        None => default_key(&agent_id, &body),
    };
    let (command, _) = submit(&state, &principal, &agent_id, body, key).await?;
    let command = wait_for(&state.db, &principal.access, &command.id, WAIT).await?;
    Ok(outcome(&command))
}

/// `?tenant=` of the cancel route.
#[derive(Debug, Default, Deserialize)]
pub struct TenantQuery {
    #[serde(default)]
    tenant: Option<String>,
}

/// `POST /api/agents/{agentId}/tasks/{taskId}/cancel`.
pub async fn cancel(
    State(state): State<AppState>,
    principal: Principal,
    Path((agent_id, remote_task_id)): Path<(String, String)>,
    Query(query): Query<TenantQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    principal.require(Permission::Operate)?;
    let key = header_key(&headers)?.unwrap_or_else(new_id);
    let body = CommandBody {
        action: Some(Action::CancelTask.as_str().into()),
        task_id: Some(remote_task_id),
        tenant: query.tenant.filter(|t| !t.is_empty()),
        ..CommandBody::default()
    };
    let (command, _) = submit(&state, &principal, &agent_id, body, key).await?;
    let command = wait_for(&state.db, &principal.access, &command.id, WAIT).await?;
    Ok(outcome(&command))
}

/// Whether a command's dispatch has ended (`succeeded`, `failed` or `uncertain`).
pub fn is_settled(command: &task_command::Model) -> bool {
    command.status.is_settled()
}

/// Re-reads the command every [`WAIT_POLL`] until it settles or `wait` has passed; returns
/// its last committed state either way. The routes wait [`WAIT`]; tests pass less.
pub async fn wait_for(
    db: &Db,
    access: &Access,
    command_id: &str,
    wait: Duration,
) -> Result<task_command::Model, ApiError> {
    let started = Instant::now();
    loop {
        let command = commands::find(db, access, command_id)
            .await
            .map_err(|e: StoreError| ApiError::from_store(e, COMMAND_NOT_FOUND))?;
        let elapsed = started.elapsed();
        if is_settled(&command) || elapsed >= wait {
            return Ok(command);
        }
        tokio::time::sleep(WAIT_POLL.min(wait - elapsed)).await;
    }
}

/// The answer of `/messages` and `/cancel` for a command's state (reference §4.5): succeeded →
/// `200 {result, localId, commandId, sessionId, requestId, telemetry: []}` with `result` the
/// agent's answer and `sessionId` = `requestId` = the command id; failed or uncertain → `409`
/// with the reason; still pending → `504` telling the caller to query the command first.
pub fn outcome(command: &task_command::Model) -> Response {
    match command.status {
        CommandStatus::Succeeded => {
            let result = command.result_json.clone().unwrap_or(Value::Null);
            Json(json!({
                "result": result.get("event").cloned().unwrap_or(Value::Null),
                "localId": result.get("localId").cloned().unwrap_or(Value::Null),
                "commandId": command.id,
                "sessionId": command.id,
                "requestId": command.id,
                "telemetry": [],
            }))
            .into_response()
        }
        CommandStatus::Failed | CommandStatus::Uncertain => {
            ApiError::conflict(command.last_error.clone().unwrap_or_else(|| FAILED.to_owned()))
                .into_response()
        }
        CommandStatus::Pending | CommandStatus::Dispatching => {
            ApiError::new(StatusCode::GATEWAY_TIMEOUT, waiting_stopped(&command.id)).into_response()
        }
    }
}

/// The `504` text of `shared/spec/security-and-durability.md` §3.4.
pub fn waiting_stopped(command_id: &str) -> String {
    format!(
        "Command accepted; waiting stopped. Query /api/commands/{command_id} for its outcome before submitting again."
    )
}
