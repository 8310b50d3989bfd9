//! [`Principal`]: who is calling the HTTP API, and the checks that run before a handler
//! (`shared/spec/reference.md` §4.1 "Check order": sign-in → role → rate limit → handler). The
//! Host and origin checks run earlier, for every route, in the request guard
//! ([`crate::http::guard`]).
//!
//! Who the caller is comes from [`crate::http::identity`]: the development-mode administrator,
//! or the member of a signed-in session.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;

use super::error::ApiError;
use crate::db::Db;
use crate::state::AppState;
use crate::store::access::Access;
use crate::store::identity::Member;
pub use crate::store::identity::Role;

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
    /// What the member may read and operate there (everything for an admin), read afresh on
    /// every request: a grant revoked applies to the next one.
    pub access: Access,
}

impl Permission {
    /// The permission's name, as the reference writes it (and budget keys use it).
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Read => "read",
            Permission::Operate => "operate",
            Permission::Administer => "administer",
        }
    }
}

impl Principal {
    /// The organization every query is scoped to (its access's).
    pub fn organization_id(&self) -> &str {
        &self.access.organization_id
    }

    /// The caller `member` is, if it may act at all: `401 Sign in to continue.` for a disabled
    /// membership or user.
    pub async fn from_member(db: &Db, member: Member) -> Result<Principal, ApiError> {
        if !member.active {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGN_IN_REQUIRED));
        }
        let access = Access::of_member(
            &db.read,
            &member.organization_id,
            &member.membership_id,
            member.role,
        )
        .await
        .map_err(|error| {
            tracing::warn!(%error, "cannot read the caller's grants");
            ApiError::unavailable_with(IDENTITY_UNAVAILABLE)
        })?;
        Ok(Principal {
            access,
            membership_id: member.membership_id,
            user_id: member.user_id,
            display_name: member.display_name,
            role: member.role,
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

    /// The caller the request guard identified, or identified here (a router without the guard,
    /// as in some tests).
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(principal) = parts.extensions.get::<Principal>() {
            return Ok(principal.clone());
        }
        crate::http::identity::identify(state, &parts.headers).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(role: Role) -> Principal {
        Principal {
            membership_id: "m".into(),
            user_id: "u".into(),
            display_name: "Local operator".into(),
            role,
            access: Access::everything("org"),
        }
    }

    #[test]
    fn roles_grant_permissions_security_1_3() {
        assert!(principal(Role::Admin).require(Permission::Administer).is_ok());
        let operator = principal(Role::Operator);
        assert!(operator.require(Permission::Operate).is_ok());
        assert_eq!(
            operator.require(Permission::Administer).unwrap_err().message,
            NOT_PERMITTED
        );
        let viewer = principal(Role::Viewer);
        assert!(viewer.require(Permission::Read).is_ok());
        assert_eq!(
            viewer.require(Permission::Operate).unwrap_err().message,
            NOT_PERMITTED
        );
    }
}
