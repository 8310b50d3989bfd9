//! Agent routes (`shared/spec/reference.md` §4.3), over the same services as the Agents screen:
//!
//! - `GET /api/agents` (read): every agent with a fresh discovery of its card (a snapshot each);
//!   `{id, cardUrl, source, name, description, skills, card, trust}`, or `{id, cardUrl, source,
//!   error}` for an agent that cannot be discovered.
//! - `POST /api/agents` (administer): `{"cardUrl"}`, registers only (no fetch);
//!   `201 {"agent":{id, cardUrl, source}}`; the same URL returns the same agent.
//! - `POST /api/agents/preview` (administer): `{"cardUrl"}` → `{card, resolvedCardUrl, report}`,
//!   nothing stored.
//! - `GET /api/agents/{agentId}` (read): `{id, cardUrl, source, card, trust, report}`;
//!   `404 Unknown agent.`; an upstream failure is `502` with its message.
//! - `DELETE /api/agents/{agentId}` (administer): `200 {"removed":true}`; env agents `409`.
//!
//! `trust` is what the card's signatures prove under `A2A_TRUSTED_CARD_KEYS`: `unsigned`,
//! `verified`, `untrusted` or `invalid` (`shared/spec/security-and-durability.md` §2.4).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::body::JsonBody;
use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::config::validate_card_url;
use crate::db::entity::agent;
use crate::services::agents::{self as agent_services, AgentServiceError, CardPreview};
use crate::state::AppState;
use crate::store::access::Access;
use crate::store::agents::{self as agent_store, AgentSource};

pub const UNKNOWN_AGENT: &str = "Unknown agent.";

/// `{"cardUrl": …}` of `POST /api/agents` and `/preview` (strict).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CardUrlBody {
    #[serde(default)]
    card_url: Option<String>,
}

impl CardUrlBody {
    /// The validated URL, or the original's exact `400` message.
    fn url(&self) -> Result<url::Url, ApiError> {
        validate_card_url(self.card_url.as_deref().unwrap_or_default()).map_err(ApiError::bad_request)
    }
}

/// Agent-side failures are the agent's (`502` with the reason); database faults are ours.
fn service_error(error: AgentServiceError) -> ApiError {
    match error {
        AgentServiceError::Store(error) => error.into(),
        other => ApiError::bad_gateway(other.to_string()),
    }
}

/// The card as the caller may see it: a member granted only some skills of the agent sees only
/// those (§1.3 "a reduced agent card").
fn visible_card(access: &Access, agent_id: &str, raw: &Value) -> Value {
    let mut card = raw.clone();
    if let Some(skills) = card.get_mut("skills").and_then(Value::as_array_mut) {
        skills.retain(|skill| {
            skill
                .get("id")
                .and_then(Value::as_str)
                .map_or(access.skills_of(agent_id).is_none(), |id| {
                    access.shows_skill(agent_id, id)
                })
        });
    }
    card
}

fn listed(access: &Access, agent: &agent::Model, preview: &CardPreview) -> Value {
    let raw = visible_card(access, &agent.id, &preview.raw);
    json!({
        "id": agent.id,
        "cardUrl": agent.card_url,
        "source": agent.source,
        "name": preview.card.name,
        "description": preview.card.description,
        "skills": raw.get("skills").cloned().unwrap_or_else(|| json!([])),
        "card": raw,
        "trust": preview.trust,
    })
}

/// `GET /api/agents`.
pub async fn list(State(state): State<AppState>, principal: Principal) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let agents = agent_store::list(&state.db, &principal.access).await?;
    let discoveries = agents
        .iter()
        .map(|agent| agent_services::discover(&state.db, &state.gateway, &state.vault, agent));
    let outcomes = futures::future::join_all(discoveries).await;
    let mut rows = Vec::with_capacity(agents.len());
    for (agent, outcome) in agents.iter().zip(outcomes) {
        rows.push(match outcome {
            Ok(preview) => listed(&principal.access, agent, &preview),
            Err(AgentServiceError::Store(error)) => return Err(error.into()),
            Err(error) => json!({
                "id": agent.id,
                "cardUrl": agent.card_url,
                "source": agent.source,
                "error": error.to_string(),
            }),
        });
    }
    Ok(Json(json!({ "agents": rows })))
}

/// `POST /api/agents`.
pub async fn register(
    State(state): State<AppState>,
    principal: Principal,
    JsonBody(body): JsonBody<CardUrlBody>,
) -> Result<Response, ApiError> {
    principal.require(Permission::Administer)?;
    let url = body.url()?;
    let agent = agent_store::register(
        &state.db,
        principal.organization_id(),
        url.as_str(),
        AgentSource::Managed,
    )
    .await?;
    // The card is fetched now, as the Add agent screen does, so what the agent requires
    // (credentials, extensions) is known before the first send; a failure is recorded on it.
    if let Err(error) = agent_services::discover(&state.db, &state.gateway, &state.vault, &agent).await {
        tracing::info!(agent = %agent.id, %error, "registered agent is not reachable yet");
    }
    let body = json!({"agent": {"id": agent.id, "cardUrl": agent.card_url, "source": agent.source}});
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `POST /api/agents/preview`.
pub async fn preview(
    State(state): State<AppState>,
    principal: Principal,
    JsonBody(body): JsonBody<CardUrlBody>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    let url = body.url()?;
    let preview = agent_services::preview_card(&state.gateway, url.as_str())
        .await
        .map_err(service_error)?;
    Ok(Json(json!({
        "card": preview.raw,
        "resolvedCardUrl": preview.resolved_url,
        "report": preview.report,
    })))
}

/// `GET /api/agents/{agentId}`.
pub async fn detail(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    let agent = find(&state, &principal, &agent_id).await?;
    let preview = agent_services::discover(&state.db, &state.gateway, &state.vault, &agent)
        .await
        .map_err(service_error)?;
    let mut report = preview.report;
    principal.access.reduce_report(&agent.id, &mut report);
    Ok(Json(json!({
        "id": agent.id,
        "cardUrl": agent.card_url,
        "source": agent.source,
        "card": visible_card(&principal.access, &agent.id, &preview.raw),
        "trust": preview.trust,
        "report": report,
    })))
}

/// `DELETE /api/agents/{agentId}`.
pub async fn remove(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    agent_store::remove(&state.db, principal.organization_id(), &agent_id)
        .await
        .map_err(|e| ApiError::from_store(e, UNKNOWN_AGENT))?;
    Ok(Json(json!({ "removed": true })))
}

/// A listed agent of the caller's organization that the caller sees, or `404 Unknown agent.`.
pub async fn find(state: &AppState, principal: &Principal, agent_id: &str) -> Result<agent::Model, ApiError> {
    agent_store::find(&state.db, &principal.access, agent_id)
        .await
        .map_err(|e| ApiError::from_store(e, UNKNOWN_AGENT))
}
