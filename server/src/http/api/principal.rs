//! [`Principal`]: who is calling the HTTP API, and the checks that run before a handler
//! (`shared/spec/reference.md` §4.1 "Check order": sign-in → role → rate limit → handler). The
//! Host and origin checks run earlier, for every route, in the request guard
//! ([`crate::http::guard`]).
//!
//! Today every request is the development-mode administrator of the `local` organization
//! (`shared/spec/security-and-durability.md` §1.5: subject `local-operator`, display name
//! `Local operator`, role `admin`); sessions, roles and rate limits slot in here later, so every
//! handler already takes a `Principal` and states the permission it needs.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;

use super::error::ApiError;
use crate::state::AppState;
use crate::store::organizations;

pub const NOT_PERMITTED: &str = "This action is not permitted.";
pub const IDENTITY_UNAVAILABLE: &str = "Identity service unavailable.";

/// A member's role (`shared/spec/security-and-durability.md` §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Admin,
    Operator,
    Viewer,
}

/// What a route needs (`shared/spec/reference.md` §4.1 "Roles/permissions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permission {
    /// admin, operator, viewer
    Read,
    /// admin, operator
    Operate,
    /// admin
    Administer,
}

/// The caller of an API request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub subject: String,
    pub display_name: String,
    pub role: Role,
    /// The organization every query is scoped to (`local`).
    pub organization_id: String,
}

impl Principal {
    /// The development-mode administrator of `organization_id`.
    pub fn local_operator(organization_id: String) -> Principal {
        Principal {
            subject: "local-operator".into(),
            display_name: "Local operator".into(),
            role: Role::Admin,
            organization_id,
        }
    }

    /// `403 This action is not permitted.` unless the role grants `permission`.
    pub fn require(&self, permission: Permission) -> Result<(), ApiError> {
        let allowed = match permission {
            Permission::Read => true,
            Permission::Operate => matches!(self.role, Role::Admin | Role::Operator),
            Permission::Administer => self.role == Role::Admin,
        };
        if allowed {
            Ok(())
        } else {
            Err(ApiError::new(StatusCode::FORBIDDEN, NOT_PERMITTED))
        }
    }
}

impl FromRequestParts<AppState> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(_parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let organization = organizations::local(&state.db).await.map_err(|error| {
            tracing::warn!(%error, "cannot resolve the local organization");
            ApiError::unavailable_with(IDENTITY_UNAVAILABLE)
        })?;
        Ok(Principal::local_operator(organization.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_grant_permissions() {
        let mut principal = Principal::local_operator("org".into());
        assert!(principal.require(Permission::Administer).is_ok());
        principal.role = Role::Viewer;
        assert!(principal.require(Permission::Read).is_ok());
        assert_eq!(
            principal.require(Permission::Operate).unwrap_err().message,
            NOT_PERMITTED
        );
    }
}
