//! Who a request is (`shared/spec/security-and-durability.md` §1, ADR 0036), resolved once per
//! request by the request guard for every route that is not public, and handed to handlers as
//! a [`Principal`] in the request's extensions.
//!
//! - **Development mode**: the development-mode administrator, a stored membership read on every
//!   request (disabled, it stays disabled: `401 Sign in to continue.`).
//! - **OIDC**: the session of the `__Host-a2a-session` cookie, its membership read afresh
//!   (disabled or demoted applies to the next request, each SSE reconnect included). No valid
//!   session: `401 Sign in to continue.`, and a page is sent to sign in instead. A misconfigured
//!   OIDC fails closed: `503 Identity service unavailable.`, never development mode.
//!
//! Requests with the same credential that arrive while a read of it waits for its turn share
//! that read ([`reads`]); a read that has started is never shared.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use chrono::Utc;

use crate::config::auth::AuthMode;
use crate::http::api::error::ApiError;
use crate::http::api::principal::{IDENTITY_UNAVAILABLE, Principal, SIGN_IN_REQUIRED};
use crate::services::sign_in::SignIn;
use crate::state::AppState;
use crate::store::{StoreError, identity, sessions};

pub mod reads;

/// The session cookie (§1.2).
pub const SESSION_COOKIE: &str = "__Host-a2a-session";
/// The sign-in attempt cookie (§1.1 step 2).
pub const LOGIN_COOKIE: &str = "__Host-a2a-login";

/// How requests are identified, built once from the configuration.
#[derive(Debug)]
pub enum Auth {
    Development,
    /// OIDC sign-in, or why it cannot work (logged once at start, never shown).
    Oidc(Result<Box<SignIn>, String>),
}

impl Auth {
    /// Builds the identification the configuration asks for; an unusable OIDC configuration is
    /// logged here (the variable's name and the rule, never a secret) and kept as unusable.
    pub fn from_config(mode: &AuthMode) -> Auth {
        match mode {
            AuthMode::Development => Auth::Development,
            AuthMode::Oidc(Ok(settings)) => match SignIn::new(settings.clone()) {
                Ok(sign_in) => Auth::Oidc(Ok(Box::new(sign_in))),
                Err(error) => {
                    tracing::error!(%error, "sign-in is unavailable: every signed-in route answers 503");
                    Auth::Oidc(Err(error.to_string()))
                }
            },
            AuthMode::Oidc(Err(error)) => {
                tracing::error!(%error, "sign-in is misconfigured: every signed-in route answers 503");
                Auth::Oidc(Err(error.to_string()))
            }
        }
    }

    /// The mode's name (`GET /api/auth/session`).
    pub fn mode_name(&self) -> &'static str {
        match self {
            Auth::Development => "development",
            Auth::Oidc(_) => "oidc",
        }
    }

    /// The slug of the organization every request of this deployment belongs to: the
    /// configured one with OIDC, `local` otherwise.
    pub fn organization_slug(&self) -> &str {
        match self {
            Auth::Oidc(Ok(sign_in)) => &sign_in.settings().organization_slug,
            _ => crate::store::organizations::LOCAL_SLUG,
        }
    }
}

/// Resolves the caller of a request with `headers`.
pub async fn identify(state: &AppState, headers: &HeaderMap) -> Result<Principal, ApiError> {
    // Callers with the same credential share a read still waiting for its turn (`reads`).
    let credential = match &*state.auth {
        Auth::Development => String::new(),
        Auth::Oidc(Err(_)) => return Err(ApiError::unavailable_with(IDENTITY_UNAVAILABLE)),
        Auth::Oidc(Ok(_)) => cookie(headers, SESSION_COOKIE).unwrap_or_default().to_owned(),
    };
    let read = {
        let (state, credential) = (state.clone(), credential.clone());
        async move { read_caller(&state, &credential).await }
    };
    state.identity_reads.resolve(credential, read).await
}

/// Reads the caller with `credential` (a session token; none in development mode).
async fn read_caller(state: &AppState, credential: &str) -> Result<Principal, ApiError> {
    let unavailable = |error: StoreError| {
        tracing::warn!(%error, "cannot resolve the caller's membership");
        ApiError::unavailable_with(IDENTITY_UNAVAILABLE)
    };
    let organization_id = state.organization_id().await.map_err(unavailable)?;
    let member = match &*state.auth {
        Auth::Development => identity::development_member(&state.db, &organization_id)
            .await
            .map_err(unavailable)?,
        Auth::Oidc(Err(_)) => return Err(ApiError::unavailable_with(IDENTITY_UNAVAILABLE)),
        Auth::Oidc(Ok(_)) => sessions::member(&state.db, credential, Utc::now())
            .await
            .map_err(unavailable)?
            // A session of another organization's membership (a changed slug, or another
            // deployment on the same database) is no session here.
            .filter(|member| member.organization_id == organization_id)
            .ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, SIGN_IN_REQUIRED))?,
    };
    Principal::from_member(&state.db, member).await
}

/// Signs the request's browser out: deletes the session of its cookie, if any, and returns the
/// `Set-Cookie` that clears it (the JSON API's logout and the `sign_out` server function).
pub async fn end_session(state: &AppState, headers: &HeaderMap) -> Result<HeaderValue, StoreError> {
    if let Some(token) = cookie(headers, SESSION_COOKIE) {
        sessions::delete(&state.db, token).await?;
    }
    Ok(set_cookie(SESSION_COOKIE, "", 0))
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// A `__Host-` cookie (HttpOnly, Secure, SameSite=Lax, `Path=/`, no Domain) living `max_age`
/// seconds; `0` and an empty value clear it.
pub fn set_cookie(name: &str, value: &str, max_age: u64) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{name}={value}; Max-Age={max_age}; Path=/; HttpOnly; Secure; SameSite=Lax"
    ))
    .expect("cookie names and base64url tokens are valid header values")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_by_exact_name() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; __Host-a2a-session=tok"),
        );
        headers.append(header::COOKIE, HeaderValue::from_static("__Host-a2a-login=att"));
        assert_eq!(cookie(&headers, SESSION_COOKIE), Some("tok"));
        assert_eq!(cookie(&headers, LOGIN_COOKIE), Some("att"));
        assert_eq!(cookie(&headers, "__Host-a2a"), None);
    }

    #[test]
    fn session_cookies_are_host_only_http_only_secure_and_lax_security_1_2() {
        assert_eq!(
            set_cookie(SESSION_COOKIE, "tok", 28_800),
            "__Host-a2a-session=tok; Max-Age=28800; Path=/; HttpOnly; Secure; SameSite=Lax"
        );
    }
}
