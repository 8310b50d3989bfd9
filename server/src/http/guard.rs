//! The request guard: one layer in front of every route (SSR pages, `/api`, `/api/fn`,
//! `/api/live`, artifacts, the site's files), run before any handler (issue #26).
//!
//! In order:
//! 1. **Host.** The request must name the console ([`ConsoleOrigins`]): a page that rebinds its
//!    own DNS name to 127.0.0.1 sends its own name, and is answered `421` with nothing rendered.
//! 2. **Origin**, for every method but GET, HEAD and OPTIONS (`shared/spec/reference.md` §4.1):
//!    `Sec-Fetch-Site`, when present, must be `same-origin` or `none`; `Origin`, when present,
//!    must be exactly one of the console's origins, and is required when `Sec-Fetch-Site` is
//!    present (a browser sends both). A request with neither header is a non-browser client
//!    (curl, a script): browsers always send `Origin` on these methods, so no page can make
//!    one, and the Host rule still applies to it. Refusal: `403 This action is not permitted.`
//! 3. **Server functions** (`/api/fn/*`): the path must be a declared function
//!    ([`server_fns::SERVER_FNS`]), the body at most [`SERVER_FN_BODY_LIMIT`] bytes (`413`), and
//!    the `Content-Type` the one its codec reads (`415`): a JSON function never parses a
//!    `text/plain` body a foreign page could send without a preflight.
//! 4. **Identity** ([`crate::http::identity`]), for every route but the public ones ([`is_public`]).
//!    With sign-in, a request that changes something must carry exactly `Origin: <A2A_AUTH_ORIGIN>`.
//!    the caller is resolved once and handed on as the request's
//!    [`Principal`](crate::http::api::principal::Principal); a server function's permission
//!    ([`server_fns::SERVER_FNS`]) is checked against its role (`403`). Without a caller a
//!    page is sent to sign in (`303` to `/api/auth/login?returnTo=…`), anything else answers
//!    `401 Sign in to continue.`; an identity that cannot be resolved answers `503`.

pub mod origins;
pub mod server_fns;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

pub use self::origins::ConsoleOrigins;
use crate::http::api::error::ApiError;
use crate::http::api::principal::{IDENTITY_UNAVAILABLE, NOT_PERMITTED, Permission, Principal};
use crate::http::api::routes::{self as api_routes, Access};
use crate::state::AppState;

/// Largest server-function request: a composer send carries attached files as base64 (10 MiB of
/// file is about 13.4 MiB of JSON), like the JSON API's 16 MiB body limit.
pub const SERVER_FN_BODY_LIMIT: usize = 16 * 1024 * 1024;

pub const MISDIRECTED: &str =
    "Misdirected request: this console answers only at its own address (see A2A_AUTH_ORIGIN).";
pub const HOST_REQUIRED: &str = "A Host header is required.";
pub const BODY_TOO_LARGE: &str = "Request body exceeds the 16 MB limit.";

/// Why the guard refused a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub message: String,
}

impl Refusal {
    fn new(status: StatusCode, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }

    /// `/api` callers get the API's JSON error; pages and files a plain line.
    fn answer(self, path: &str) -> Response {
        if path == "/api" || path.starts_with("/api/") {
            return ApiError::new(self.status, self.message).into_response();
        }
        let mut response = (self.status, format!("{}\n", self.message)).into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// The guard as an axum middleware over the whole router.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let path_and_query = request
        .uri()
        .path_and_query()
        .map_or_else(|| path.clone(), |p| p.to_string());
    let checked = match check(&state.origins, request).await {
        Ok(request) => match identified(&state, request).await {
            Ok(request) => read_server_fn_body(request).await,
            Err(refusal) => Err(refusal),
        },
        Err(refusal) => Err(refusal),
    };
    match checked {
        Ok(request) => next.run(request).await,
        // With sign-in, a page without a session is sent to sign in (development mode has
        // none to offer: its disabled administrator gets the plain 401).
        Err(refusal)
            if refusal.status == StatusCode::UNAUTHORIZED
                && is_page(&path)
                && matches!(*state.auth, crate::http::identity::Auth::Oidc(_)) =>
        {
            sign_in_redirect(&path_and_query)
        }
        Err(refusal) => {
            tracing::debug!(status = refusal.status.as_u16(), %path, "request refused by the guard");
            refusal.answer(&path)
        }
    }
}

/// Rule 4: the caller of a route that is not public, put in the request's extensions, once the
/// route's declared permission and, with sign-in, the caller's request budget allow it.
async fn identified(state: &AppState, mut request: Request) -> Result<Request, Refusal> {
    let path = request.uri().path();
    if is_public(state, path) {
        return Ok(request);
    }
    // With sign-in a change must come from the console's own pages at A2A_AUTH_ORIGIN: a
    // script sends that Origin too (reference §4.1).
    if let crate::http::identity::Auth::Oidc(Ok(sign_in)) = &*state.auth
        && !is_safe(request.method())
        && request
            .headers()
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            != Some(&sign_in.settings().origin)
    {
        return Err(Refusal::new(StatusCode::FORBIDDEN, NOT_PERMITTED));
    }
    let refused = |error: ApiError| Refusal::new(error.status, error.message);
    let principal = crate::http::identity::identify(state, request.headers())
        .await
        .map_err(refused)?;
    // The permission the route declares (server functions and `/api` routes; pages read).
    let permission = match server_fns::rule(path) {
        Some(rule) => Some(rule.permission),
        None => match api_routes::find(request.method().as_str(), path) {
            Some(route) => match route.access {
                Access::Needs(permission) => Some(permission),
                Access::Public => None,
            },
            None => None,
        },
    };
    if let Some(permission) = permission {
        principal.require(permission).map_err(refused)?;
        budget(state, &principal, permission).await?;
    }
    request.extensions_mut().insert(principal);
    Ok(request)
}

/// Requests a member may make per 60-second window, by the permission of the route
/// (`shared/spec/security-and-durability.md` §1.6).
pub fn budget_per_minute(permission: Permission) -> u32 {
    match permission {
        Permission::Read => 900,
        Permission::Operate => 120,
        Permission::Administer => 60,
    }
}

pub const TOO_MANY_REQUESTS: &str = "Too many requests. Try again shortly.";

/// Takes one request from the caller's budget for `permission`: with sign-in only, where a
/// deployment is shared (ADR 0037); the development-mode administrator is one person on their
/// own machine.
async fn budget(state: &AppState, principal: &Principal, permission: Permission) -> Result<(), Refusal> {
    if !matches!(*state.auth, crate::http::identity::Auth::Oidc(_)) {
        return Ok(());
    }
    let key = format!("user:{}:{}", principal.membership_id, permission.as_str());
    let allowed =
        crate::store::budgets::take(&state.db, &key, budget_per_minute(permission), chrono::Utc::now())
            .await
            .map_err(|error| {
                tracing::warn!(%error, "cannot take from a request budget");
                Refusal::new(StatusCode::SERVICE_UNAVAILABLE, IDENTITY_UNAVAILABLE)
            })?;
    if allowed {
        Ok(())
    } else {
        Err(Refusal::new(StatusCode::TOO_MANY_REQUESTS, TOO_MANY_REQUESTS))
    }
}

/// Routes anyone may reach: the health and metrics endpoints, the public `/api` routes
/// (starting and finishing sign-in), and the site's files (a path naming a file under the
/// site root; never one with `..`).
pub fn is_public(state: &AppState, path: &str) -> bool {
    if matches!(path, "/healthz" | "/readyz" | "/metrics") {
        return true;
    }
    if path.starts_with("/api/") {
        return api_routes::API_ROUTES
            .iter()
            .any(|route| route.access == Access::Public && api_routes::matches(route.path, path));
    }
    let relative = path.trim_start_matches('/');
    if relative.is_empty() || relative.split('/').any(|s| s.is_empty() || s == "..") {
        return false;
    }
    std::path::Path::new(&*state.leptos_options.site_root)
        .join(relative)
        .is_file()
}

/// A page, as opposed to the API, server functions, live streams and files.
fn is_page(path: &str) -> bool {
    path != "/api" && !path.starts_with("/api/")
}

/// A page asked for without a session: off to sign in, back to the page afterwards.
fn sign_in_redirect(path_and_query: &str) -> Response {
    let target = format!(
        "/api/auth/login?returnTo={}",
        app::live::encode_segment(path_and_query)
    );
    let mut response = axum::response::Redirect::to(&target).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Runs rules 1–3 (the body of a server function is read after rule 4, [`read_server_fn_body`]).
pub async fn check(origins: &ConsoleOrigins, request: Request) -> Result<Request, Refusal> {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
    let Some(host) = host else {
        return Err(Refusal::new(StatusCode::BAD_REQUEST, HOST_REQUIRED));
    };
    // The push callback origin is answered on the push receiver only.
    let push_delivery = request.method() == axum::http::Method::POST
        && request.uri().path().starts_with("/api/webhooks/a2a/");
    let answers = if push_delivery {
        origins.answers_push_to(&host)
    } else {
        origins.answers_to(&host)
    };
    if !answers {
        return Err(Refusal::new(StatusCode::MISDIRECTED_REQUEST, MISDIRECTED));
    }
    if !is_safe(request.method()) && !mutation_allowed(origins, request.headers()) {
        return Err(Refusal::new(StatusCode::FORBIDDEN, NOT_PERMITTED));
    }
    if request.uri().path().starts_with("/api/fn/") {
        return check_server_fn(request).await;
    }
    Ok(request)
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Rule 2: `Sec-Fetch-Site` and `Origin` of a request that changes something.
pub fn mutation_allowed(origins: &ConsoleOrigins, headers: &HeaderMap) -> bool {
    let fetch_site = match headers.get("sec-fetch-site").map(HeaderValue::to_str) {
        None => None,
        Some(Ok(value)) => Some(value.trim().to_ascii_lowercase()),
        Some(Err(_)) => return false,
    };
    if fetch_site
        .as_deref()
        .is_some_and(|site| site != "same-origin" && site != "none")
    {
        return false;
    }
    let mut origin_values = headers.get_all(header::ORIGIN).iter();
    match (origin_values.next(), origin_values.next()) {
        (Some(origin), None) => origin.to_str().is_ok_and(|origin| origins.is_own_origin(origin)),
        (Some(_), Some(_)) => false,
        // A browser always sends Origin with these methods: a request with Sec-Fetch-Site
        // and no Origin is not one we can vouch for; one with neither is not a browser's.
        (None, _) => fetch_site.is_none(),
    }
}

/// Rule 3: a declared server function, a bounded body, the content type of its codec.
async fn check_server_fn(request: Request) -> Result<Request, Refusal> {
    let Some(rule) = server_fns::rule(request.uri().path()) else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "Not found."));
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > SERVER_FN_BODY_LIMIT as u64) {
        return Err(Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, BODY_TOO_LARGE));
    }
    if !is_safe(request.method()) {
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(|value| value.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
        if content_type.as_deref() != Some(rule.content_type) {
            return Err(Refusal::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("This function accepts only {}.", rule.content_type),
            ));
        }
    }
    Ok(request)
}

/// A server function's body, read within the limit once the caller is known (an anonymous
/// request never makes the server hold 16 MiB), so a body sent without a length (chunked) that
/// runs over it is answered 413 too, not a server function's 500.
async fn read_server_fn_body(request: Request) -> Result<Request, Refusal> {
    if !request.uri().path().starts_with("/api/fn/") {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, SERVER_FN_BODY_LIMIT)
        .await
        .map_err(|_| Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, BODY_TOO_LARGE))?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn dev() -> ConsoleOrigins {
        ConsoleOrigins::new("127.0.0.1:3002".parse().unwrap(), None)
    }

    #[test]
    fn a_mutation_from_the_console_s_own_pages_is_allowed() {
        let origins = dev();
        assert!(mutation_allowed(
            &origins,
            &headers(&[
                ("sec-fetch-site", "same-origin"),
                ("origin", "http://127.0.0.1:3002")
            ])
        ));
        assert!(mutation_allowed(
            &origins,
            &headers(&[("origin", "http://localhost:3002")])
        ));
    }

    #[test]
    fn curl_and_scripts_without_origin_are_allowed() {
        assert!(mutation_allowed(&dev(), &headers(&[])));
    }

    #[test]
    fn cross_site_and_same_site_requests_are_refused_reference_4_1() {
        let origins = dev();
        for pairs in [
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "https://evil.example"),
            ][..],
            // Another port of localhost is the same site, not the same origin.
            &[
                ("sec-fetch-site", "same-site"),
                ("origin", "http://localhost:8080"),
            ],
            &[("sec-fetch-site", "cross-site")],
            &[("sec-fetch-site", "same-origin")],
            &[("origin", "https://evil.example")],
            &[("origin", "null")],
            &[("origin", "http://127.0.0.1:3003")],
            &[
                ("origin", "http://127.0.0.1:3002"),
                ("origin", "http://127.0.0.1:3002"),
            ],
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "http://127.0.0.1:3002"),
            ],
        ] {
            assert!(!mutation_allowed(&origins, &headers(pairs)), "{pairs:?}");
        }
    }
}
