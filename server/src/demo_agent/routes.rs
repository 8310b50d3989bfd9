//! The demo agent's HTTP surface: the router, `serve` with graceful shutdown, and the card
//! URLs the CLI prints. Handlers only resolve the variant and hand over to a binding.

use std::collections::HashMap;
use std::future::Future;

use app::a2a::VERSION_HEADER;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio::net::TcpListener;

use super::card;
use super::error::A2aError;
use super::jsonrpc;
use super::rest::{self, Call};
use super::rest03;
use super::service::Agent;
use super::variant::{VARIANTS, Variant};

/// The version every 1.0 variant requires.
const SUPPORTED_VERSION: &str = "1.0";

/// The demo agent's router with fresh in-memory tasks; tests serve it on `127.0.0.1:0`.
pub fn router() -> Router {
    router_for(Agent::new())
}

fn router_for(agent: Agent) -> Router {
    let tokens = super::locked::Tokens::default();
    let oauth = Router::new()
        .route("/oauth/token", post(super::locked::token))
        .route("/oauth/revoke", post(super::locked::revoke_all))
        .route("/oauth/stats", get(super::locked::stats))
        .with_state(tokens.clone());
    Router::new()
        .route("/", get(index))
        .route("/card-keys.json", get(card_keys))
        .route("/{variant}/card.json", get(agent_card))
        .route("/{variant}/.well-known/agent-card.json", get(agent_card))
        .route("/{variant}/a2a", post(json_rpc))
        .route("/{variant}/rest/message:send", post(rest_send))
        .route("/{variant}/rest/message:stream", post(rest_stream))
        .route("/{variant}/rest/tasks", get(rest_list))
        .route("/{variant}/rest/v1/message:send", post(rest03_send))
        .route("/{variant}/rest/v1/message:stream", post(rest03_stream))
        .route(
            "/{variant}/rest/v1/tasks/{id_action}",
            get(rest03_task).post(rest03_task),
        )
        .route(
            "/{variant}/rest/tasks/{id_action}",
            get(rest_task).post(rest_task),
        )
        .route(
            "/{variant}/rest/tasks/{task}/pushNotificationConfigs",
            get(rest_push).post(rest_push),
        )
        .route(
            "/{variant}/rest/tasks/{task}/pushNotificationConfigs/{config}",
            get(rest_push_config).delete(rest_push_config),
        )
        .with_state(agent)
        .merge(oauth)
        .layer(axum::middleware::from_fn_with_state(tokens, super::locked::guard))
}

/// Serves the demo agent on `listener` until `shutdown` resolves, then ends open streams and
/// waits for background work to stop.
pub async fn serve(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with_tls(listener, None, shutdown).await
}

/// [`serve`], and with `tls` also the same agent over TLS (the `mtls` variant's home), both
/// until `shutdown`.
pub async fn serve_with_tls(
    listener: TcpListener,
    tls: Option<(TcpListener, super::tls::DemoPki)>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let agent = Agent::new();
    let token = agent.shutdown_token();
    let stop = tokio_util::sync::CancellationToken::new();
    let tls_task = match tls {
        Some((tcp, pki)) => {
            let listener = super::tls::TlsListener::new(tcp, &pki).map_err(std::io::Error::other)?;
            let app = tls_router(router_for(agent.clone()));
            let stop = stop.clone();
            Some(tokio::spawn(async move {
                let service = app.into_make_service_with_connect_info::<super::tls::TlsPeer>();
                axum::serve(listener, service)
                    .with_graceful_shutdown(async move { stop.cancelled().await })
                    .await
            }))
        }
        None => None,
    };
    let plain_stop = stop.clone();
    axum::serve(crate::serve::without_nagle(listener), router_for(agent.clone()))
        .with_graceful_shutdown(async move {
            shutdown.await;
            plain_stop.cancel();
            // Streams watch this token; without it graceful shutdown would wait for them.
            token.cancel();
        })
        .await?;
    stop.cancel();
    if let Some(task) = tls_task {
        task.await.map_err(std::io::Error::other)??;
    }
    agent.shut_down().await;
    Ok(())
}

/// The router as served over TLS: cards name `https://` interfaces.
pub fn tls_router(router: Router) -> Router {
    router.layer(axum::middleware::map_request(
        |mut request: axum::extract::Request| async move {
            request
                .headers_mut()
                .insert(SCHEME_HEADER, header::HeaderValue::from_static("https"));
            request
        },
    ))
}

/// The demo agent's router over TLS with fresh in-memory tasks; tests serve it with
/// [`super::tls::TlsListener`].
pub fn tls_router_fresh() -> Router {
    tls_router(router())
}

/// Set by [`tls_router`] on every request it serves: the scheme cards are served with.
const SCHEME_HEADER: &str = "x-taskbay-demo-scheme";

/// The card URL of every variant served at `origin` (`http://127.0.0.1:4010`), in
/// [`VARIANTS`] order; the `mtls` variant at `tls_origin` (`https://127.0.0.1:4011`), or not at
/// all without one.
pub fn card_urls(origin: &str) -> Vec<String> {
    card_urls_with_tls(origin, None)
}

/// [`card_urls`] with the TLS origin of the `mtls` variant.
pub fn card_urls_with_tls(origin: &str, tls_origin: Option<&str>) -> Vec<String> {
    VARIANTS
        .iter()
        .filter_map(|name| match (*name, tls_origin) {
            ("mtls", None) => None,
            ("mtls", Some(tls)) => Some(format!("{}/{name}/card.json", tls.trim_end_matches('/'))),
            _ => Some(format!("{}/{name}/card.json", origin.trim_end_matches('/'))),
        })
        .collect()
}

/// Accepts `1.0` (a missing version means 0.3, which the 1.0 variants refuse).
pub(crate) fn check_version(version: Option<&str>) -> Result<(), A2aError> {
    let version = version.map(str::trim).filter(|v| !v.is_empty()).unwrap_or("0.3");
    if version == SUPPORTED_VERSION || version.starts_with("1.0.") {
        Ok(())
    } else {
        Err(A2aError::VersionNotSupported(version.to_owned()))
    }
}

/// `http://<Host>` of the request (`https://` over TLS), so cards point where the client
/// actually connected.
fn origin(headers: &HeaderMap) -> String {
    let scheme = match headers.get(SCHEME_HEADER).and_then(|v| v.to_str().ok()) {
        Some("https") => "https",
        _ => "http",
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | ':' | '-' | '[' | ']'))
        })
        .unwrap_or("127.0.0.1");
    format!("{scheme}://{host}")
}

fn requested_version(headers: &HeaderMap, query: &HashMap<String, String>) -> Option<String> {
    headers
        .get(VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| query.get(VERSION_HEADER).cloned())
}

fn unknown_variant(name: &str) -> Response {
    let body = json!({"error": format!("No demo agent variant \"{name}\"."), "variants": VARIANTS});
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

async fn index(headers: HeaderMap) -> Response {
    let origin = origin(&headers);
    let variants: Vec<_> = Variant::ALL
        .iter()
        .zip(card_urls(&origin))
        .map(|(v, card)| json!({"name": v.name(), "card": card, "description": v.description()}))
        .collect();
    Json(json!({"name": "Agent Taskbay demo agent", "variants": variants})).into_response()
}

/// `GET /card-keys.json`: the `A2A_TRUSTED_CARD_KEYS` value that pins the signed variant's key.
async fn card_keys(headers: HeaderMap) -> Response {
    Json(card::card_key_pins(&origin(&headers))).into_response()
}

async fn agent_card(Path(name): Path<String>, headers: HeaderMap) -> Response {
    match Variant::parse(&name) {
        Some(variant) => Json(card::card(variant, &origin(&headers))).into_response(),
        None => unknown_variant(&name),
    }
}

async fn json_rpc(
    State(agent): State<Agent>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(variant) = Variant::parse(&name) else {
        return unknown_variant(&name);
    };
    jsonrpc::handle(agent, variant, requested_version(&headers, &query), &body).await
}

async fn rest_call(
    agent: Agent,
    name: &str,
    method: Method,
    call: Call,
    query: HashMap<String, String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let Some(variant) = Variant::parse(name) else {
        return unknown_variant(name);
    };
    let version = requested_version(headers, &query);
    rest::handle(agent, variant, version, method, call, query, body).await
}

async fn rest_send(
    State(agent): State<Agent>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let call = Call::Send { stream: false };
    rest_call(agent, &name, Method::POST, call, query, &headers, &body).await
}

async fn rest_stream(
    State(agent): State<Agent>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let call = Call::Send { stream: true };
    rest_call(agent, &name, Method::POST, call, query, &headers, &body).await
}

async fn rest_list(
    State(agent): State<Agent>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    rest_call(agent, &name, Method::GET, Call::List, query, &headers, &[]).await
}

async fn rest_task(
    State(agent): State<Agent>,
    Path((name, id_action)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let call = Call::task(&id_action);
    rest_call(agent, &name, method, call, query, &headers, &body).await
}

async fn rest_push(
    State(agent): State<Agent>,
    Path((name, task)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let call = Call::Push { task, config: None };
    rest_call(agent, &name, method, call, query, &headers, &body).await
}

async fn rest_push_config(
    State(agent): State<Agent>,
    Path((name, task, config)): Path<(String, String, String)>,
    Query(query): Query<HashMap<String, String>>,
    method: Method,
    headers: HeaderMap,
) -> Response {
    let call = Call::Push {
        task,
        config: Some(config),
    };
    rest_call(agent, &name, method, call, query, &headers, &[]).await
}

async fn rest03_call(
    agent: Agent,
    name: &str,
    method: Method,
    call: Call,
    query: HashMap<String, String>,
    body: &[u8],
) -> Response {
    let Some(variant) = Variant::parse(name) else {
        return unknown_variant(name);
    };
    rest03::handle(agent, variant, method, call, query, body).await
}

async fn rest03_send(
    State(agent): State<Agent>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    rest03_call(
        agent,
        &name,
        Method::POST,
        Call::Send { stream: false },
        query,
        &body,
    )
    .await
}

async fn rest03_stream(
    State(agent): State<Agent>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    rest03_call(
        agent,
        &name,
        Method::POST,
        Call::Send { stream: true },
        query,
        &body,
    )
    .await
}

async fn rest03_task(
    State(agent): State<Agent>,
    Path((name, id_action)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
    method: Method,
    body: Bytes,
) -> Response {
    rest03_call(agent, &name, method, Call::task(&id_action), query, &body).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_urls() {
        assert!(check_version(Some("1.0")).is_ok());
        assert_eq!(
            check_version(None),
            Err(A2aError::VersionNotSupported("0.3".into()))
        );
        assert_eq!(check_version(Some("0.3")).unwrap_err().code(), -32009);
        let urls = card_urls("http://127.0.0.1:4010/");
        // `mtls` is served over TLS only, so listed only with a TLS origin.
        assert_eq!(urls.len(), VARIANTS.len() - 1);
        assert_eq!(urls[0], "http://127.0.0.1:4010/showcase/card.json");
    }
}
