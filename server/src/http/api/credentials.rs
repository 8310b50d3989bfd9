//! An agent's credential (`shared/spec/security-and-durability.md` §2; beyond the original,
//! which had no browser or API path), admins only:
//!
//! - `GET /api/agents/{agentId}/credential`: the state (`notRequired`, `needed`, `stored`,
//!   `revoked`, `unavailable`), the card's schemes, what is stored (kind, origins, key id,
//!   revision, `updatedAt`) and the origins a binding must list. Never a value.
//! - `PUT /api/agents/{agentId}/credential`: the binding `{"origins":[…],"credential":{…}}`
//!   (strict, at most 256,000 bytes), sealed under the active key; `200` with the same view.
//!   `400` names the field at fault without repeating it; `409 Credential vault unavailable.`
//!   without vault keys.
//! - `DELETE /api/agents/{agentId}/credential`: revokes it; `404` when none is stored.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde_json::Value;

use super::agents::find;
use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::services::credentials::{self, CredentialError};
use crate::state::AppState;
use crate::store::StoreError;
use crate::store::audit::Actor;

/// Largest binding accepted, as the CLI reads (§2.1).
pub const MAX_BINDING_BYTES: usize = 256_000;

/// `GET /api/agents/{agentId}/credential`.
pub async fn get(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    let agent = find(&state, &principal, &agent_id).await?;
    view(&state, &agent).await
}

/// `PUT /api/agents/{agentId}/credential`.
pub async fn put(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    let agent = find(&state, &principal, &agent_id).await?;
    if body.len() > MAX_BINDING_BYTES {
        return Err(ApiError::bad_request(format!(
            "The binding exceeds {MAX_BINDING_BYTES} bytes."
        )));
    }
    let actor = Actor::User(principal.user_id.clone());
    credentials::store_binding(
        &state.db,
        &state.vault,
        &agent.organization_id,
        &agent.id,
        &body,
        &actor,
    )
    .await
    .map_err(refused)?;
    view(&state, &agent).await
}

/// `DELETE /api/agents/{agentId}/credential`.
pub async fn revoke(
    State(state): State<AppState>,
    principal: Principal,
    Path(agent_id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    let agent = find(&state, &principal, &agent_id).await?;
    let actor = Actor::User(principal.user_id.clone());
    credentials::revoke(&state.db, &agent.organization_id, &agent.id, &actor)
        .await
        .map_err(refused)?;
    view(&state, &agent).await
}

async fn view(state: &AppState, agent: &crate::db::entity::agent::Model) -> Result<Json<Value>, ApiError> {
    let described = credentials::describe_agent(&state.db, &state.vault, agent).await?;
    Ok(Json(
        serde_json::to_value(described).map_err(|_| ApiError::unavailable())?,
    ))
}

fn refused(error: CredentialError) -> ApiError {
    match error {
        CredentialError::Binding(error) => ApiError::bad_request(error.0),
        CredentialError::Vault(error) => ApiError::conflict(error.to_string()),
        CredentialError::Store(StoreError::NotFound) => {
            ApiError::not_found("No credential is stored for this agent.")
        }
        CredentialError::Store(error) => error.into(),
    }
}
