//! [`Principal`]: who is calling the HTTP API, and the checks that run before a handler
//! (`shared/spec/reference.md` §4.1 "Check order": sign-in → role → rate limit → origin check
//! for non-GET/HEAD/OPTIONS → handler).
//!
//! Today every request is the development-mode administrator of the `local` organization
//! (`shared/spec/security-and-durability.md` §1.5: subject `local-operator`, display name
//! `Local operator`, role `admin`); sessions, roles and rate limits slot in here later, so every
//! handler already takes a `Principal` and states the permission it needs.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::uri::Authority;
use axum::http::{HeaderMap, Method, StatusCode, header};

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

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let organization = organizations::local(&state.db).await.map_err(|error| {
            tracing::warn!(%error, "cannot resolve the local organization");
            ApiError::unavailable_with(IDENTITY_UNAVAILABLE)
        })?;
        let principal = Principal::local_operator(organization.id);
        if !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS)
            && !origin_allowed(&parts.headers)
        {
            return Err(ApiError::new(StatusCode::FORBIDDEN, NOT_PERMITTED));
        }
        Ok(principal)
    }
}

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// The development-mode origin check of a mutation (`shared/spec/reference.md` §4.1): refused
/// when `Sec-Fetch-Site: cross-site`, or when an `Origin` is present that is neither the
/// request's own origin (its `Host`) nor a loopback origin with the same port while the target
/// is loopback too. The server does not know whether a proxy terminated TLS, so "same scheme"
/// is judged by port: a `Host` without a port takes the origin scheme's default port.
pub fn origin_allowed(headers: &HeaderMap) -> bool {
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if fetch_site.is_some_and(|v| v.trim().eq_ignore_ascii_case("cross-site")) {
        return false;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Some(origin) = origin.to_str().ok().and_then(|o| url::Url::parse(o.trim()).ok()) else {
        return false;
    };
    let (Some(origin_host), Some(origin_port)) = (origin.host_str(), origin.port_or_known_default()) else {
        return false;
    };
    if !matches!(origin.scheme(), "http" | "https") {
        return false;
    }
    let target = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .and_then(|h| h.trim().parse::<Authority>().ok());
    let Some(target) = target else {
        return false;
    };
    let target_host = target.host().to_ascii_lowercase();
    let target_port = target.port_u16().unwrap_or(origin_port);
    let origin_host = origin_host.to_ascii_lowercase();
    if target_port != origin_port {
        return false;
    }
    origin_host == target_host
        || (LOOPBACK.contains(&origin_host.as_str()) && LOOPBACK.contains(&target_host.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn the_development_origin_check_of_reference_4_1() {
        assert!(origin_allowed(&headers(&[])));
        assert!(origin_allowed(&headers(&[("sec-fetch-site", "same-origin")])));
        assert!(!origin_allowed(&headers(&[("sec-fetch-site", "cross-site")])));
        let own = [
            ("host", "taskbay.example:8443"),
            ("origin", "https://taskbay.example:8443"),
        ];
        assert!(origin_allowed(&headers(&own)));
        let default_port = [("host", "taskbay.example"), ("origin", "https://taskbay.example")];
        assert!(origin_allowed(&headers(&default_port)));
        let loopback = [("host", "127.0.0.1:3002"), ("origin", "http://localhost:3002")];
        assert!(origin_allowed(&headers(&loopback)));
        let v6 = [("host", "[::1]:3002"), ("origin", "http://127.0.0.1:3002")];
        assert!(origin_allowed(&headers(&v6)));
        let other_port = [("host", "127.0.0.1:3002"), ("origin", "http://localhost:9999")];
        assert!(!origin_allowed(&headers(&other_port)));
        let foreign = [("host", "127.0.0.1:3002"), ("origin", "https://evil.example")];
        assert!(!origin_allowed(&headers(&foreign)));
        let loopback_to_public = [("host", "taskbay.example"), ("origin", "http://localhost")];
        assert!(!origin_allowed(&headers(&loopback_to_public)));
        assert!(!origin_allowed(&headers(&[
            ("host", "127.0.0.1:3002"),
            ("origin", "null")
        ])));
        assert!(
            !origin_allowed(&headers(&[("origin", "http://localhost:3002")])),
            "no Host"
        );
    }

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
