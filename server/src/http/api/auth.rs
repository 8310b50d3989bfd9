//! Sign-in routes (`shared/spec/reference.md` §4.2, `shared/spec/security-and-durability.md`
//! §1.1–§1.2):
//!
//! | Route | Permission | Answer |
//! | --- | --- | --- |
//! | `GET /api/auth/login?returnTo=` | public | development: `303` to `returnTo`; OIDC: stores an attempt, sets `__Host-a2a-login`, `303` to the provider |
//! | `GET /api/auth/callback` | public | consumes the attempt, starts a session (`__Host-a2a-session`), `303` to `returnTo` on `A2A_AUTH_ORIGIN` |
//! | `POST /api/auth/logout` | read | ends the session, clears the cookie, `200 {"signedOut":true}` |
//! | `GET /api/auth/signed-out` | public | the page the identity menu leaves for after signing out |
//! | `GET /api/auth/session` | read | `{"user":{"displayName","role"},"mode"}` |
//!
//! Login and callback are public but budgeted: 240 a minute each for all callers together
//! (§1.6), counted in the database.

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde_json::{Value, json};

use super::error::ApiError;
use super::principal::{Permission, Principal};
use crate::http::identity::{Auth, LOGIN_COOKIE, SESSION_COOKIE, cookie, end_session, set_cookie};
use crate::services::sign_in::{SignInError, safe_return_to};
use crate::state::AppState;
use crate::store::{budgets, sessions};

pub const SIGN_IN_UNAVAILABLE: &str = "Sign-in service unavailable.";
pub const SIGN_IN_FAILED: &str = "Sign-in failed. Start a new sign-in attempt.";
pub const TOO_MANY_SIGN_INS: &str = "Too many sign-in requests.";
/// Sign-in starts and callbacks allowed per minute, for all callers together (§1.6).
pub const SIGN_IN_BUDGET: u32 = 240;

/// The one value of `name` in a query string; `None` when absent or given more than once (a
/// query the console cannot read one way only is not read at all).
fn only_value(query: Option<&str>, name: &str) -> Option<String> {
    let mut values = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .filter(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned());
    let first = values.next()?;
    values.next().is_none().then_some(first)
}

/// `GET /api/auth/login?returnTo=`.
pub async fn login(State(state): State<AppState>, RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    let return_to = safe_return_to(only_value(query.as_deref(), "returnTo").as_deref());
    let sign_in = match &*state.auth {
        Auth::Development => return Ok(see_other(&return_to)),
        Auth::Oidc(Err(_)) => return Err(ApiError::unavailable_with(SIGN_IN_UNAVAILABLE)),
        Auth::Oidc(Ok(sign_in)) => sign_in,
    };
    within_budget(&state, "login").await?;
    let started = sign_in
        .start(&state.db, return_to)
        .await
        .map_err(|_| ApiError::unavailable_with(SIGN_IN_UNAVAILABLE))?;
    let mut response = see_other(started.provider_url.as_str());
    let lifetime = sessions::ATTEMPT_LIFETIME.as_secs();
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(LOGIN_COOKIE, &started.login_token, lifetime),
    );
    Ok(response)
}

/// `GET /api/auth/callback?code=&state=` (the provider may add `iss`, `session_state`, or
/// `error`): every failure is the same `401`. A browser arriving from the provider (it asks for
/// HTML) gets the message as a page with a way to start again; anything else the JSON error.
pub async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    match finish_sign_in(&state, &headers, query).await {
        Ok(response) => response,
        Err(error) if wants_html(&headers) && error.status == StatusCode::UNAUTHORIZED => page(
            StatusCode::UNAUTHORIZED,
            "Sign-in failed · Agent Taskbay",
            SIGN_IN_FAILED,
            "If you have just been given access, ask an admin whether you were provisioned for this console.",
        ),
        Err(error) => error.into_response(),
    }
}

/// Whether the request is a browser's navigation (it asks for HTML).
fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|accept| accept.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// A small page of fixed text with a way to sign in again (no script, no style: the console's
/// stylesheet and app are behind sign-in).
fn page(status: StatusCode, title: &str, heading: &str, text: &str) -> Response {
    let page = format!(
        "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>{title}</title>\
         <main><h1>{heading}</h1><p>{text}</p><p><a href=\"/api/auth/login\">Sign in again</a></p></main></html>"
    );
    let mut response = (status, axum::response::Html(page)).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn finish_sign_in(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<String>,
) -> Result<Response, ApiError> {
    let sign_in = match &*state.auth {
        Auth::Oidc(Ok(sign_in)) => sign_in,
        Auth::Oidc(Err(_)) => return Err(ApiError::unavailable_with(SIGN_IN_UNAVAILABLE)),
        Auth::Development => return Err(ApiError::new(StatusCode::UNAUTHORIZED, SIGN_IN_FAILED)),
    };
    within_budget(state, "callback").await?;
    let failed = || ApiError::new(StatusCode::UNAUTHORIZED, SIGN_IN_FAILED);
    let code = only_value(query.as_deref(), "code");
    let returned_state = only_value(query.as_deref(), "state");
    let (Some(code), Some(returned_state)) = (code, returned_state) else {
        // The provider's own error (`?error=access_denied`) is not echoed; the attempt is spent.
        if let Some(token) = cookie(headers, LOGIN_COOKIE) {
            let _ = sessions::consume_attempt(&state.db, token, Utc::now()).await;
        }
        return Err(failed());
    };
    let finished = sign_in
        .finish(&state.db, cookie(headers, LOGIN_COOKIE), &code, &returned_state)
        .await
        .map_err(|error| match error {
            SignInError::Failed => failed(),
            SignInError::Unavailable => ApiError::unavailable_with(SIGN_IN_UNAVAILABLE),
        })?;
    // A previous session of this browser ends: a sign-in never leaves two behind.
    if let Some(previous) = cookie(headers, SESSION_COOKIE) {
        sessions::delete(&state.db, previous)
            .await
            .map_err(ApiError::from)?;
    }
    let settings = sign_in.settings();
    let mut response = see_other(&format!("{}{}", settings.origin, finished.return_to));
    let cookies = response.headers_mut();
    cookies.append(
        header::SET_COOKIE,
        set_cookie(
            SESSION_COOKIE,
            &finished.session_token,
            settings.session_lifetime.as_secs(),
        ),
    );
    cookies.append(header::SET_COOKIE, set_cookie(LOGIN_COOKIE, "", 0));
    tracing::info!(membership = %finished.member.membership_id, "signed in");
    Ok(response)
}

/// `POST /api/auth/logout` (the browser's identity menu uses the `sign_out` server function).
pub async fn logout(
    State(state): State<AppState>,
    principal: Principal,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    principal.require(Permission::Read)?;
    let cleared = end_session(&state, &headers).await.map_err(ApiError::from)?;
    let mut response = Json(json!({"signedOut": true})).into_response();
    response.headers_mut().append(header::SET_COOKIE, cleared);
    Ok(response)
}

/// `GET /api/auth/signed-out`: where a browser lands after signing out. Public: the provider
/// keeps its own session, so any page of the console would sign the person in again at once.
pub async fn signed_out() -> Response {
    page(
        StatusCode::OK,
        "Signed out · Agent Taskbay",
        "You are signed out of Agent Taskbay.",
        "Your identity provider may still be signed in; sign out there too on a shared computer.",
    )
}

/// `GET /api/auth/session`.
pub async fn session(State(state): State<AppState>, principal: Principal) -> Result<Json<Value>, ApiError> {
    principal.require(Permission::Read)?;
    Ok(Json(json!({
        "user": {"displayName": principal.display_name, "role": principal.role},
        "mode": state.auth.mode_name(),
    })))
}

/// Takes one request from the global sign-in budget `name` (§1.6).
async fn within_budget(state: &AppState, name: &str) -> Result<(), ApiError> {
    let allowed = budgets::take(&state.db, &format!("auth:{name}"), SIGN_IN_BUDGET, Utc::now())
        .await
        .map_err(|_| ApiError::unavailable_with(SIGN_IN_UNAVAILABLE))?;
    if allowed {
        Ok(())
    } else {
        Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, TOO_MANY_SIGN_INS))
    }
}

/// `303 See Other` to `location`, not cached.
fn see_other(location: &str) -> Response {
    let mut response = Redirect::to(location).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_value_is_read_only_when_given_once() {
        assert_eq!(only_value(Some("code=a&state=b"), "state").as_deref(), Some("b"));
        assert_eq!(
            only_value(Some("returnTo=%2Fchat%3Fx%3D1"), "returnTo").as_deref(),
            Some("/chat?x=1")
        );
        assert_eq!(only_value(Some("code=a&code=b"), "code"), None);
        assert_eq!(only_value(Some("code=a"), "state"), None);
        assert_eq!(only_value(None, "code"), None);
    }
}
