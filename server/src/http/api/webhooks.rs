//! `POST /api/webhooks/a2a/{registrationId}`: push notifications from agents
//! (`shared/spec/security-and-durability.md` §3.7), checked in this order:
//!
//! 1. a global budget of 1200 deliveries a minute, counted in the database → `429` with
//!    `Retry-After: 60`;
//! 2. authentication **before the body is read**: `Authorization: Bearer <43 base64url>`
//!    equal, in constant time, to the token derived for the registration in the path; an
//!    unknown, deleted or failed registration, a disabled or removed agent, a wrong token or a
//!    changed signing key → `401 Invalid push authentication.`;
//! 3. the registration's durable budget of 120 a minute → `429 Push rate limit exceeded.`;
//! 4. `Content-Type` `application/json` or `application/a2a+json` → else `415`;
//! 5. a bounded JSON body that is one A2A 1.0 `StreamResponse` (exactly one of task, message,
//!    statusUpdate, artifactUpdate) or a 0.3 Task snapshot → else `400`;
//! 6. the event's task must be the registration's, its context the task's → else `409`;
//! 7. ingestion (the common transaction, de-duplicated: a repeated delivery commits once), in
//!    which the registration is locked and checked again (`Fence::Push`);
//!    a callback for a finished task changes nothing; an appended artifact chunk is not
//!    applied (a stream may carry it too) but makes the task's next read immediate;
//! 8. `204` only after commit; an internal error answers `503` so the agent retries.
//!
//! Push off (`A2A_PUSH_CALLBACK_ORIGIN` unset): `503 Push delivery is not configured.`

use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::error::ApiError;
use crate::gateway::redact::Redactor;
use crate::ingest::{Fence, IngestError, Observation, Source};
use crate::state::AppState;
use crate::store::push_registrations::{self, PushStatus};
use crate::store::{agents, tasks};

pub const NOT_CONFIGURED: &str = "Push delivery is not configured.";
pub const INVALID_AUTHENTICATION: &str = "Invalid push authentication.";
pub const RATE_LIMITED: &str = "Push rate limit exceeded.";
pub const NOT_JSON: &str = "Push requires a JSON content type.";
pub const INVALID_ENVELOPE: &str = "Invalid push event envelope.";
pub const INVALID_PAYLOAD: &str = "Invalid push event payload.";
pub const UNEXPECTED_TASK: &str = "Unexpected push task identity.";
pub const UNEXPECTED_SCOPE: &str = "Unexpected push scope.";
pub const UNAVAILABLE: &str = "Push receipt unavailable; retry later.";

/// Deliveries per minute the deployment takes from all agents together (§1.6).
pub const GLOBAL_PER_MINUTE: u32 = 1200;
/// The request budget that counts them (`security_rate_buckets`).
const GLOBAL_BUDGET_KEY: &str = "webhook:a2a";
/// Largest push body read (the general request cap).
pub const BODY_LIMIT: usize = 16 * 1024 * 1024;

pub async fn receive(
    State(state): State<AppState>,
    Path(registration_id): Path<String>,
    request: Request,
) -> Response {
    match receive_checked(&state, &registration_id, request).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(refusal) => refusal,
    }
}

fn refuse(status: StatusCode, message: &str) -> Response {
    ApiError::new(status, message).into_response()
}

fn rate_limited() -> Response {
    let mut response = refuse(StatusCode::TOO_MANY_REQUESTS, RATE_LIMITED);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("60"));
    response
}

fn unavailable(error: impl std::fmt::Display) -> Response {
    tracing::warn!(%error, "push receipt failed");
    refuse(StatusCode::SERVICE_UNAVAILABLE, UNAVAILABLE)
}

async fn receive_checked(state: &AppState, registration_id: &str, request: Request) -> Result<(), Response> {
    let Some(settings) = state.config.push.as_ref() else {
        return Err(refuse(StatusCode::SERVICE_UNAVAILABLE, NOT_CONFIGURED));
    };
    // 1. The deployment-wide budget, counted in the database (it holds across replicas).
    if !crate::store::budgets::take(
        &state.db,
        GLOBAL_BUDGET_KEY,
        GLOBAL_PER_MINUTE,
        chrono::Utc::now(),
    )
    .await
    .map_err(unavailable)?
    {
        return Err(rate_limited());
    }
    // 2. Who is calling, before a byte of the body is read.
    let unauthorized = || refuse(StatusCode::UNAUTHORIZED, INVALID_AUTHENTICATION);
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(crate::push::bearer_token)
        .ok_or_else(unauthorized)?
        .to_owned();
    let registration = push_registrations::by_id(&state.db.write, registration_id)
        .await
        .map_err(unavailable)?
        .filter(|r| !matches!(r.status, PushStatus::Deleted | PushStatus::Failed))
        .ok_or_else(unauthorized)?;
    if !crate::push::token_matches(
        settings.key(),
        &registration.organization_id,
        &registration.id,
        &presented,
    ) {
        return Err(unauthorized());
    }
    let agent = agents::by_id(&state.db.write, &registration.agent_id)
        .await
        .map_err(unavailable)?
        .filter(|a| a.enabled && a.removed_at.is_none())
        .ok_or_else(unauthorized)?;
    // 3. The registration's own budget, counted in the database (it holds across replicas).
    if !push_registrations::take_delivery(&state.db.write, &registration.id, chrono::Utc::now())
        .await
        .map_err(unavailable)?
    {
        return Err(rate_limited());
    }
    // 4–5. The body.
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase());
    if !matches!(
        content_type.as_deref(),
        Some("application/json" | "application/a2a+json")
    ) {
        return Err(refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, NOT_JSON));
    }
    let bytes = axum::body::to_bytes(request.into_body(), BODY_LIMIT)
        .await
        .map_err(|_| refuse(StatusCode::PAYLOAD_TOO_LARGE, crate::http::guard::BODY_TOO_LARGE))?;
    let mut payload: Value =
        serde_json::from_slice(&bytes).map_err(|_| refuse(StatusCode::BAD_REQUEST, INVALID_PAYLOAD))?;
    let version =
        app::a2a::push_envelope(&payload).ok_or_else(|| refuse(StatusCode::BAD_REQUEST, INVALID_ENVELOPE))?;
    let decoded = app::a2a::decode_stream_event(&payload)
        .map_err(|_| refuse(StatusCode::BAD_REQUEST, INVALID_PAYLOAD))?;
    // 6. The registration's task, and nothing else.
    let task = tasks::by_id(&state.db.write, &registration.task_id)
        .await
        .map_err(unavailable)?
        .ok_or_else(unauthorized)?;
    if decoded.event.task_id() != task.remote_task_id.as_deref() {
        return Err(refuse(StatusCode::CONFLICT, UNEXPECTED_TASK));
    }
    if let (Some(given), Some(known)) = (decoded.event.context_id(), task.remote_context_id.as_deref())
        && given != known
    {
        return Err(refuse(StatusCode::CONFLICT, UNEXPECTED_SCOPE));
    }
    // A finished task takes nothing more.
    if task.state.is_terminal() {
        return Ok(());
    }
    // An appended chunk is not applied from a push: the task's stream may carry the same chunk,
    // and appending it twice would double the text. The task is read at once instead (its
    // snapshot replaces the artifact whole), unless a stream is open, which carries it.
    if let app::a2a::StreamEvent::ArtifactUpdate(update) = &decoded.event
        && update.append
    {
        crate::store::subscriptions::wake(&state.db.write, &task.id)
            .await
            .map_err(unavailable)?;
        return Ok(());
    }
    // §2.3 step 9: a push is an agent's answer too; the secrets of its credential are redacted
    // before anything is stored (a vault that cannot say what they are: 503, the agent retries).
    redactor(state, &agent)
        .await
        .map_err(unavailable)?
        .value(&mut payload);
    // 7–8. Committed before the answer.
    let observation = Observation {
        organization_id: task.organization_id.clone(),
        agent_id: task.agent_id.clone(),
        tenant: task.tenant.clone(),
        conversation_id: task.conversation_id.clone(),
        local_task_id: Some(task.id.clone()),
        source: Source::Push,
        source_key: None,
        payload,
        extensions: Vec::new(),
        protocol_version: Some(version.as_str().to_owned()),
        skill_id: None,
        fence: Some(Fence::Push {
            registration: registration.id.clone(),
        }),
        rearm: false,
    };
    match state.ingestor.ingest(&observation).await {
        Ok(_) => Ok(()),
        Err(IngestError::Invalid(_)) => Err(refuse(StatusCode::BAD_REQUEST, INVALID_PAYLOAD)),
        Err(IngestError::Identity(_)) => Err(refuse(StatusCode::CONFLICT, UNEXPECTED_TASK)),
        // Deleted, failed or its agent disabled since it was checked: nothing was committed.
        Err(IngestError::LeaseLost) => Err(unauthorized()),
        Err(error) => Err(unavailable(error)),
    }
}

/// The redactor of `agent`'s credential (its secrets and its current OAuth token), revoked or
/// not, empty when it has none; `Err` when the stored credential cannot be opened.
async fn redactor(
    state: &AppState,
    agent: &crate::db::entity::agent::Model,
) -> Result<Redactor, crate::gateway::CredentialFailure> {
    match crate::services::credentials::binding_to_redact(&state.db, &state.vault, agent).await? {
        None => Ok(Redactor::default()),
        Some(binding) => state
            .gateway
            .clone()
            .with_binding(binding)
            .map(|gateway| gateway.redactor())
            .map_err(|_| crate::gateway::CredentialFailure::VaultUnavailable),
    }
}
