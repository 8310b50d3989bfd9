//! The demo agent's protected variants (issue #30): each requires a credential of one kind and
//! refuses everything else with `401`. Cards stay public, as A2A expects. The credentials are
//! fixed and documented (`docs/reference/demo-agent.md`), so anyone can open them:
//!
//! | variant | credential |
//! |---|---|
//! | `apikey` | header `X-API-Key: demo-api-key-4f7c1a` |
//! | `bearer` | `Authorization: Bearer demo-bearer-9d2e6b` |
//! | `oauth` | client credentials `taskbay-demo` / `demo-client-secret-3a8f` at `/oauth/token` |
//! | `mtls` | a client certificate of the demo CA, over TLS (`demo_agent::tls`) |
//!
//! The token endpoint issues random access tokens that live [`TOKEN_SECONDS`] (or `N` seconds
//! when the requested scope holds `ttl=N`, so tests can have tokens expire); `POST
//! /oauth/revoke` forgets every token it issued (so a console's cached one is refused and must
//! be fetched again), and `GET /oauth/stats` says how many it issued.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::variant::Variant;

/// The `apikey` variant's header and value.
pub const API_KEY_HEADER: &str = "X-API-Key";
pub const API_KEY: &str = "demo-api-key-4f7c1a";
/// The `bearer` variant's token.
pub const BEARER_TOKEN: &str = "demo-bearer-9d2e6b";
/// The `oauth` variant's client.
pub const OAUTH_CLIENT_ID: &str = "taskbay-demo";
pub const OAUTH_CLIENT_SECRET: &str = "demo-client-secret-3a8f";
/// What the `mtls` variant echoes when asked to "leak": a phrase of its own (the client key never reaches it).
pub const MTLS_ECHO: &str = "demo-mtls-session-51c2";
/// Lifetime of an issued access token.
pub const TOKEN_SECONDS: u64 = 3600;

/// Which credential a variant requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    ApiKey,
    Bearer,
    OAuth,
    Mtls,
}

impl Lock {
    /// The secret the variant knows (and echoes when asked to "leak").
    pub fn secret(self) -> &'static str {
        match self {
            Lock::ApiKey => API_KEY,
            Lock::Bearer => BEARER_TOKEN,
            Lock::OAuth => OAUTH_CLIENT_SECRET,
            // The client key never reaches the agent; it can only echo a phrase of its own.
            Lock::Mtls => MTLS_ECHO,
        }
    }

    /// The card's `securitySchemes` and `securityRequirements` (1.0 shapes).
    pub fn card_fields(self, origin: &str) -> (Value, Value) {
        let (name, scheme) = match self {
            Lock::ApiKey => (
                "apiKey",
                json!({"apiKeySecurityScheme": {"location": "header", "name": API_KEY_HEADER,
                       "description": "Demo key: see the demo agent reference."}}),
            ),
            Lock::Bearer => (
                "bearer",
                json!({"httpAuthSecurityScheme": {"scheme": "bearer",
                       "description": "Demo token: see the demo agent reference."}}),
            ),
            Lock::Mtls => (
                "mtls",
                json!({"mtlsSecurityScheme": {"description": "A client certificate of the demo CA."}}),
            ),
            Lock::OAuth => (
                "oauth",
                json!({"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                    "tokenUrl": format!("{origin}/oauth/token"), "scopes": {"a2a": "Call the agent"}}}}}),
            ),
        };
        (
            json!({ name: scheme }),
            json!([{"schemes": { name: {"list": []} }}]),
        )
    }
}

/// Tokens the `oauth` variant issued, with when each expires.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    issued: Arc<Mutex<HashMap<String, Instant>>>,
    count: Arc<std::sync::atomic::AtomicU64>,
}

impl Tokens {
    fn valid(&self, token: &str) -> bool {
        self.issued
            .lock()
            .map(|issued| issued.get(token).is_some_and(|until| *until > Instant::now()))
            .unwrap_or(false)
    }
}

/// Refuses requests to a protected variant's A2A routes without its credential (`401` with a
/// `WWW-Authenticate` challenge); cards and every other variant pass.
pub async fn guard(State(tokens): State<Tokens>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let mut segments = path.trim_start_matches('/').split('/');
    // The router decodes `{variant}` before handlers see it, so the guard must too:
    // `/%61pikey/a2a` is the `apikey` variant.
    let variant = segments
        .next()
        .map(percent_decoded)
        .as_deref()
        .and_then(Variant::parse);
    let protected = segments
        .next()
        .is_some_and(|rest| rest == "a2a" || rest == "rest");
    match variant.and_then(Variant::lock) {
        Some(lock) if protected && !admits(lock, &request, &tokens) => unauthorized(lock),
        _ => next.run(request).await,
    }
}

/// `segment` with its `%XX` escapes decoded (an invalid escape is kept as written).
fn percent_decoded(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn admits(lock: Lock, request: &Request, tokens: &Tokens) -> bool {
    let headers = request.headers();
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let bearer = header(header::AUTHORIZATION.as_str()).and_then(|v| v.strip_prefix("Bearer "));
    match lock {
        Lock::ApiKey => header(API_KEY_HEADER) == Some(API_KEY),
        Lock::Bearer => bearer == Some(BEARER_TOKEN),
        Lock::OAuth => bearer.is_some_and(|token| tokens.valid(token)),
        Lock::Mtls => request
            .extensions()
            .get::<axum::extract::ConnectInfo<super::tls::TlsPeer>>()
            .is_some_and(|peer| peer.0.client_certificate),
    }
}

fn unauthorized(lock: Lock) -> Response {
    let challenge = match lock {
        Lock::ApiKey => "ApiKey",
        Lock::Bearer | Lock::OAuth => "Bearer",
        Lock::Mtls => "Mutual-TLS",
    };
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        Json(json!({"error": {"code": 401, "status": "UNAUTHENTICATED", "message": "This demo agent requires a credential."}})),
    )
        .into_response()
}

/// The client-credentials grant's form (`client_secret_post`).
#[derive(Deserialize)]
pub struct TokenRequest {
    grant_type: String,
    client_id: String,
    client_secret: String,
    #[serde(default)]
    scope: Option<String>,
}

/// `POST /oauth/token`.
pub async fn token(State(tokens): State<Tokens>, axum::Form(form): axum::Form<TokenRequest>) -> Response {
    if form.grant_type != "client_credentials" {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "unsupported_grant_type"})),
        )
            .into_response();
    }
    if form.client_id != OAUTH_CLIENT_ID || form.client_secret != OAUTH_CLIENT_SECRET {
        return (StatusCode::UNAUTHORIZED, Json(json!({"error": "invalid_client"}))).into_response();
    }
    let lifetime = form
        .scope
        .as_deref()
        .unwrap_or_default()
        .split(' ')
        .find_map(|s| s.strip_prefix("ttl=")?.parse::<u64>().ok())
        .unwrap_or(TOKEN_SECONDS);
    let token = format!("demo-access-{}", uuid::Uuid::new_v4().simple());
    if let Ok(mut issued) = tokens.issued.lock() {
        // A token of lifetime 0 is still good for the call it was fetched for.
        issued.insert(
            token.clone(),
            Instant::now() + Duration::from_secs(lifetime.max(5)),
        );
    }
    tokens.count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Json(json!({"access_token": token, "token_type": "Bearer", "expires_in": lifetime})).into_response()
}

/// `POST /oauth/revoke`: every issued token is forgotten.
pub async fn revoke_all(State(tokens): State<Tokens>) -> StatusCode {
    if let Ok(mut issued) = tokens.issued.lock() {
        issued.clear();
    }
    StatusCode::NO_CONTENT
}

/// `GET /oauth/stats`: how many tokens were issued.
pub async fn stats(State(tokens): State<Tokens>) -> Json<Value> {
    Json(json!({"issued": tokens.count.load(std::sync::atomic::Ordering::Relaxed)}))
}
