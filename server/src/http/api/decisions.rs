//! Approval routes (`shared/spec/reference.md` §4.8):
//!
//! - `GET /api/decisions?status=&taskId=` (read): at most 100 requests, newest first, each with
//!   `agentName`, `taskTitle`, `taskState`; an unknown status is `400 Unknown status.`;
//! - `GET /api/decisions/{id}` (read): `{request, revisions, decisions, executions}`;
//!   `404 Decision request not found.`;
//! - `POST /api/decisions/{id}/decisions` (operate): requires `Idempotency-Key`; body
//!   `{outcome, expectedRevision, rationale?, edit?, delegateMembershipId?}`; `201 {…, replay:
//!   false}`, a replay `200 {…, replay: true}`; `409` stale or closed, `400` rationale, `422` edit.
//!
//! - `GET /api/reviewers?taskId=` (operate): `{reviewers: [{membershipId, displayName, role, self}]}`,
//!   the enabled operators and admins who can operate the task's agent or skill.
//!
//! `GET /api/decisions?assigned=me` lists the requests delegated to the caller. Revisions by
//! people arrive as `edit` decisions; `POST /api/decisions` (requests opened by people) is not
//! built yet.

use std::collections::HashMap;

use app::api::approvals::{ApprovalDetail, DecisionInput};
use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::body::JsonBody;
use super::commands::header_key;
use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::services::approvals::{self, ApprovalError};
use crate::services::commands::KEY_REQUIRED;
use crate::state::AppState;

pub const UNKNOWN_ASSIGNED: &str = "assigned must be me.";
pub const TASK_ID_REQUIRED: &str = "taskId is required.";

impl From<ApprovalError> for ApiError {
    fn from(error: ApprovalError) -> ApiError {
        match error {
            ApprovalError::NotFound => ApiError::not_found(approvals::NOT_FOUND),
            ApprovalError::Invalid(message) => ApiError::bad_request(message),
            ApprovalError::Unprocessable(message) => ApiError::unprocessable(message),
            ApprovalError::Conflict(message) => ApiError::conflict(message),
            ApprovalError::Forbidden(message) => ApiError::new(StatusCode::FORBIDDEN, message),
            ApprovalError::Command(error) => error.into(),
            ApprovalError::Store(error) => error.into(),
        }
    }
}

/// The request with the original's field names (reference §4.8 "Request fields").
fn request_json(detail: &ApprovalDetail) -> Value {
    let r = &detail.request;
    json!({
        "id": r.id, "requesterUserId": r.requester_user_id, "taskId": r.task_id, "agentId": r.agent_id,
        "agentName": r.agent_name, "taskTitle": r.task_title, "taskState": r.task_state,
        "skillId": r.skill_id, "kind": r.kind, "status": r.status, "title": r.title,
        "summary": r.summary, "risk": r.risk,
        "policy": r.policy,
        "assignedMembershipId": r.assigned_membership_id, "currentRevision": r.current_revision,
        "expiresAt": r.expires_at, "createdAt": r.created_at, "updatedAt": r.updated_at,
    })
}

/// `GET /api/decisions`.
pub async fn list(
    State(state): State<AppState>,
    principal: Principal,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let value = |name: &str| query.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    // `assigned=me`: the requests delegated to the caller.
    let assigned = match value("assigned") {
        None => None,
        Some("me") => Some(principal.membership_id.as_str()),
        Some(_) => return Err(ApiError::bad_request(UNKNOWN_ASSIGNED)),
    };
    let requests = approvals::list(
        &state.db,
        &principal.access,
        value("status"),
        value("taskId"),
        assigned,
    )
    .await?;
    Ok(Json(json!({ "requests": requests })))
}

/// `GET /api/reviewers?taskId=`: who may decide requests on the task (the delegate choice).
pub async fn reviewers(
    State(state): State<AppState>,
    principal: Principal,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Operate)?;
    let task_id = query
        .get("taskId")
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ApiError::bad_request(TASK_ID_REQUIRED))?;
    let reviewers = approvals::reviewers(&state.db, &caller(&principal), task_id).await?;
    Ok(Json(json!({ "reviewers": reviewers })))
}

/// The caller as a reviewer.
pub fn caller(principal: &Principal) -> approvals::Caller {
    approvals::Caller {
        access: principal.access.clone(),
        user_id: principal.user_id.clone(),
        membership_id: principal.membership_id.clone(),
        role: principal.role,
    }
}

/// `POST /api/decisions`: a request opened by a person (`requestKey` or `Idempotency-Key`).
pub async fn open(
    State(state): State<AppState>,
    principal: Principal,
    headers: HeaderMap,
    JsonBody(body): JsonBody<approvals::OpenRequest>,
) -> Result<Response, ApiError> {
    principal.require(Permission::Operate)?;
    let header = header_key(&headers)?;
    let (detail, replay) = approvals::open(
        &state.db,
        &state.bus,
        &caller(&principal),
        body,
        header.as_deref(),
    )
    .await?;
    let status = if replay {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    let mut response = (status, Json(detail_json(&detail))).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/api/decisions/{}", detail.request.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

fn detail_json(detail: &ApprovalDetail) -> Value {
    json!({
        "request": request_json(detail),
        "revisions": detail.revisions,
        "decisions": detail.decisions,
        "executions": detail.executions,
    })
}

/// `GET /api/decisions/{id}`.
pub async fn get(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let detail = approvals::detail(&state.db, &principal.access, &id).await?;
    Ok(Json(detail_json(&detail)))
}

/// `POST /api/decisions/{id}/decisions`.
pub async fn decide(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(input): JsonBody<DecisionInput>,
) -> Result<Response, ApiError> {
    principal.require(Permission::Operate)?;
    let key = header_key(&headers)?.ok_or_else(|| ApiError::bad_request(KEY_REQUIRED))?;
    let (detail, replay) =
        approvals::decide(&state.db, &state.bus, &caller(&principal), &id, input, &key).await?;
    let status = if replay {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    let body = json!({
        "decision": detail.decisions.last(),
        "request": request_json(&detail),
        "execution": detail.executions.last(),
        "replay": replay,
    });
    Ok((status, Json(body)).into_response())
}
