//! Access management for admins (`shared/spec/security-and-durability.md` §1.3 "Access
//! management"):
//!
//! - `GET /api/admin/security` (administer): members, teams, enabled grants and agents, as the
//!   Access screen shows them.
//! - `POST /api/admin/security` (administer): one strict change discriminated by `action`
//!   (`createTeam`, `addTeamMember`, `removeTeamMember`, `disableTeam`, `grant`, `revokeGrant`,
//!   and beyond the original `provisionMember`, `setRole`, `disableMember`, `enableMember`),
//!   answered `200 {"id": …}` with the id of what it created or changed. Every change is audited;
//!   one already true writes nothing. `400` for a bad body or field, `404` for an unknown team,
//!   member, agent or grant, `409` for a taken team name, a disabled team, or the last admin.

use app::api::access::AccessChange;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use super::body::JsonBody;
use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::state::AppState;
use crate::store::access_admin;
use crate::store::audit::Actor;

/// `GET /api/admin/security`.
pub async fn overview(State(state): State<AppState>, principal: Principal) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    let overview = access_admin::overview(&state.db, principal.organization_id()).await?;
    Ok(Json(
        serde_json::to_value(overview).map_err(|_| ApiError::unavailable())?,
    ))
}

/// `POST /api/admin/security`.
pub async fn change(
    State(state): State<AppState>,
    principal: Principal,
    JsonBody(change): JsonBody<AccessChange>,
) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Administer)?;
    let change = change
        .validated()
        .map_err(|error| ApiError::bad_request(error.to_string()))?;
    let id = access_admin::apply(
        &state.db,
        principal.organization_id(),
        &Actor::User(principal.user_id.clone()),
        change,
    )
    .await?;
    Ok(Json(json!({ "id": id })))
}
