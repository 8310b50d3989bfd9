//! [`Principal`]: who is calling the HTTP API, and the checks that run before a handler
//! (`shared/spec/reference.md` §4.1 "Check order": sign-in → role → rate limit → handler). The
//! Host and origin checks run earlier, for every route, in the request guard
//! ([`crate::http::guard`]).
//!
//! In development mode every request is the development-mode administrator of the `local`
//! organization (`shared/spec/security-and-durability.md` §1.5: subject `local-operator`, display
//! name `Local operator`, role `admin`), a membership stored like any other
//! ([`identity::development_member`]) and read on every request: disabled in the database, it
//! stays disabled, and the API answers `401 Sign in to continue.`

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;

use super::error::ApiError;
use crate::state::AppState;
pub use crate::store::identity::Role;
use crate::store::identity::{self, Member};

pub const NOT_PERMITTED: &str = "This action is not permitted.";
pub const IDENTITY_UNAVAILABLE: &str = "Identity service unavailable.";
pub const SIGN_IN_REQUIRED: &str = "Sign in to continue.";

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

/// The caller of an API request: an enabled membership.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub membership_id: String,
    pub user_id: String,
    pub display_name: String,
    pub role: Role,
    /// The organization every query is scoped to (`local`).
    pub organization_id: String,
}

impl Principal {
    /// The caller `member` is, if it may act at all: `401 Sign in to continue.` for a disabled
    /// membership or user.
    pub fn from_member(member: Member) -> Result<Principal, ApiError> {
        if !member.active {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGN_IN_REQUIRED));
        }
        Ok(Principal {
            membership_id: member.membership_id,
            user_id: member.user_id,
            display_name: member.display_name,
            role: member.role,
            organization_id: member.organization_id,
        })
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
        let unavailable = |error: crate::store::StoreError| {
            tracing::warn!(%error, "cannot resolve the caller's membership");
            ApiError::unavailable_with(IDENTITY_UNAVAILABLE)
        };
        let organization_id = state.local_organization_id().await.map_err(unavailable)?;
        let member = identity::development_member(&state.db, &organization_id)
            .await
            .map_err(unavailable)?;
        Principal::from_member(member)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(role: Role, active: bool) -> Member {
        Member {
            membership_id: "m".into(),
            user_id: "u".into(),
            organization_id: "org".into(),
            display_name: "Local operator".into(),
            role,
            active,
        }
    }

    #[test]
    fn roles_grant_permissions_security_1_3() {
        let admin = Principal::from_member(member(Role::Admin, true)).unwrap();
        assert!(admin.require(Permission::Administer).is_ok());
        let operator = Principal::from_member(member(Role::Operator, true)).unwrap();
        assert!(operator.require(Permission::Operate).is_ok());
        assert_eq!(
            operator.require(Permission::Administer).unwrap_err().message,
            NOT_PERMITTED
        );
        let viewer = Principal::from_member(member(Role::Viewer, true)).unwrap();
        assert!(viewer.require(Permission::Read).is_ok());
        assert_eq!(
            viewer.require(Permission::Operate).unwrap_err().message,
            NOT_PERMITTED
        );
    }

    #[test]
    fn a_disabled_member_must_sign_in_again() {
        let refused = Principal::from_member(member(Role::Admin, false)).unwrap_err();
        assert_eq!(
            (refused.status, refused.message.as_str()),
            (StatusCode::UNAUTHORIZED, SIGN_IN_REQUIRED)
        );
    }
}
